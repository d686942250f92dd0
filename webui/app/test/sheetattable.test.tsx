// The sheet at the table: saving-throw check requests, the sheet totals and
// the saves and skills to roll on the player cards, the dice panel's attack
// picker and the roll history's names for attack rolls.
// fetch is faked at the boundary; the long-poll is answered by hand.
import { act, fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { en } from '../src/i18n/en';
import { zhTW } from '../src/i18n/zh-TW';
import type { CharacterDerived, RollResultView, SessionResume } from '../src/table/api';
import { callsTo, checkRequest, ev, json, participant, renderApp, resetEachTest, resumeAtStart, rollResult, stubServer, T0, withSheet } from './fixtures';

resetEachTest();

const SKILL_MODS: Record<string, number> = {
  acrobatics: 2, animal_handling: 1, arcana: 0, athletics: 0, deception: -1, history: 0, insight: 1, intimidation: -1,
  investigation: 0, medicine: 1, nature: 0, perception: 3, performance: -1, persuasion: -1, religion: 0,
  sleight_of_hand: 2, stealth: 6, survival: 1,
};

// Mira's sheet as the server derives it: AC 12, initiative +2, passive
// Perception 13, speed 30; a Dex save of +4; a longsword and a dagger.
const MIRA: CharacterDerived = {
  modifiers: { str: 0, dex: 2, con: 1, int: 0, wis: 1, cha: -1 },
  saves: { str: 0, dex: 4, con: 1, int: 2, wis: 1, cha: -1 },
  skills: SKILL_MODS,
  passive_perception: 13,
  initiative: 2,
  initiative_advantage: false,
  ac: 12,
  stealth_disadvantage: false,
  speed: 30,
  hit_dice: '3d8',
  attacks: [
    { name: 'Longsword', to_hit: 4, damage: '1d8+2', damage_modifier: 2, damage_type: 'slashing' },
    { name: 'Dagger', to_hit: 4, damage: '1d4+2', damage_modifier: 2, damage_type: 'piercing' },
  ],
};

// Nox has no speed on the sheet and no attacks.
const NOX: CharacterDerived = { ...MIRA, ac: 15, initiative: -1, passive_perception: 9, speed: 0, attacks: [] };

const resume = (role: 'dm' | 'player', over: Partial<SessionResume> = {}): SessionResume =>
  resumeAtStart(role, {
    participants: [withSheet(participant(1, 9, 'Bob', 3, 'Mira'), MIRA), withSheet(participant(2, 10, 'Cid', 4, 'Nox'), NOX)],
    ...over,
  });

const result = (over: Partial<RollResultView> = {}) => rollResult(70, 13, 4, { formula: '1d20 + 4', ...over });

const board = (over: Record<string, unknown> = {}) => ({ requests: [], results: [], pending_actions: [], windows: [], ...over });
const history = (results: RollResultView[]) => ({ results, before: 0, has_more: false });

const click = (el: HTMLElement) => act(async () => fireEvent.click(el));
const tab = (name: string) => click(screen.getByRole('tab', { name }));
const card = (name: string) => screen.getAllByTestId('participant').find((c) => within(c).getByRole('heading').textContent?.includes(name))!;
const openDetails = (el: HTMLElement) =>
  act(async () => {
    (el as HTMLDetailsElement).open = true;
    fireEvent(el, new Event('toggle'));
  });

describe('saving-throw check requests', () => {
  it('the DM asks for a saving throw; a player’s /check dex save pre-fills it', async () => {
    const line = ev(2, 'message.posted', {
      acting_seat_id: 10,
      subject_seat_id: 10,
      subject_character_id: 4,
      execution_mode: 'self',
      payload: { version: 1, message_id: 2, kind: 'action', intent: 'check', check: 'dex_save', text: 'I dive', recipient_seat_ids: [] },
    });
    stubServer({
      'GET /api/sessions/12': () => json(200, resume('dm', { recent_events: [line], cursor: 2 })),
      'GET /api/sessions/12/rolls': () => json(200, board()),
      'GET /api/sessions/12/roll-results': () => json(200, history([])),
      'POST /api/sessions/12/checks': () => json(201, { group_id: 4, requests: [] }),
    });
    renderApp();
    await screen.findByTestId('session-status');
    await click(screen.getByRole('button', { name: en['check.requestThis'] }));
    let dialog = screen.getByRole('dialog');
    const pick = within(dialog).getByLabelText(en['check.dialog.check']) as HTMLSelectElement;
    expect(pick.value).toBe('save:dex');
    expect(pick.selectedOptions[0]!.textContent).toBe('Dexterity save');
    fireEvent.change(within(dialog).getByLabelText(en['check.dialog.dc']), { target: { value: '12' } });
    await click(within(dialog).getByRole('button', { name: en['check.dialog.send'] }));
    expect(callsTo('POST', '/api/sessions/12/checks')[0]!.body).toEqual({
      seat_ids: [10],
      save: 'dex',
      dc: 12,
      mode: 'normal',
      flat_adjustment: 0,
      reveal_outcome: false,
      private: false,
    });
    await vi.waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());

    // from the dice panel: everyone, a Wisdom save
    await tab(en['table.tab.dice']);
    await click(screen.getByRole('button', { name: en['check.request'] }));
    dialog = screen.getByRole('dialog');
    fireEvent.change(within(dialog).getByLabelText(en['check.dialog.check']), { target: { value: 'save:wis' } });
    await click(within(dialog).getByRole('button', { name: en['check.dialog.send'] }));
    expect(callsTo('POST', '/api/sessions/12/checks')[1]!.body).toMatchObject({ save: 'wis' });
    expect(callsTo('POST', '/api/sessions/12/checks')[1]!.body).not.toHaveProperty('ability');
  });

  it('a save request is named as a saving throw on the player’s card, in both languages', async () => {
    const save = checkRequest({ label: 'dex_save', request_type: 'save', ability: 'dex', skill: '' });
    stubServer({
      'GET /api/sessions/12': () => json(200, resume('player')),
      'GET /api/sessions/12/rolls': () => json(200, board({ requests: [save] })),
      'GET /api/sessions/12/roll-results': () => json(200, history([])),
    });
    renderApp();
    const bar = await screen.findByTestId('prompt-bar');
    expect(within(bar).getByTestId('my-request').textContent).toContain('The DM asks for a check: Dexterity save');
    fireEvent.change(screen.getByLabelText('Language'), { target: { value: 'zh-TW' } });
    expect(within(screen.getByTestId('prompt-bar')).getByTestId('my-request').textContent).toContain(
      zhTW['check.save'].replace('{ability}', zhTW['ability.dex']),
    );
  });
});

describe('the sheet on the player cards', () => {
  it('every card shows AC, initiative, passive Perception and speed; the owner rolls their saves and skills', async () => {
    stubServer({
      'GET /api/sessions/12': () => json(200, resume('player')),
      'GET /api/sessions/12/rolls': () => json(200, board()),
      'GET /api/sessions/12/roll-results': () => json(200, history([])),
      'POST /api/sessions/12/quick-roll': (body) =>
        json(201, (body as { check: string }).check === 'dex_save' ? result() : result({ id: 71, formula: '1d20 + 6', total: 19 })),
    });
    renderApp();
    await screen.findByTestId('session-status');
    const totals = within(card('Mira')).getByTestId('card-totals');
    const stat = (root: HTMLElement, key: string) => root.querySelector(`[data-stat="${key}"]`)?.textContent;
    expect(stat(totals, 'ac')).toBe('AC12');
    expect(stat(totals, 'initiative')).toBe('Init+2');
    expect(stat(totals, 'passive')).toBe('Passive Perception13');
    expect(stat(totals, 'speed')).toBe('Speed30 ft');
    // another player's numbers show too (a character's are never hidden); no speed when the sheet gives none
    const nox = within(card('Nox')).getByTestId('card-totals');
    expect(stat(nox, 'ac')).toBe('AC15');
    expect(stat(nox, 'initiative')).toBe('Init−1');
    expect(stat(nox, 'speed')).toBeUndefined();
    // only the own card rolls
    expect(within(card('Nox')).queryByTestId('card-rolls')).toBeNull();

    const rolls = within(card('Mira')).getByTestId('card-rolls');
    await openDetails(rolls);
    expect(within(rolls).getAllByRole('button')).toHaveLength(6 + 18);
    await click(within(rolls).getByRole('button', { name: 'Roll Dexterity save (+4)' }));
    const sent = callsTo('POST', '/api/sessions/12/quick-roll');
    expect(sent[0]!.body).toEqual({ formula: '', check: 'dex_save', idempotency_key: expect.any(String) });
    await vi.waitFor(() => expect(within(rolls).getByTestId('card-roll-result').textContent).toBe('Dexterity save: 1d20 + 4 = 17'));
    await click(within(rolls).getByRole('button', { name: 'Roll Stealth (+6)' }));
    expect(callsTo('POST', '/api/sessions/12/quick-roll')[1]!.body).toMatchObject({ formula: '', check: 'stealth' });
    await vi.waitFor(() => expect(within(rolls).getByTestId('card-roll-result').textContent).toBe('Stealth: 1d20 + 6 = 19'));
  });

  it('the DM rolls a save or skill on any participant’s card for that seat; Chinese labels', async () => {
    stubServer({
      'GET /api/sessions/12': () => json(200, resume('dm')),
      'GET /api/sessions/12/rolls': () => json(200, board()),
      'GET /api/sessions/12/roll-results': () => json(200, history([])),
      'POST /api/sessions/12/quick-roll': () =>
        json(201, result({ acting_seat_id: 8, subject_seat_id: 10, subject_character_id: 4, execution_mode: 'dm_proxy', formula: '1d20 + 1', total: 14 })),
    });
    renderApp();
    await screen.findByTestId('session-status');
    const rolls = within(card('Nox')).getByTestId('card-rolls');
    await openDetails(rolls);
    await click(within(rolls).getByRole('button', { name: 'Roll Wisdom save (+1)' }));
    expect(callsTo('POST', '/api/sessions/12/quick-roll')[0]!.body).toEqual({
      formula: '',
      check: 'wis_save',
      subject_seat_id: 10,
      idempotency_key: expect.any(String),
    });
    await vi.waitFor(() => expect(within(rolls).getByTestId('card-roll-result').textContent).toContain('= 14'));
    expect(within(card('Mira')).getByTestId('card-rolls')).toBeTruthy();

    fireEvent.change(screen.getByLabelText('Language'), { target: { value: 'zh-TW' } });
    const zhRolls = within(card('Nox')).getByTestId('card-rolls');
    expect(zhRolls.querySelector('summary')!.textContent).toBe(zhTW['card.rolls']);
    expect(within(card('Nox')).getByTestId('card-totals').querySelector('[data-stat="ac"]')!.textContent).toBe(`${zhTW['card.stat.ac']}15`);
    expect(within(zhRolls).getByRole('button', { name: `擲${zhTW['skill.perception']}（+3）` })).toBeTruthy();
  });

  it('nobody rolls from a card once the session is over', async () => {
    stubServer({
      'GET /api/sessions/12': () => {
        const r = resume('player');
        return json(200, { ...r, session: { ...r.session, status: 'ended', ended_at: T0 } });
      },
      'GET /api/sessions/12/rolls': () => json(200, board()),
      'GET /api/sessions/12/roll-results': () => json(200, history([])),
    });
    renderApp();
    await screen.findByTestId('session-status');
    expect(within(card('Mira')).getByTestId('card-totals')).toBeTruthy();
    expect(within(card('Mira')).queryByTestId('card-rolls')).toBeNull();
  });
});

describe('the dice panel’s attacks', () => {
  it('a player picks an attack of their sheet and rolls its to-hit or damage', async () => {
    stubServer({
      'GET /api/sessions/12': () => json(200, resume('player')),
      'GET /api/sessions/12/rolls': () => json(200, board()),
      'GET /api/sessions/12/roll-results': () => json(200, history([])),
      'POST /api/sessions/12/quick-roll': (body) =>
        json(
          201,
          (body as { damage?: boolean }).damage
            ? result({ id: 72, formula: '1d4 + 2', total: 5, attack_name: 'Dagger', attack_roll: 'damage', damage_type: 'piercing' } as Partial<RollResultView>)
            : result({ id: 71, attack_name: 'Longsword', attack_roll: 'to_hit' } as Partial<RollResultView>),
        ),
    });
    renderApp();
    await screen.findByTestId('session-status');
    await tab(en['table.tab.dice']);
    const row = screen.getByTestId('dice-attack');
    const pick = within(row).getByLabelText(en['dice.attackPick']) as HTMLSelectElement;
    expect([...pick.options].map((o) => o.textContent)).toEqual(['Longsword (+4, 1d8+2 slashing)', 'Dagger (+4, 1d4+2 piercing)']);
    await click(within(row).getByRole('button', { name: en['dice.rollToHit'] }));
    expect(callsTo('POST', '/api/sessions/12/quick-roll')[0]!.body).toEqual({ formula: '', attack: 'Longsword', idempotency_key: expect.any(String) });
    fireEvent.change(pick, { target: { value: 'Dagger' } });
    await click(within(row).getByRole('button', { name: en['dice.rollDamage'] }));
    expect(callsTo('POST', '/api/sessions/12/quick-roll')[1]!.body).toMatchObject({ formula: '', attack: 'Dagger', damage: true });
    // the history names them as the feed does
    const list = screen.getByTestId('roll-history');
    await vi.waitFor(() => expect(within(list).getAllByTestId('roll-history-entry')).toHaveLength(2));
    const [dmg, hit] = within(list).getAllByTestId('roll-history-entry');
    expect(dmg!.textContent).toContain('Dagger: damage (piercing)');
    expect(hit!.textContent).toContain('Longsword: to hit');
    expect(list.textContent).not.toContain(en['dice.quick']);
  });

  it('the DM gets the attacks of the seat they act as, and none of their own', async () => {
    stubServer({
      'GET /api/sessions/12': () => json(200, resume('dm')),
      'GET /api/sessions/12/rolls': () => json(200, board()),
      'GET /api/sessions/12/roll-results': () => json(200, history([])),
      'POST /api/sessions/12/quick-roll': () => json(201, result({ execution_mode: 'dm_proxy', acting_seat_id: 8 })),
    });
    renderApp();
    await screen.findByTestId('session-status');
    await tab(en['table.tab.dice']);
    expect(screen.queryByTestId('dice-attack')).toBeNull();
    await click(within(card('Mira')).getByRole('button', { name: 'Act as Mira' }));
    const row = await screen.findByTestId('dice-attack');
    await click(within(row).getByRole('button', { name: en['dice.rollToHit'] }));
    expect(callsTo('POST', '/api/sessions/12/quick-roll')[0]!.body).toMatchObject({ formula: '', attack: 'Longsword', subject_seat_id: 9 });
  });
});

describe('the feed', () => {
  it('names a quick roll of a sheet check as the check', async () => {
    const save = ev(2, 'roll.quick', {
      acting_seat_id: 9,
      subject_seat_id: 9,
      payload: { version: 1, result: result({ check: 'dex_save' } as Partial<RollResultView>), check: 'dex_save' },
    });
    stubServer({
      'GET /api/sessions/12': () => json(200, resume('player', { recent_events: [ev(1, 'session.started', { acting_seat_id: 8 }), save], cursor: 2 })),
      'GET /api/sessions/12/rolls': () => json(200, board()),
      'GET /api/sessions/12/roll-results': () => json(200, history([])),
    });
    renderApp();
    await screen.findByTestId('session-status');
    const rollCard = await within(screen.getByTestId('chat')).findByTestId('roll-card');
    expect(rollCard.querySelector('.roll-what')!.textContent).toBe('Dexterity save');
  });
});

describe('the roll history', () => {
  it('names attack rolls and sheet checks the server stored, not "Quick roll"', async () => {
    stubServer({
      'GET /api/sessions/12': () => json(200, resume('player')),
      'GET /api/sessions/12/rolls': () => json(200, board()),
      'GET /api/sessions/12/roll-results': () =>
        json(
          200,
          history([
            result({ id: 93, formula: '2d6', total: 7 }),
            result({ id: 92, check: 'dex_save' } as Partial<RollResultView>),
            result({ id: 91, formula: '1d8 + 2', attack_name: 'Longsword', attack_roll: 'damage', damage_type: 'slashing' } as Partial<RollResultView>),
            result({ id: 90, attack_name: 'Longsword', attack_roll: 'to_hit' } as Partial<RollResultView>),
          ]),
        ),
    });
    renderApp();
    await screen.findByTestId('session-status');
    await tab(en['table.tab.dice']);
    const list = screen.getByTestId('roll-history');
    await vi.waitFor(() => expect(within(list).getAllByTestId('roll-history-entry')).toHaveLength(4));
    const what = within(list)
      .getAllByTestId('roll-history-entry')
      .map((e) => e.querySelector('.roll-what')!.textContent);
    expect(what).toEqual([en['dice.quick'], 'Dexterity save', 'Longsword: damage (slashing)', 'Longsword: to hit']);
    fireEvent.change(screen.getByLabelText('Language'), { target: { value: 'zh-TW' } });
    expect(within(screen.getByTestId('roll-history')).getAllByTestId('roll-history-entry')[3]!.textContent).toContain('Longsword：命中');
  });
});
