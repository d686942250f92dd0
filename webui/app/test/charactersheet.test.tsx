// The character sheet's reading view: at a table each number is a button
// whose roll sends only what to roll (never a modifier) and shows the
// server's answer; away from a table nothing rolls; both languages.
import { act, fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { LANGUAGE_STORAGE_KEY } from '../src/i18n/messages';
import type { CharacterSheet, RollResultView } from '../src/table/api';
import { apiError, callsTo, characterView, json, renderApp, resetEachTest, stubServer } from './fixtures';

resetEachTest();

const MIRA = characterView({
  attacks: [{ name: 'Longbow', ability: 'dex', proficient: true, bonus: 0, damage: '1d8', damage_type: 'piercing', add_modifier: true }],
  derived: {
    ...characterView().derived,
    attacks: [{ name: 'Longbow', to_hit: 5, damage: '1d8+2', damage_modifier: 2, damage_type: 'piercing' }],
  },
});
const AT_TABLE: CharacterSheet = {
  character: MIRA,
  table: { session_id: 12, seat_id: 9, room_id: 1, room_name: 'Friday', campaign_name: 'Moonlit Roads' },
};

const result = (over: Partial<RollResultView>): RollResultView => ({
  id: 70,
  roll_request_id: null,
  acting_seat_id: 9,
  subject_seat_id: null,
  subject_character_id: 3,
  execution_mode: 'self',
  source: 'quick',
  formula: 'd20 + 4',
  audit: { formula: '1d20', normalized: 'd20', total: 13, min: 1, max: 20, groups: [] },
  raw_dice: [13],
  kept_dice: [13],
  base_modifier: 4,
  flat_adjustment: 0,
  total: 17,
  visibility: 'public',
  created_at: '2025-01-01T00:00:00Z',
  ...over,
});

describe('character sheet', () => {
  it('at a table: a skill, a save and an attack roll there; the body names only what to roll', async () => {
    let answer = result({ check: 'perception' });
    stubServer({
      'GET /api/characters/3/sheet': () => json(200, AT_TABLE),
      'POST /api/characters/3/roll': () => json(201, { session_id: 12, result: answer }),
    });
    renderApp('/characters/3/sheet');
    expect((await screen.findByTestId('sheet-where')).textContent).toContain('Moonlit Roads');
    fireEvent.click(screen.getByRole('button', { name: /^Roll Perception check WIS \+4 \(Proficient\)$/ }));
    const toast = screen.getByTestId('sheet-roll-result');
    expect((await within(toast).findByTestId('sheet-roll-total')).textContent).toBe('17');
    expect(toast.textContent).toContain('Perception');
    expect(within(toast).getByRole('link').getAttribute('href')).toBe('/sessions/12');

    answer = result({ id: 71, check: 'dex_save', total: 9 });
    await act(async () => fireEvent.click(screen.getByRole('button', { name: /^Roll Dexterity save \+2$/ })));
    answer = result({ id: 72, attack_name: 'Longbow', attack_roll: 'damage', damage_type: 'piercing', formula: 'd8 + 2', total: 6 });
    await act(async () => fireEvent.click(screen.getByRole('button', { name: /^Roll Longbow Damage 1d8\+2 piercing$/ })));
    expect((await within(toast).findByText(/Longbow: damage/)).textContent).toBeTruthy();

    const bodies = callsTo('POST', '/api/characters/3/roll').map((c) => {
      const { idempotency_key, ...rest } = c.body as Record<string, unknown>;
      expect(typeof idempotency_key).toBe('string');
      return rest;
    });
    expect(bodies).toEqual([{ check: 'perception' }, { check: 'dex_save' }, { attack: '1', damage: true }]);
    fireEvent.click(within(toast).getByRole('button', { name: 'Dismiss' }));
    expect(within(toast).queryByTestId('sheet-roll-total')).toBeNull();
  });

  it('a refused roll says why, in the reader’s language', async () => {
    localStorage.setItem(LANGUAGE_STORAGE_KEY, 'zh-TW');
    stubServer({
      'GET /api/characters/3/sheet': () => json(200, AT_TABLE),
      'POST /api/characters/3/roll': () => apiError(409, 'character_not_at_table'),
    });
    renderApp('/characters/3/sheet');
    fireEvent.click(await screen.findByRole('button', { name: /^擲骰： 感知 檢定/ }));
    expect((await screen.findByRole('alert')).textContent).toContain('這個角色目前不在你座位上進行中的遊戲裡');
  });

  it('away from a table the sheet reads but rolls nothing; Edit opens the editor', async () => {
    stubServer({ 'GET /api/characters/3/sheet': () => json(200, { character: MIRA, table: null }) });
    renderApp('/characters/3/sheet');
    expect((await screen.findByTestId('sheet-where')).textContent).toContain('Not at a running table');
    expect(screen.getByTestId('sheet-skill-perception').textContent).toContain('+4');
    expect(screen.getByTestId('sheet-ability-cha').textContent).toMatch(/\+2\s*score\s*15/);
    expect(screen.queryAllByRole('button', { name: /^Roll / })).toEqual([]);
    expect(screen.getByTestId('sheet-edit').getAttribute('href')).toBe('/characters/3');
  });
});
