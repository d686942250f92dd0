// The fight at the table: the initiative tracker (order, the current actor,
// statuses and timed conditions, an NPC's numbers only as the server sends
// them), the DM's and the player's controls, the player's turn notice, the
// feed's encounter cards (the DM's secrets folded into them), and the session
// page reading the fight again when an encounter event arrives.
import { act, fireEvent, render, screen, within } from '@testing-library/react';
import type { ReactNode } from 'react';
import { describe, expect, it, vi } from 'vitest';
import errorsEn from '../src/i18n/errors.en.json';
import { en } from '../src/i18n/en';
import { format } from '../src/i18n/messages';
import { I18nProvider } from '../src/i18n/I18nProvider';
import type { DiceAudit, EventView } from '../src/table/api';
import { EncounterPanel, EncounterPrompt, facesOf, type EncounterState } from '../src/table/Encounter';
import type { CombatantView, EncounterView } from '../src/table/encounter';
import { TableFeed } from '../src/table/Feed';
import { tableNames } from '../src/table/names';
import { usePageTitle } from '../src/usePageTitle';
import { apiError, callsTo, ev, json, nextWait, renderApp, resetEachTest, resume, stubServer } from './fixtures';

resetEachTest();

const wrap = (node: ReactNode) => <I18nProvider>{node}</I18nProvider>;

const combatant = (over: Partial<CombatantView>): CombatantView => ({
  id: 'seat:9',
  name: 'Mira',
  seat_id: 9,
  initiative: null,
  status: 'active',
  conditions: [],
  hidden: false,
  current: false,
  ...over,
});

// fight: Mira (seat 9, Bob's), Nox (seat 10) and a goblin, as a player sees
// it (the goblin hidden: no AC or HP), Nox's turn in round 2.
function fight(over: Partial<EncounterView> = {}): EncounterView {
  return {
    id: 3,
    name: 'Goblin ambush',
    phase: 'fighting',
    round: 2,
    current_id: 'seat:10',
    combatants: [
      combatant({ initiative: 17, hp: { max: 20, current: 14, temp: 0 }, ac: 12, conditions: [{ name: 'poisoned', rounds: 2, ends: 'end_of_turn', timer_id: 'seat:9' }] }),
      combatant({ id: 'seat:10', name: 'Nox', seat_id: 10, initiative: 12, current: true, hp: { max: 20, current: 0, temp: 0 }, ac: 11, status: 'dying', death_saves: { successes: 1, failures: 2 } }),
      combatant({ id: 'npc:1', name: 'Goblin', seat_id: null, initiative: 5, hidden: true }),
    ],
    ...over,
  };
}
// dmFight: the same as the DM sees it: the goblin's AC and HP too.
const dmFight = (over: Partial<EncounterView> = {}) => {
  const v = fight(over);
  v.combatants = v.combatants.map((c) => (c.id === 'npc:1' ? { ...c, ac: 13, hp: { max: 12, current: 8, temp: 0 } } : c));
  return v;
};

const state = (view: EncounterView | null, over: Partial<EncounterState> = {}): EncounterState => ({
  view,
  loaded: true,
  error: null,
  reload: vi.fn(),
  apply: vi.fn(),
  ...over,
});
const seats = [
  { seatId: 9, name: 'Mira', fights: true },
  { seatId: 10, name: 'Nox', fights: true },
];
const rows = () => screen.getAllByTestId('combatant');
const row = (name: string) => rows().find((r) => within(r).getByTestId('combatant-name').textContent?.startsWith(name))!;

describe('initiative tracker', () => {
  it('lists the order with initiatives, highlights whose turn it is, shows statuses and timed conditions', () => {
    render(wrap(<EncounterPanel sessionId={12} state={state(fight())} isDM={false} mySeatId={9} canAct seats={seats} />));
    expect(screen.getByRole('heading', { name: 'Goblin ambush' })).toBeTruthy();
    expect(screen.getByTestId('encounter-round').textContent).toBe(format(en['combat.round'], { n: 2 }));
    expect(rows().map((r) => within(r).getByTestId('combatant-initiative').textContent)).toEqual(['17', '12', '5']);
    expect(rows().map((r) => r.getAttribute('data-id'))).toEqual(['seat:9', 'seat:10', 'npc:1']);
    // one current actor, marked for assistive technology too
    const current = rows().filter((r) => r.getAttribute('data-current') === 'true');
    expect(current.map((r) => r.getAttribute('data-id'))).toEqual(['seat:10']);
    expect(row('Nox').getAttribute('aria-current')).toBe('true');
    expect(row('Mira').getAttribute('aria-current')).toBeNull();
    expect(within(row('Nox')).getByTestId('combatant-status').textContent).toBe(en['combat.status.dying']);
    expect(within(row('Nox')).getByTestId('combatant-saves').textContent).toBe(format(en['combat.deathSaves'], { ok: 1, fail: 2 }));
    expect(within(row('Mira')).getByTestId('combatant-condition').textContent).toBe('Poisoned (2)');
    expect(within(row('Mira')).getByTestId('combatant-hp').textContent).toBe('HP 14/20');
    expect(within(row('Mira')).getByText(en['common.you'])).toBeTruthy();
  });

  it('shows a player no AC or HP of a hidden NPC (none sent), and no "hidden" tag; the DM both', () => {
    const view = render(wrap(<EncounterPanel sessionId={12} state={state(fight())} isDM={false} mySeatId={9} canAct seats={seats} />));
    expect(within(row('Goblin')).queryByTestId('combatant-ac')).toBeNull();
    expect(within(row('Goblin')).queryByTestId('combatant-hp')).toBeNull();
    expect(within(row('Goblin')).queryByText(en['combat.hidden'])).toBeNull();
    expect(screen.getByTestId('encounter').textContent).not.toMatch(/AC 13|\/12/);
    view.rerender(wrap(<EncounterPanel sessionId={12} state={state(dmFight())} isDM mySeatId={8} canAct seats={seats} />));
    expect(within(row('Goblin')).getByTestId('combatant-ac').textContent).toBe('AC 13');
    expect(within(row('Goblin')).getByTestId('combatant-hp').textContent).toBe('HP 8/12');
    expect(within(row('Goblin')).getByText(en['combat.hidden'])).toBeTruthy();
  });

  it('a revealed NPC shows its numbers to players as sent', () => {
    const v = fight();
    v.combatants[2] = { ...v.combatants[2]!, hidden: false, ac: 13, hp: { max: 12, current: 8, temp: 0 } };
    render(wrap(<EncounterPanel sessionId={12} state={state(v)} isDM={false} mySeatId={9} canAct seats={seats} />));
    expect(within(row('Goblin')).getByTestId('combatant-ac').textContent).toBe('AC 13');
  });
});

describe('controls', () => {
  it('the DM gets Begin fight while rolling initiative, an initiative entry for each unrolled combatant, then Next turn, Attack, Change and End', async () => {
    stubServer({ 'POST /api/sessions/12/encounter/advance': () => json(200, { encounter: dmFight(), event: ev(9, 'encounter.turn') }) });
    const rolling = dmFight({ phase: 'initiative', round: 0, current_id: '' });
    rolling.combatants = rolling.combatants.map((c) => ({ ...c, current: false, initiative: c.id === 'npc:1' ? 5 : null }));
    const st = state(rolling);
    const view = render(wrap(<EncounterPanel sessionId={12} state={st} isDM mySeatId={8} canAct seats={seats} />));
    expect(screen.getByTestId('encounter-round').textContent).toBe(en['combat.phase.initiative']);
    expect(screen.getAllByTestId('initiative-entry').map((x) => x.getAttribute('data-id'))).toEqual(['seat:9', 'seat:10']);
    expect(screen.queryByRole('button', { name: en['combat.attack'] })).toBeNull();
    await act(async () => fireEvent.click(screen.getByRole('button', { name: en['combat.begin'] })));
    expect(callsTo('POST', '/api/sessions/12/encounter/advance')).toHaveLength(1);
    expect(st.apply).toHaveBeenCalledTimes(1);

    view.rerender(wrap(<EncounterPanel sessionId={12} state={state(dmFight())} isDM mySeatId={8} canAct seats={seats} />));
    for (const key of ['combat.next', 'combat.attack', 'combat.change', 'combat.end'] as const) {
      expect(screen.getByRole('button', { name: en[key] }), key).toBeTruthy();
    }
    expect(screen.queryAllByTestId('initiative-entry')).toEqual([]);
  });

  it('the DM attacks with any combatant: the form sends attacker, target, bonus, damage, mode and the dice entered', async () => {
    stubServer({ 'POST /api/sessions/12/encounter/attack': () => json(200, { encounter: dmFight(), event: ev(9, 'encounter.attack') }) });
    render(wrap(<EncounterPanel sessionId={12} state={state(dmFight())} isDM mySeatId={8} canAct seats={seats} />));
    fireEvent.click(screen.getByRole('button', { name: en['combat.attack'] }));
    const form = within(screen.getByTestId('attack-form'));
    fireEvent.change(form.getByLabelText(en['combat.attack.attacker']), { target: { value: 'npc:1' } });
    fireEvent.change(form.getByLabelText(en['combat.attack.target']), { target: { value: 'seat:9' } });
    fireEvent.change(form.getByLabelText(en['combat.attack.weapon']), { target: { value: 'Scimitar' } });
    fireEvent.change(form.getByLabelText(en['combat.attack.bonus']), { target: { value: '4' } });
    fireEvent.change(form.getByLabelText(en['combat.attack.damage']), { target: { value: '1d6+2' } });
    fireEvent.change(form.getByLabelText(en['combat.attack.type']), { target: { value: 'slashing' } });
    fireEvent.change(form.getByLabelText(en['combat.attack.mode']), { target: { value: 'advantage' } });
    fireEvent.change(form.getByLabelText(en['combat.attack.d20']), { target: { value: '3 17' } });
    await act(async () => fireEvent.click(form.getByRole('button', { name: en['combat.attack.roll'] })));
    expect(callsTo('POST', '/api/sessions/12/encounter/attack')[0]!.body).toEqual({
      attacker_id: 'npc:1',
      target_id: 'seat:9',
      weapon: 'Scimitar',
      bonus: 4,
      damage: '1d6+2',
      damage_type: 'slashing',
      advantage: true,
      disadvantage: false,
      faces: [3, 17],
    });
  });

  it('the DM adds a timed condition through Change combatant', async () => {
    stubServer({ 'POST /api/sessions/12/encounter/change': () => json(200, { encounter: dmFight(), event: ev(9, 'encounter.changed') }) });
    render(wrap(<EncounterPanel sessionId={12} state={state(dmFight())} isDM mySeatId={8} canAct seats={seats} />));
    fireEvent.click(screen.getByRole('button', { name: en['combat.change'] }));
    const form = within(screen.getByTestId('change-form'));
    fireEvent.change(form.getByLabelText(en['combat.change.who']), { target: { value: 'npc:1' } });
    // an NPC can be revealed; a seat cannot
    expect(form.getByRole('option', { name: en['combat.op.reveal'] })).toBeTruthy();
    fireEvent.change(form.getByLabelText(en['combat.change.op']), { target: { value: 'add_condition' } });
    fireEvent.change(form.getByLabelText(en['combat.change.condition']), { target: { value: 'stunned' } });
    fireEvent.change(form.getByLabelText(en['combat.change.rounds']), { target: { value: '1' } });
    await act(async () => fireEvent.click(form.getByRole('button', { name: en['combat.change.apply'] })));
    expect(callsTo('POST', '/api/sessions/12/encounter/change')[0]!.body).toEqual({
      combatant_id: 'npc:1',
      op: 'add_condition',
      condition: 'stunned',
      rounds: 1,
      ends: 'end_of_turn',
    });
    fireEvent.change(form.getByLabelText(en['combat.change.who']), { target: { value: 'seat:9' } });
    expect(form.queryByRole('option', { name: en['combat.op.reveal'] })).toBeNull();
  });

  it('the DM starts a fight with the chosen seats and a hidden NPC', async () => {
    stubServer({ 'POST /api/sessions/12/encounter': () => json(201, { encounter: dmFight(), event: ev(9, 'encounter.started') }) });
    const st = state(null);
    render(wrap(<EncounterPanel sessionId={12} state={st} isDM mySeatId={8} canAct seats={seats} />));
    fireEvent.click(screen.getByRole('button', { name: en['combat.start.open'] }));
    const form = within(screen.getByTestId('encounter-start'));
    fireEvent.change(form.getByLabelText(en['combat.start.name']), { target: { value: 'Ambush' } });
    fireEvent.click(form.getByLabelText('Nox'));
    fireEvent.click(form.getByRole('button', { name: en['combat.npc.add'] }));
    fireEvent.change(form.getByLabelText(en['combat.npc.name']), { target: { value: 'Goblin' } });
    fireEvent.change(form.getByLabelText(en['combat.npc.ac']), { target: { value: '13' } });
    fireEvent.change(form.getByLabelText(en['combat.npc.hp']), { target: { value: '12' } });
    fireEvent.change(form.getByLabelText(en['combat.npc.bonus']), { target: { value: '2' } });
    await act(async () => fireEvent.click(form.getByRole('button', { name: en['combat.start'] })));
    // hidden by default; the server rolls its initiative
    expect(callsTo('POST', '/api/sessions/12/encounter')[0]!.body).toEqual({
      name: 'Ambush',
      seat_ids: [9],
      npcs: [{ name: 'Goblin', ac: 13, hp: 12, initiative_bonus: 2 }],
    });
    expect(st.apply).toHaveBeenCalledTimes(1);
  });

  it('the DM adds a new hidden NPC, or a seat not yet fighting, to a running fight', async () => {
    stubServer({ 'POST /api/sessions/12/encounter/combatants': () => json(200, { encounter: dmFight(), event: ev(9, 'encounter.changed') }) });
    const v = dmFight();
    v.combatants = v.combatants.filter((c) => c.id !== 'seat:10');
    render(wrap(<EncounterPanel sessionId={12} state={state(v)} isDM mySeatId={8} canAct seats={seats} />));
    fireEvent.click(screen.getByRole('button', { name: en['combat.add'] }));
    const form = within(screen.getByTestId('add-form'));
    // only Nox is not fighting yet
    const who = form.getByLabelText(en['combat.add.seat']) as HTMLSelectElement;
    expect(Array.from(who.options).map((o) => o.textContent)).toEqual([en['combat.add.npc'], 'Nox']);
    fireEvent.change(form.getByLabelText(en['combat.npc.name']), { target: { value: 'Wolf' } });
    fireEvent.change(form.getByLabelText(en['combat.npc.ac']), { target: { value: '13' } });
    fireEvent.change(form.getByLabelText(en['combat.npc.hp']), { target: { value: '11' } });
    await act(async () => fireEvent.click(form.getByRole('button', { name: en['combat.add.submit'] })));
    fireEvent.change(who, { target: { value: '10' } });
    expect(form.queryByLabelText(en['combat.npc.name'])).toBeNull();
    await act(async () => fireEvent.click(form.getByRole('button', { name: en['combat.add.submit'] })));
    expect(callsTo('POST', '/api/sessions/12/encounter/combatants').map((c) => c.body)).toEqual([
      { npc: { name: 'Wolf', ac: 13, hp: 11 } },
      { seat_id: 10 },
    ]);
  });

  it('a player gets no Attack while another combatant has the turn', () => {
    render(wrap(<EncounterPanel sessionId={12} state={state(fight())} isDM={false} mySeatId={9} canAct seats={seats} />));
    expect(screen.queryByRole('button', { name: en['combat.attack'] })).toBeNull();
  });

  it('a player gets none of the DM controls: only Attack with their own combatant, on their turn', () => {
    render(wrap(<EncounterPanel sessionId={12} state={state(fight({ current_id: 'seat:9' }))} isDM={false} mySeatId={9} canAct seats={seats} />));
    for (const key of ['combat.next', 'combat.begin', 'combat.change', 'combat.end', 'combat.start.open'] as const) {
      expect(screen.queryByRole('button', { name: en[key] }), key).toBeNull();
    }
    fireEvent.click(screen.getByRole('button', { name: en['combat.attack'] }));
    const form = within(screen.getByTestId('attack-form'));
    expect(form.queryByLabelText(en['combat.attack.attacker'])).toBeNull();
    // not themselves as the target
    const targets = Array.from((form.getByLabelText(en['combat.attack.target']) as HTMLSelectElement).options).map((o) => o.value);
    expect(targets).toEqual(['', 'seat:10', 'npc:1']);
  });

  it('on their turn a player attacks from their own row of the order, and rows show an HP bar where HP is sent', () => {
    render(wrap(<EncounterPanel sessionId={12} state={state(fight({ current_id: 'seat:9' }))} isDM={false} mySeatId={9} canAct seats={seats} />));
    const mine = screen.getAllByTestId('combatant').find((r) => r.getAttribute('data-id') === 'seat:9')!;
    expect(within(mine).getByRole('button', { name: en['combat.attack'] })).toBeTruthy();
    // the hidden Goblin sends no HP: no bar; a seat's HP has one
    expect(within(row('Goblin')).queryByTestId('combatant-hp-bar')).toBeNull();
    const withHp = screen.getAllByTestId('combatant').filter((r) => within(r).queryByTestId('combatant-hp'));
    expect(withHp.length).toBeGreaterThan(0);
    for (const r of withHp) expect(within(r).getByTestId('combatant-hp-bar').getAttribute('role')).toBe('meter');
  });

  it('a player’s attack form offers the attacks of their sheet as the resume derived them', () => {
    const dagger = { name: 'Dagger', to_hit: 4, damage: '1d4+2', damage_modifier: 2, damage_type: 'piercing' };
    render(wrap(<EncounterPanel sessionId={12} state={state(fight({ current_id: 'seat:9' }))} isDM={false} mySeatId={9} canAct seats={seats} myAttacks={[dagger]} />));
    fireEvent.click(screen.getByRole('button', { name: en['combat.attack'] }));
    const form = within(screen.getByTestId('attack-form'));
    fireEvent.change(form.getByLabelText(en['combat.attack.fromSheet']), { target: { value: 'Dagger' } });
    expect(form.getByTestId('sheet-attack').textContent).toBe(format(en['combat.attack.sheet'], { toHit: '+4', damage: '1d4+2', type: 'piercing' }));
  });

  it('a player sees no panel when no fight is running', () => {
    render(wrap(<EncounterPanel sessionId={12} state={state(null)} isDM={false} mySeatId={9} canAct seats={seats} />));
    expect(screen.queryByTestId('encounter')).toBeNull();
  });

  it('reads physical dice typed as "4", "3 5" or "3, 5"', () => {
    expect(facesOf('4')).toEqual([4]);
    expect(facesOf('3 5')).toEqual([3, 5]);
    expect(facesOf('3, 5')).toEqual([3, 5]);
    expect(facesOf('3 x')).toBeNull();
    expect(facesOf('0')).toBeNull();
  });
});

describe('the player’s prompt', () => {
  // the session page's own title stands behind the prompt's
  function SessionTitle() {
    usePageTitle('title.session', 'Lost Mine');
    return null;
  }
  const prompt = (view: EncounterView, st = state(view)) =>
    wrap(
      <>
        <SessionTitle />
        <EncounterPrompt sessionId={12} state={st} mySeatId={9} isDM={false} canAct campaign="Lost Mine" />
      </>,
    );

  it('tells the DM when an NPC acts, with Next turn; nothing on a player’s turn', async () => {
    stubServer({ 'POST /api/sessions/12/encounter/advance': () => json(200, { encounter: dmFight(), event: ev(40, 'encounter.turn', {}) }) });
    const goblinTurn = dmFight({ current_id: 'npc:1' });
    goblinTurn.combatants = goblinTurn.combatants.map((c) => ({ ...c, current: c.id === 'npc:1' }));
    const dm = (v: EncounterView) => wrap(<EncounterPrompt sessionId={12} state={state(v)} mySeatId={null} isDM canAct campaign="Lost Mine" />);
    const view = render(dm(dmFight()));
    expect(screen.queryByTestId('npc-turn')).toBeNull();
    view.rerender(dm(goblinTurn));
    expect(screen.getByTestId('npc-turn').textContent).toContain(format(en['combat.prompt.npcTurn'], { name: 'Goblin', n: 2 }));
    await act(async () => fireEvent.click(within(screen.getByTestId('npc-turn')).getByRole('button', { name: en['combat.next'] })));
    expect(callsTo('POST', '/api/sessions/12/encounter/advance')).toHaveLength(1);
  });

  it('says "Your turn" (announced, and in the title) on the player’s own turn, with End my turn; errors translated', async () => {
    stubServer({ 'POST /api/sessions/12/encounter/advance': () => apiError(409, 'not_your_turn') });
    const mine = fight({ current_id: 'seat:9' });
    mine.combatants = mine.combatants.map((c) => ({ ...c, current: c.id === 'seat:9' }));
    const view = render(prompt(fight()));
    expect(screen.queryByTestId('turn-notice')).toBeNull();
    expect(screen.getByTestId('turn-announce').textContent).toBe('');
    view.rerender(prompt(mine));
    const text = format(en['combat.prompt.yourTurn'], { n: 2 });
    expect(screen.getByTestId('turn-notice').textContent).toBe(text);
    expect(screen.getByTestId('turn-announce').textContent).toBe(text);
    expect(screen.getByTestId('turn-announce').getAttribute('role')).toBe('status');
    await vi.waitFor(() => expect(document.title.startsWith(`${en['combat.title.yourTurn']} · Lost Mine`)).toBe(true));
    await act(async () => fireEvent.click(screen.getByRole('button', { name: en['combat.endTurn'] })));
    expect(callsTo('POST', '/api/sessions/12/encounter/advance')).toHaveLength(1);
    expect((await screen.findByRole('alert')).textContent).toContain(errorsEn.not_your_turn);
    // the turn passes on: the notice and the title go
    view.rerender(prompt(fight()));
    expect(screen.queryByTestId('turn-notice')).toBeNull();
    expect(document.title.startsWith(`${en['title.session']} · Lost Mine`)).toBe(true);
  });

  it('asks for initiative (server dice or the d20 entered) before the fight begins', async () => {
    const rolling = fight({ phase: 'initiative', round: 0, current_id: '' });
    rolling.combatants = rolling.combatants.map((c) => ({ ...c, current: false, initiative: null }));
    stubServer({ 'POST /api/sessions/12/encounter/initiative': () => json(200, { encounter: rolling, event: ev(9, 'encounter.changed') }) });
    const st = state(rolling);
    render(prompt(rolling, st));
    const p = within(screen.getByTestId('encounter-prompt'));
    fireEvent.change(p.getByLabelText(en['combat.initiative.face']), { target: { value: '15' } });
    await act(async () => fireEvent.click(p.getByRole('button', { name: en['combat.initiative.enter'] })));
    await act(async () => fireEvent.click(p.getByRole('button', { name: en['combat.initiative.roll'] })));
    // with advantage: both d20s
    fireEvent.change(p.getByLabelText(en['combat.initiative.face']), { target: { value: '15 8' } });
    await act(async () => fireEvent.click(p.getByRole('button', { name: en['combat.initiative.enter'] })));
    expect(callsTo('POST', '/api/sessions/12/encounter/initiative').map((c) => c.body)).toEqual([
      { combatant_id: 'seat:9', faces: [15] },
      { combatant_id: 'seat:9' },
      { combatant_id: 'seat:9', faces: [15, 8] },
    ]);
    expect(st.apply).toHaveBeenCalledTimes(3);
    // a face above 20 is not sent
    fireEvent.change(p.getByLabelText(en['combat.initiative.face']), { target: { value: '21' } });
    expect((p.getByRole('button', { name: en['combat.initiative.enter'] }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('offers a death save to a dying player', async () => {
    stubServer({ 'POST /api/sessions/12/encounter/death-save': () => json(200, { encounter: fight(), event: ev(9, 'encounter.changed') }) });
    const dying = fight();
    dying.combatants[0] = { ...dying.combatants[0]!, status: 'dying', hp: { max: 20, current: 0, temp: 0 } };
    render(prompt(dying));
    await act(async () => fireEvent.click(screen.getByRole('button', { name: en['combat.deathSave'] })));
    expect(callsTo('POST', '/api/sessions/12/encounter/death-save')[0]!.body).toEqual({ combatant_id: 'seat:9' });
  });
});

// ---- feed cards ----------------------------------------------------------------

const audit = (sides: number, faces: number[], total: number, formula: string): DiceAudit =>
  ({
    formula,
    normalized: formula,
    total,
    groups: [{ notation: formula, sides, dice: faces.map((value) => ({ value, kept: true, dropped: false })) }],
  }) as unknown as DiceAudit;

const names = tableNames(resume('player'));
const encounterEvent = (seq: number, kind: string, payload: Record<string, unknown>, over: Partial<EventView> = {}) =>
  ev(seq, kind, { payload: { version: 1, encounter_id: 3, encounter: fight(), ...payload }, ...over });

const attackOnGoblin = encounterEvent(5, 'encounter.attack', {
  attack: {
    attacker_id: 'seat:9',
    target_id: 'npc:1',
    weapon: 'Shortsword',
    roll: audit(20, [20], 24, '1d20 + 4'),
    natural: 20,
    total: 24,
    hit: true,
    critical: true,
    damage: { type: 'piercing', critical: true, roll: audit(6, [3, 5], 10, '2d6+2'), amount: 10 },
    target_status: 'active',
  },
});
const secretOfAttack = encounterEvent(
  6,
  'encounter.secret',
  { of: 'encounter.attack', of_seq: 5, encounter: dmFight(), attack: { ac: 13, result: { before: { max: 12, current: 12, temp: 0 }, after: { max: 12, current: 2, temp: 0 }, taken: 10, temp_absorbed: 0 } } },
  { visibility: 'dm_only' },
);
const turn = encounterEvent(7, 'encounter.turn', {
  turn: { round: 3, actor_id: 'seat:9', new_round: true, expired: [{ combatant_id: 'seat:10', condition: { name: 'poisoned' } }] },
  combatant_id: 'seat:9',
});
const ended = encounterEvent(8, 'encounter.ended', {
  summary: {
    rounds: 3,
    combatants: [
      { id: 'seat:9', name: 'Mira', status: 'active', hits: 1, misses: 2, damage_dealt: 10, damage_taken: 0 },
      { id: 'npc:1', name: 'Goblin', status: 'dead', hits: 0, misses: 1, damage_dealt: 0, damage_taken: 12 },
    ],
  },
});

describe('feed cards', () => {
  it('an attack: attacker → target, the d20 with its dice and total, HIT and CRITICAL, the damage roll; no AC for a player', () => {
    render(wrap(<TableFeed events={[attackOnGoblin]} names={names} />));
    const card = screen.getByTestId('attack-card');
    expect(card.textContent).toContain('Mira → Goblin');
    expect(within(card).getByTestId('attack-total').textContent).toBe('24');
    expect(within(card).getByTestId('attack-outcome').textContent).toBe(en['combat.hit']);
    expect(within(card).getByTestId('attack-critical').textContent).toBe(en['combat.critical']);
    expect(within(card).getByTestId('damage-amount').textContent).toBe('10');
    expect(within(within(card).getByTestId('attack-damage')).getAllByTestId('die').map((d) => d.textContent)).toEqual(['3', '5']);
    expect(card.getAttribute('data-critical')).toBe('true');
    expect(within(card).queryByTestId('dm-detail')).toBeNull();
    expect(card.textContent).not.toMatch(/AC|HP/);
  });

  it('the DM’s secret is folded into its attack card (AC and the hidden HP), not a line of its own', () => {
    render(wrap(<TableFeed events={[attackOnGoblin, secretOfAttack]} names={names} isDM />));
    const card = screen.getByTestId('attack-card');
    const details = within(card).getAllByTestId('dm-detail').map((d) => d.textContent);
    expect(details).toEqual([`${en['combat.dmOnly']} AC 13`, `${en['combat.dmOnly']} HP 12 → 2/12`]);
    expect(screen.getAllByTestId('log-line')).toHaveLength(1);
  });

  it('an attack on a target players see: its AC and HP on everyone’s card, no DM detail', () => {
    const onNox = encounterEvent(13, 'encounter.attack', {
      attack: {
        attacker_id: 'npc:1',
        target_id: 'seat:10',
        roll: audit(20, [15], 19, '1d20 + 4'),
        natural: 15,
        total: 19,
        hit: true,
        ac: 12,
        damage: { type: 'slashing', roll: audit(6, [4], 6, '1d6+2'), amount: 6 },
        result: { before: { max: 20, current: 20, temp: 0 }, after: { max: 20, current: 14, temp: 0 }, taken: 6, temp_absorbed: 0 },
      },
    });
    for (const isDM of [false, true]) {
      const view = render(wrap(<TableFeed events={[onNox]} names={names} isDM={isDM} />));
      const card = screen.getByTestId('attack-card');
      expect(within(card).getByTestId('attack-ac').textContent).toBe('AC 12');
      expect(within(card).getByTestId('attack-hp').textContent).toBe('HP 20 → 14/20');
      expect(within(card).queryByTestId('dm-detail')).toBeNull();
      view.unmount();
    }
  });

  it('the public summary leaves a hidden NPC’s damage taken out: a dash', () => {
    const publicEnd = encounterEvent(14, 'encounter.ended', {
      summary: { rounds: 1, combatants: [{ id: 'npc:1', name: 'Goblin', status: 'active', hits: 0, misses: 0, damage_dealt: 0 }] },
    });
    render(wrap(<TableFeed events={[publicEnd]} names={names} />));
    const row = screen.getAllByTestId('summary-row')[0]!;
    expect(Array.from(row.querySelectorAll('td')).map((td) => td.textContent)).toEqual(['0', '0', '0', '—']);
  });

  it('a turn: round and whose turn, the conditions that ended; the end: the summary per combatant', () => {
    render(wrap(<TableFeed events={[turn, ended]} names={names} />));
    const turnCard = screen.getAllByTestId('encounter-card').find((c) => c.getAttribute('data-kind') === 'turn')!;
    expect(turnCard.textContent).toContain('Round 3: Mira’s turn');
    expect(within(turnCard).getByTestId('expired').textContent).toBe('Poisoned ended on Nox.');
    const summary = screen.getByTestId('encounter-summary');
    expect(summary.textContent).toContain('The fight is over: Goblin ambush, 3 rounds');
    const goblin = within(summary).getAllByTestId('summary-row')[1]!;
    expect(goblin.textContent).toContain(`Goblin (${en['combat.status.dead']})`);
    expect(Array.from(goblin.querySelectorAll('td')).map((td) => td.textContent)).toEqual(['0', '1', '0', '12']);
  });

  it('changes and death saves: a seat’s damage with its HP, a hidden NPC’s without (the DM’s in a DM detail)', () => {
    const seatDamage = encounterEvent(9, 'encounter.changed', {
      change: 'damage',
      combatant_id: 'seat:10',
      change_detail: { op: 'damage', combatant_id: 'seat:10', result: { before: { max: 20, current: 6, temp: 0 }, after: { max: 20, current: 1, temp: 0 }, taken: 5, temp_absorbed: 0 } },
    });
    const npcDamage = encounterEvent(10, 'encounter.changed', { change: 'damage', combatant_id: 'npc:1' });
    const npcSecret = encounterEvent(
      11,
      'encounter.secret',
      { of: 'encounter.changed', of_seq: 10, encounter: dmFight(), change: { op: 'damage', combatant_id: 'npc:1', result: { before: { max: 12, current: 8, temp: 0 }, after: { max: 12, current: 3, temp: 0 }, taken: 5, temp_absorbed: 0 } } },
      { visibility: 'dm_only' },
    );
    const save = encounterEvent(12, 'encounter.changed', {
      change: 'death_save',
      combatant_id: 'seat:10',
      death_save: { roll: audit(20, [12], 12, '1d20'), natural: 12, success: true, after: { successes: 2, failures: 1 } },
    });
    const view = render(wrap(<TableFeed events={[seatDamage, npcDamage, npcSecret, save]} names={names} />));
    const lines = screen.getAllByTestId('encounter-line').map((l) => l.textContent);
    expect(lines).toEqual(['Nox takes 5 damage (HP 6 → 1/20).', 'Goblin takes damage.']);
    const card = screen.getByTestId('death-save-card');
    expect(card.textContent).toContain(en['combat.save.success']);
    expect(card.textContent).toContain(format(en['combat.deathSaves'], { ok: 2, fail: 1 }));
    view.rerender(wrap(<TableFeed events={[seatDamage, npcDamage, npcSecret, save]} names={names} isDM />));
    expect(screen.getAllByTestId('encounter-line')[1]!.textContent).toBe(`Goblin takes damage. ${en['combat.dmOnly']} HP 8 → 3/12`);
  });
});

// ---- the session page ------------------------------------------------------------

describe('session page', () => {
  it('shows the tracker and reads the fight again (once per batch) when encounter events arrive', async () => {
    let reads = 0;
    stubServer({
      'GET /api/sessions/12': () => json(200, resume('player')),
      'GET /api/sessions/12/encounter': () => {
        reads += 1;
        return json(200, { encounter: reads === 1 ? fight() : fight({ round: 3 }) });
      },
    });
    renderApp('/sessions/12');
    await screen.findByTestId('encounter');
    expect(screen.getByTestId('encounter-round').textContent).toBe(format(en['combat.round'], { n: 2 }));
    const w = await nextWait(1);
    await act(async () =>
      w.answer({
        events: [
          encounterEvent(3, 'encounter.turn', { turn: { round: 3, actor_id: 'seat:9', new_round: true, expired: [] } }),
          encounterEvent(4, 'encounter.changed', { change: 'add_condition', combatant_id: 'seat:9' }),
        ],
        cursor: 4,
      }),
    );
    await vi.waitFor(() => expect(screen.getByTestId('encounter-round').textContent).toBe(format(en['combat.round'], { n: 3 })));
    expect(callsTo('GET', '/api/sessions/12/encounter')).toHaveLength(2);
    // the turn card is in the feed
    expect(screen.getAllByTestId('encounter-card').some((c) => c.textContent?.includes('Round 3: Mira’s turn'))).toBe(true);
    // neither changed hit points: the player cards were not read again; a hit is
    expect(callsTo('GET', '/api/sessions/12')).toHaveLength(1);
    const w2 = await nextWait(2);
    await act(async () => w2.answer({ events: [attackOnGoblin], cursor: 5 }));
    await vi.waitFor(() => expect(callsTo('GET', '/api/sessions/12')).toHaveLength(2));
    await vi.waitFor(() => expect(callsTo('GET', '/api/sessions/12/encounter')).toHaveLength(3));
  });
});
