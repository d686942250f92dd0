// The sheet's attacks, spells, inventory and notes: edited on the character
// page (the server's to-hit and damage beside each attack), rolled from the
// player's own card at the table (the server adds the sheet's numbers), and
// named on the feed's roll card.
import { act, fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { en } from '../src/i18n/en';
import errorsEn from '../src/i18n/errors.en.json';
import type { Character, RollResultView } from '../src/table/api';
import { callsTo, characterView, ev, json, participant, renderApp, resetEachTest, resume, rollResult, stubServer, T0, withSheet } from './fixtures';

resetEachTest();

const LONGSWORD = { name: 'Longsword', ability: 'str', proficient: true, bonus: 0, damage: '1d8', damage_type: 'slashing', add_modifier: true };

const MIRA: Character = characterView({
  abilities: { str: 16, dex: 14, con: 12, int: 8, wis: 13, cha: 15 },
  skill_proficiencies: [],
  biography: '',
  class: 'Fighter',
  background: '',
  hit_die: 10,
  attacks: [LONGSWORD],
  spells: [{ name: 'Shield', level: 1, prepared: true, notes: 'reaction' }],
  inventory: [{ name: 'Rope', quantity: 1, notes: '' }],
  notes: 'Owes the guild.',
  derived: {
    ...characterView().derived,
    modifiers: { str: 3, dex: 2, con: 1, int: -1, wis: 1, cha: 2 },
    skills: {},
    passive_perception: 11,
    saves: { str: 3, dex: 2, con: 1, int: -1, wis: 1, cha: 2 },
    hit_dice: '5d10',
    attacks: [{ name: 'Longsword', to_hit: 6, damage: '1d8+3', damage_modifier: 3, damage_type: 'slashing' }],
  },
  updated_at: T0,
});

const click = (el: HTMLElement) => act(async () => fireEvent.click(el));

describe('character page: attacks, spells, inventory, notes', () => {
  it('shows the saved lists with the server-derived to-hit and damage, and saves the edited lists', async () => {
    stubServer({
      'GET /api/characters/3': () => json(200, MIRA),
      'PUT /api/characters/3': (body) => json(200, { ...MIRA, ...(body as object) }),
    });
    renderApp('/characters/3');
    const name = (await screen.findByLabelText(en['character.attack.name'])) as HTMLInputElement;
    expect(name.value).toBe('Longsword');
    expect(screen.getByTestId('attack-derived').textContent).toBe('To hit +6, damage 1d8+3 slashing');
    expect((screen.getByLabelText(en['character.spell.name']) as HTMLInputElement).value).toBe('Shield');
    expect((screen.getByLabelText(en['character.item.name']) as HTMLInputElement).value).toBe('Rope');
    expect((screen.getByLabelText(en['character.notes']) as HTMLTextAreaElement).value).toBe('Owes the guild.');

    // a second attack, a cantrip, ten torches, longer notes
    await click(screen.getByRole('button', { name: en['character.attack.add'] }));
    const attack = screen.getAllByTestId('attack')[1]!;
    fireEvent.change(within(attack).getByLabelText(en['character.attack.name']), { target: { value: ' Fire bolt ' } });
    fireEvent.change(within(attack).getByLabelText(en['character.attack.ability']), { target: { value: 'int' } });
    fireEvent.change(within(attack).getByLabelText(en['character.attack.damage']), { target: { value: '1d10' } });
    fireEvent.change(within(attack).getByLabelText(en['character.attack.damageType']), { target: { value: 'fire' } });
    fireEvent.click(within(attack).getByLabelText(en['character.attack.addModifier']));
    fireEvent.change(within(attack).getByLabelText(en['character.attack.bonus']), { target: { value: '1' } });
    await click(screen.getByRole('button', { name: en['character.spell.add'] }));
    fireEvent.change(screen.getAllByLabelText(en['character.spell.name'])[1]!, { target: { value: 'Fire bolt' } });
    await click(screen.getByRole('button', { name: en['character.item.add'] }));
    fireEvent.change(screen.getAllByLabelText(en['character.item.name'])[1]!, { target: { value: 'Torch' } });
    fireEvent.change(screen.getAllByLabelText(en['character.item.quantity'])[1]!, { target: { value: '10' } });
    // the rope goes
    await click(within(screen.getAllByTestId('item')[0]!).getByRole('button', { name: en['common.remove'] }));
    fireEvent.change(screen.getByLabelText(en['character.notes']), { target: { value: 'Paid the guild.' } });

    await click(screen.getByRole('button', { name: en['character.save'] }));
    const sent = callsTo('PUT', '/api/characters/3')[0]!.body as Record<string, unknown>;
    expect(sent).toMatchObject({
      attacks: [
        LONGSWORD,
        { name: 'Fire bolt', ability: 'int', proficient: true, bonus: 1, damage: '1d10', damage_type: 'fire', add_modifier: false },
      ],
      spells: [
        { name: 'Shield', level: 1, prepared: true, notes: 'reaction' },
        { name: 'Fire bolt', level: 0, prepared: false, notes: '' },
      ],
      inventory: [{ name: 'Torch', quantity: 10, notes: '' }],
      notes: 'Paid the guild.',
    });
    expect(await screen.findByText(en['character.saved'])).toBeTruthy();
  });

  it('marks the attack the server refused and explains the rule', async () => {
    stubServer({
      'GET /api/characters/3': () => json(200, MIRA),
      'PUT /api/characters/3': () =>
        json(422, { error: { code: 'character_invalid', message: 'SERVER TEXT', fields: { 'attacks.0.damage': 'dice notation (1d8)' } } }),
    });
    renderApp('/characters/3');
    const damage = (await screen.findByLabelText(en['character.attack.damage'])) as HTMLInputElement;
    fireEvent.change(damage, { target: { value: '1d' } });
    await click(screen.getByRole('button', { name: en['character.save'] }));
    expect(damage.getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByText(en['fieldError.attacks'])).toBeTruthy();
    expect(screen.getByLabelText(en['character.spell.name']).getAttribute('aria-invalid')).toBeNull();
    expect(screen.getByRole('alert').textContent).toContain(errorsEn.character_invalid);
  });
});

const result = (over: Partial<RollResultView>) => rollResult(80, 11, 6, over);

const card = (name: string) => screen.getAllByTestId('participant').find((c) => within(c).getByRole('heading').textContent?.includes(name))!;

describe('table: attacks on a player card', () => {
  it('rolls an attack and its damage by name from the resume’s sheet; the server adds the sheet numbers; the feed names the attack', async () => {
    stubServer({
      'GET /api/sessions/12': () =>
        json(
          200,
          resume('player', {
            participants: [withSheet(participant(1, 9, 'Bob', 3, 'Mira'), MIRA.derived), participant(2, 10, 'Cid', 4, 'Nox')],
            cursor: 2,
            recent_events: [
              ev(1, 'session.started', { acting_seat_id: 8 }),
              ev(2, 'roll.quick', {
                acting_seat_id: 9,
                subject_seat_id: 9,
                payload: { version: 1, result: result({ formula: 'd8 + 3', total: 9 }), attack_name: 'Longsword', attack_roll: 'damage', damage_type: 'slashing' },
              }),
            ],
          }),
        ),
      'GET /api/sessions/12/rolls': () => json(200, { requests: [], results: [], pending_actions: [], windows: [] }),
      'POST /api/sessions/12/quick-roll': (body) =>
        json(201, (body as { damage?: boolean }).damage ? result({ formula: 'd8 + 3', total: 8 }) : result({})),
    });
    renderApp();
    await screen.findByTestId('session-status');
    const feedCard = await within(screen.getByTestId('chat')).findByTestId('roll-card');
    expect(feedCard.textContent).toContain('Longsword: damage (slashing)');

    const details = card('Mira').querySelector('details.card-attacks') as HTMLDetailsElement;
    await act(async () => {
      details.open = true;
      fireEvent(details, new Event('toggle'));
    });
    const row = await within(card('Mira')).findByTestId('card-attack');
    expect(row.textContent).toContain('To hit +6');
    expect(row.textContent).toContain('Damage 1d8+3 slashing');
    await click(within(row).getByRole('button', { name: 'Roll Longsword to hit' }));
    const sent = callsTo('POST', '/api/sessions/12/quick-roll');
    expect(sent[0]!.body).toMatchObject({ formula: '', attack: 'Longsword', damage: false });
    expect(typeof (sent[0]!.body as { idempotency_key?: string }).idempotency_key).toBe('string');
    await vi.waitFor(() => expect(within(card('Mira')).getByTestId('card-attack-result').textContent).toContain('= 17'));
    await click(within(row).getByRole('button', { name: 'Roll Longsword damage' }));
    expect(callsTo('POST', '/api/sessions/12/quick-roll')[1]!.body).toMatchObject({ attack: 'Longsword', damage: true });
    await vi.waitFor(() => expect(within(card('Mira')).getByTestId('card-attack-result').textContent).toContain('d8 + 3 = 8'));
    // the card read no character: the attacks are the resume's
    expect(callsTo('GET', '/api/characters/3')).toEqual([]);
  });

  it('the DM rolls a player’s attack from their card, for their seat', async () => {
    stubServer({
      'GET /api/sessions/12': () =>
        json(
          200,
          resume('dm', {
            participants: [withSheet(participant(1, 9, 'Bob', 3, 'Mira'), MIRA.derived), participant(2, 10, 'Cid', 4, 'Nox')],
          }),
        ),
      'GET /api/sessions/12/rolls': () => json(200, { requests: [], results: [], pending_actions: [], windows: [] }),
      'POST /api/sessions/12/quick-roll': () => json(201, result({ acting_seat_id: 8, subject_seat_id: 9 })),
    });
    renderApp();
    await screen.findByTestId('session-status');
    const details = card('Mira').querySelector('details.card-attacks') as HTMLDetailsElement;
    await act(async () => {
      details.open = true;
      fireEvent(details, new Event('toggle'));
    });
    const row = await within(card('Mira')).findByTestId('card-attack');
    await click(within(row).getByRole('button', { name: 'Roll Longsword to hit' }));
    expect(callsTo('POST', '/api/sessions/12/quick-roll')[0]!.body).toMatchObject({ attack: 'Longsword', damage: false, subject_seat_id: 9 });
    await vi.waitFor(() => expect(within(card('Mira')).getByTestId('card-attack-result').textContent).toContain('= 17'));
    await click(within(row).getByRole('button', { name: 'Roll Longsword damage' }));
    expect(callsTo('POST', '/api/sessions/12/quick-roll')[1]!.body).toMatchObject({ attack: 'Longsword', damage: true, subject_seat_id: 9 });
  });
});
