// Rolls, checks, pending actions and character state on the session page.
// fetch is faked at the boundary; the long-poll is answered by hand.
import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { en } from '../src/i18n/en';
import errorsEn from '../src/i18n/errors.en.json';
import errorsZhTW from '../src/i18n/errors.zh-TW.json';
import { zhTW } from '../src/i18n/zh-TW';
import { resetIdentity } from '../src/identity';
import type {
  CharacterChangedPayload,
  DiceAudit,
  EventView,
  PendingActionView,
  RollBoard,
  RollRequestView,
  RollResultView,
} from '../src/table/api';
import { checkRequest, rollResult, json, apiError, stubServer, callsTo, nextWait, renderApp, T0, ev, resumeAtStart as resume } from './fixtures';

// ---- fixtures ------------------------------------------------------------

// advantage: 7 dropped, 18 kept
const ADV_AUDIT = advantageAudit(7, 18);

// advantageAudit is a 2d20kh1 roll's audit; the higher die is kept.
function advantageAudit(a: number, b: number): DiceAudit {
  const kept = Math.max(a, b);
  const die = (value: number, keep: boolean) => ({ value, kept: keep, dropped: !keep });
  return {
    formula: '2d20kh1',
    normalized: '2d20kh1',
    groups: [{ notation: '2d20kh1', sides: 20, dice: [die(a, a >= b), die(b, a < b)], subtotal: kept }],
    total: kept,
    min: 1,
    max: 20,
  };
}

// result: Mira's advantage Perception roll (7 and 18, +3) entered as physical dice.
const result = (over: Partial<RollResultView> = {}) =>
  rollResult(50, 18, 3, { roll_request_id: 31, source: 'physical', formula: '2d20kh1 + 3', audit: ADV_AUDIT, raw_dice: [7, 18], ...over });

// request: Perception asked of Mira with advantage (two d20s), pending.
const request = (over: Partial<RollRequestView> = {}) => checkRequest({ mode: 'advantage', dice_needed: 2, ...over });

function action(over: Partial<PendingActionView> = {}): PendingActionView {
  return {
    id: 2,
    acting_seat_id: 9,
    subject_seat_id: 9,
    subject_character_id: 3,
    execution_mode: 'self',
    text: 'I try the door',
    intent: '',
    status: 'pending',
    roll_request_id: null,
    window_id: null,
    created_at: T0,
    updated_at: T0,
    ...over,
  };
}

const board = (over: Partial<RollBoard> = {}): RollBoard => ({ requests: [], results: [], pending_actions: [], windows: [], ...over });

const click = (el: HTMLElement) => act(async () => fireEvent.click(el));
const tab = (name: string) => click(screen.getByRole('tab', { name }));
const byTestId = (root: HTMLElement, id: string) => within(root).getByTestId(id);
const card = (name: string) => screen.getAllByTestId('participant').find((c) => within(c).getByRole('heading').textContent?.includes(name))!;

beforeEach(() => {
  localStorage.clear();
  resetIdentity();
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

// ---- the DM's "Request check" ---------------------------------------------

describe('request check dialog', () => {
  it('sends the chosen seats, skill, DC, mode, bonus, reveal and private flags', async () => {
    stubServer({
      'GET /api/sessions/12': () => json(200, resume('dm')),
      'GET /api/sessions/12/rolls': () => json(200, board()),
      'POST /api/sessions/12/checks': () => json(201, { group_id: 4, requests: [] }),
    });
    renderApp();
    await screen.findByTestId('session-status');
    await tab(en['table.tab.dice']);
    await click(screen.getByRole('button', { name: en['check.request'] }));
    const dialog = screen.getByRole('dialog');
    // everyone by default: the seats are ticked and locked
    expect((within(dialog).getByLabelText(en['check.dialog.everyone']) as HTMLInputElement).checked).toBe(true);
    expect((within(dialog).getByLabelText('Mira') as HTMLInputElement).disabled).toBe(true);
    fireEvent.click(within(dialog).getByLabelText(en['check.dialog.everyone']));
    fireEvent.click(within(dialog).getByLabelText('Nox'));
    fireEvent.change(within(dialog).getByLabelText(en['check.dialog.check']), { target: { value: 'skill:stealth' } });
    fireEvent.change(within(dialog).getByLabelText(en['check.dialog.dc']), { target: { value: '15' } });
    fireEvent.click(within(dialog).getByLabelText(en['check.mode.advantage']));
    fireEvent.change(within(dialog).getByLabelText(en['check.dialog.flat']), { target: { value: '2' } });
    fireEvent.click(within(dialog).getByLabelText(en['check.dialog.reveal']));
    await click(within(dialog).getByRole('button', { name: en['check.dialog.send'] }));
    expect(callsTo('POST', '/api/sessions/12/checks')[0]!.body).toEqual({
      seat_ids: [10],
      skill: 'stealth',
      dc: 15,
      mode: 'advantage',
      flat_adjustment: 2,
      reveal_outcome: true,
      private: false,
    });
    // the dialog closes and the board is read again
    await vi.waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    await vi.waitFor(() => expect(callsTo('GET', '/api/sessions/12/rolls').length).toBeGreaterThanOrEqual(2));

    // everyone, an ability, no DC, private
    await click(screen.getByRole('button', { name: en['check.request'] }));
    const again = screen.getByRole('dialog');
    fireEvent.change(within(again).getByLabelText(en['check.dialog.check']), { target: { value: 'ability:wis' } });
    fireEvent.click(within(again).getByLabelText(en['check.dialog.private']));
    await click(within(again).getByRole('button', { name: en['check.dialog.send'] }));
    expect(callsTo('POST', '/api/sessions/12/checks')[1]!.body).toEqual({
      ability: 'wis',
      mode: 'normal',
      flat_adjustment: 0,
      reveal_outcome: false,
      private: true,
    });
  });

  it('a player’s /check line gives the DM a pre-filled "Request this check"; check_invalid is translated', async () => {
    const line = ev(2, 'message.posted', {
      acting_seat_id: 10,
      subject_seat_id: 10,
      subject_character_id: 4,
      execution_mode: 'self',
      payload: { version: 1, message_id: 2, kind: 'action', intent: 'check', check: 'stealth', text: 'I sneak', recipient_seat_ids: [] },
    });
    stubServer({
      'GET /api/sessions/12': () => json(200, resume('dm', { recent_events: [line], cursor: 2 })),
      'GET /api/sessions/12/rolls': () => json(200, board()),
      'POST /api/sessions/12/checks': () => apiError(422, 'check_invalid'),
    });
    renderApp();
    await screen.findByTestId('session-status');
    await click(screen.getByRole('button', { name: en['check.requestThis'] }));
    const dialog = screen.getByRole('dialog');
    expect((within(dialog).getByLabelText(en['check.dialog.everyone']) as HTMLInputElement).checked).toBe(false);
    expect((within(dialog).getByLabelText('Nox') as HTMLInputElement).checked).toBe(true);
    expect((within(dialog).getByLabelText('Mira') as HTMLInputElement).checked).toBe(false);
    expect((within(dialog).getByLabelText(en['check.dialog.check']) as HTMLSelectElement).value).toBe('skill:stealth');
    await click(within(dialog).getByRole('button', { name: en['check.dialog.send'] }));
    expect(callsTo('POST', '/api/sessions/12/checks')[0]!.body).toMatchObject({ seat_ids: [10], skill: 'stealth' });
    const alert = await within(dialog).findByRole('alert');
    expect(alert.textContent).toContain(errorsEn.check_invalid);
    expect(alert.textContent).not.toContain('SERVER TEXT');
    fireEvent.change(screen.getByLabelText('Language'), { target: { value: 'zh-TW' } });
    expect(within(screen.getByRole('dialog')).getByRole('alert').textContent).toContain(errorsZhTW.check_invalid);
  });

  it('players get no "Request this check" and no "Request check"', async () => {
    const line = ev(2, 'message.posted', {
      acting_seat_id: 10,
      subject_seat_id: 10,
      subject_character_id: 4,
      execution_mode: 'self',
      payload: { version: 1, message_id: 2, kind: 'action', intent: 'check', check: 'stealth', text: 'I sneak', recipient_seat_ids: [] },
    });
    stubServer({
      'GET /api/sessions/12': () => json(200, resume('player', { recent_events: [line], cursor: 2 })),
      'GET /api/sessions/12/rolls': () => json(200, board()),
    });
    renderApp();
    await screen.findByTestId('session-status');
    await vi.waitFor(() => expect(callsTo('GET', '/api/sessions/12/rolls')).toHaveLength(1));
    expect(screen.queryByRole('button', { name: en['check.requestThis'] })).toBeNull();
    await tab(en['table.tab.dice']);
    expect(screen.queryByRole('button', { name: en['check.request'] })).toBeNull();
  });
});

// ---- the player's pending request -----------------------------------------

describe('player pending check', () => {
  it('offers Roll and Enter my dice; sends dice_needed faces with a kept idempotency key; shows my total, no outcome when absent', async () => {
    let fail = true;
    stubServer({
      'GET /api/sessions/12': () => json(200, resume('player')),
      'GET /api/sessions/12/rolls': () => json(200, board({ requests: [request()] })),
      'POST /api/roll-requests/31/physical': (body) => {
        if (fail) {
          fail = false;
          return apiError(422, 'dice_face_invalid');
        }
        const faces = (body as { faces: number[] }).faces;
        return json(200, result({ raw_dice: faces, total: 21 }));
      },
    });
    renderApp();
    const bar = await screen.findByTestId('prompt-bar');
    const mine = byTestId(bar, 'my-request');
    expect(mine.textContent).toContain('The DM asks for a check: Perception');
    expect(mine.textContent).toContain(en['check.mode.advantage']);
    expect(within(mine).getByRole('button', { name: en['check.roll'] })).toBeTruthy();
    await click(within(mine).getByRole('button', { name: en['check.enter'] }));
    // dice_needed = 2 → two d20 inputs
    const inputs = within(mine).getAllByRole('spinbutton');
    expect(inputs).toHaveLength(2);
    fireEvent.change(within(mine).getByLabelText('Die 1'), { target: { value: '7' } });
    fireEvent.change(within(mine).getByLabelText('Die 2'), { target: { value: '18' } });
    await click(within(mine).getByRole('button', { name: en['check.faces.send'] }));
    expect((await within(mine).findByRole('alert')).textContent).toContain(errorsEn.dice_face_invalid);
    await click(within(mine).getByRole('button', { name: en['check.faces.send'] }));
    const sent = callsTo('POST', '/api/roll-requests/31/physical').map((c) => c.body as { faces: number[]; idempotency_key: string });
    expect(sent).toHaveLength(2);
    expect(sent[0]!.faces).toEqual([7, 18]);
    expect(sent[1]!.faces).toEqual([7, 18]);
    expect(sent[1]!.idempotency_key).toBe(sent[0]!.idempotency_key);
    expect(sent[0]!.idempotency_key).toMatch(/^[0-9a-f-]{36}$/);
    await vi.waitFor(() => expect(byTestId(screen.getByTestId('prompt-bar'), 'request-total').textContent).toBe('21'));
    const done = byTestId(screen.getByTestId('prompt-bar'), 'my-request');
    expect(done.textContent).toContain(en['check.myTotal']);
    // the result carries no success: no pass / fail
    expect(within(done).queryByTestId('check-outcome')).toBeNull();
    expect(within(done).queryByRole('button', { name: en['check.roll'] })).toBeNull();
  });

  it('Roll asks the server; a revealed outcome shows pass / fail', async () => {
    stubServer({
      'GET /api/sessions/12': () => json(200, resume('player')),
      'GET /api/sessions/12/rolls': () => json(200, board({ requests: [request({ id: 32, mode: 'normal', dice_needed: 1, reveal_outcome: true })] })),
      'POST /api/roll-requests/32/roll': () => json(200, result({ id: 51, roll_request_id: 32, source: 'server', total: 9, success: false })),
    });
    renderApp();
    const bar = await screen.findByTestId('prompt-bar');
    await click(within(bar).getByRole('button', { name: en['check.roll'] }));
    expect(callsTo('POST', '/api/roll-requests/32/roll')[0]!.body).toEqual({ idempotency_key: expect.any(String) });
    await vi.waitFor(() => expect(byTestId(screen.getByTestId('prompt-bar'), 'check-outcome').textContent).toBe(en['check.fail']));
    expect(byTestId(screen.getByTestId('prompt-bar'), 'request-total').textContent).toBe('9');
  });

  it('one d20 needed → one input; roll_faces_mismatch is translated', async () => {
    stubServer({
      'GET /api/sessions/12': () => json(200, resume('player')),
      'GET /api/sessions/12/rolls': () => json(200, board({ requests: [request({ mode: 'normal', dice_needed: 1 })] })),
      'POST /api/roll-requests/31/physical': () => apiError(422, 'roll_faces_mismatch'),
    });
    renderApp();
    const bar = await screen.findByTestId('prompt-bar');
    await click(within(bar).getByRole('button', { name: en['check.enter'] }));
    expect(within(bar).getAllByRole('spinbutton')).toHaveLength(1);
    fireEvent.change(within(bar).getByLabelText('Die 1'), { target: { value: '12' } });
    await click(within(bar).getByRole('button', { name: en['check.faces.send'] }));
    expect(callsTo('POST', '/api/roll-requests/31/physical')[0]!.body).toMatchObject({ faces: [12] });
    expect((await within(bar).findByRole('alert')).textContent).toContain(errorsEn.roll_faces_mismatch);
  });
});

// ---- results --------------------------------------------------------------

describe('a check the DM labelled', () => {
  it('shows the DM\'s label ("Spot the ambush") on the player\'s card, and nothing extra for a plain check', async () => {
    stubServer({
      'GET /api/sessions/12': () => json(200, resume('player')),
      'GET /api/sessions/12/rolls': () =>
        json(200, board({ requests: [request({ label: 'Spot the ambush' }), request({ id: 32, skill: 'stealth', label: 'stealth' })] })),
    });
    renderApp();
    const bar = await screen.findByTestId('prompt-bar');
    const notes = within(bar).getAllByTestId('request-note').map((n) => n.textContent);
    expect(notes).toEqual(['Spot the ambush']);
  });
});

describe('roll results', () => {
  it('mark kept, dropped, exploded and rerolled dice; show formula, total and "DM for X"', async () => {
    const quick: RollResultView = result({
      id: 60,
      roll_request_id: null,
      source: 'quick',
      formula: '3d6!',
      audit: {
        formula: '3d6!',
        normalized: '3d6!',
        groups: [
          {
            notation: '3d6!',
            sides: 6,
            dice: [
              { value: 6, kept: true, dropped: false, exploded: true },
              { value: 2, kept: true, dropped: false },
              { value: 1, kept: false, dropped: true, rerolled: true },
            ],
            subtotal: 8,
          },
        ],
        total: 8,
        min: 3,
        max: 18,
      },
      total: 8,
    });
    const proxied = result({ id: 61, roll_request_id: 31, acting_seat_id: 8, execution_mode: 'dm_proxy', source: 'server', total: 21 });
    stubServer({
      'GET /api/sessions/12': () => json(200, resume('player')),
      'GET /api/sessions/12/rolls': () => json(200, board({ results: [quick, proxied], requests: [request({ status: 'resolved', result: proxied })] })),
    });
    renderApp();
    await screen.findByTestId('session-status');
    await tab(en['table.tab.dice']);
    const history = await screen.findByTestId('roll-history');
    await vi.waitFor(() => expect(within(history).getAllByTestId('roll-result')).toHaveLength(2));
    const [first, second] = within(history).getAllByTestId('roll-result') as [HTMLElement, HTMLElement];
    // newest first: the DM rolled for Mira
    expect(byTestId(first, 'roll-who').textContent).toBe('DM for Mira');
    expect(first.textContent).toContain('Perception');
    expect(byTestId(first, 'roll-formula').textContent).toBe('2d20kh1 + 3');
    expect(byTestId(first, 'roll-total').textContent).toBe('21');
    const [d7, d18] = within(first).getAllByTestId('die') as [HTMLElement, HTMLElement];
    expect(d7.getAttribute('data-dropped')).toBe('true');
    expect(d7.querySelector('s')?.textContent).toBe('7');
    expect(d7.querySelector('strong')).toBeNull();
    expect(d18.getAttribute('data-kept')).toBe('true');
    expect(d18.querySelector('strong')?.textContent).toBe('18');
    expect(d18.querySelector('s')).toBeNull();

    expect(byTestId(second, 'roll-who').textContent).toBe('Mira');
    expect(second.textContent).toContain(en['dice.quick']);
    const [six, two, one] = within(second).getAllByTestId('die') as [HTMLElement, HTMLElement, HTMLElement];
    expect(six.getAttribute('data-exploded')).toBe('true');
    expect(within(six).getByLabelText(en['dice.exploded']).textContent).toBe('!');
    expect(two.getAttribute('data-exploded')).toBeNull();
    expect(one.getAttribute('data-rerolled')).toBe('true');
    expect(one.querySelector('s')?.textContent).toBe('1');
    expect(within(one).getByLabelText(en['dice.rerolled'])).toBeTruthy();
  });

  it('shows pass / fail only when the result carries success; roll.quick and roll.resolved events arrive live', async () => {
    stubServer({
      'GET /api/sessions/12': () => json(200, resume('player')),
      'GET /api/sessions/12/rolls': () => json(200, board()),
    });
    renderApp();
    await screen.findByTestId('session-status');
    await tab(en['table.tab.dice']);
    const w = await nextWait(1);
    await act(async () =>
      w.answer({
        events: [
          ev(2, 'roll.resolved', { visibility: 'public', payload: { version: 1, request_id: 31, result: result({ id: 70, total: 21 }) } }),
          ev(3, 'roll.resolved', {
            visibility: 'public',
            payload: { version: 1, request_id: 33, result: result({ id: 71, roll_request_id: 33, subject_seat_id: 10, subject_character_id: 4, total: 4, success: false }) },
          }),
          ev(4, 'roll.quick', { payload: { version: 1, result: result({ id: 72, roll_request_id: null, source: 'quick', formula: '1d20', total: 11 }) } }),
        ],
        cursor: 4,
      }),
    );
    const history = screen.getByTestId('roll-history');
    await vi.waitFor(() => expect(within(history).getAllByTestId('roll-result')).toHaveLength(3));
    const lines = within(history).getAllByTestId('roll-result');
    const totals = lines.map((l) => byTestId(l, 'roll-total').textContent);
    expect(totals).toEqual(['11', '4', '21']);
    expect(within(lines[0]!).queryByTestId('check-outcome')).toBeNull();
    expect(byTestId(lines[1]!, 'check-outcome').textContent).toBe(en['check.fail']);
    expect(byTestId(lines[1]!, 'roll-who').textContent).toBe('Nox');
    expect(within(lines[2]!).queryByTestId('check-outcome')).toBeNull();
    // the events made the page read the board again
    await vi.waitFor(() => expect(callsTo('GET', '/api/sessions/12/rolls').length).toBeGreaterThanOrEqual(2));
    // and the log lists them with their dice
    const log = screen.getAllByTestId('log-line').filter((l) => l.getAttribute('data-kind')?.startsWith('roll.'));
    expect(log).toHaveLength(3);
    expect(within(log[0]!).getAllByTestId('die').map((d) => d.getAttribute('data-dropped'))).toEqual(['true', 'false']);
  });

  it('quick roll posts the formula with a key; dice errors are translated with their position', async () => {
    let n = 0;
    stubServer({
      'GET /api/sessions/12': () => json(200, resume('player')),
      'GET /api/sessions/12/rolls': () => json(200, board()),
      'POST /api/sessions/12/quick-roll': (body) =>
        ++n === 1
          ? apiError(400, 'dice_invalid_expression', { position: 4 })
          : json(201, result({ id: 80, roll_request_id: null, source: 'quick', formula: (body as { formula: string }).formula, total: 13 })),
    });
    renderApp();
    await screen.findByTestId('session-status');
    await tab(en['table.tab.dice']);
    fireEvent.change(screen.getByLabelText(en['dice.formula']), { target: { value: '4d6x' } });
    await click(screen.getByRole('button', { name: en['dice.roll'] }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain(errorsEn.dice_invalid_expression);
    expect(screen.getByText('The problem is at character 5.')).toBeTruthy();
    fireEvent.change(screen.getByLabelText(en['dice.formula']), { target: { value: '4d6dl1' } });
    await click(screen.getByRole('button', { name: en['dice.roll'] }));
    const sent = callsTo('POST', '/api/sessions/12/quick-roll').map((c) => c.body as { formula: string; idempotency_key: string });
    expect(sent[1]).toEqual({ formula: '4d6dl1', idempotency_key: expect.any(String) });
    expect(sent[1]!.idempotency_key).not.toBe(sent[0]!.idempotency_key);
    await vi.waitFor(() => expect(within(screen.getByTestId('roll-history')).getAllByTestId('roll-total')[0]!.textContent).toBe('13'));
    expect(screen.queryByRole('alert')).toBeNull();
    // the notation help is there
    expect(screen.getByText(en['dice.help.math'])).toBeTruthy();
  });
});

describe('check quick roll', () => {
  it('rolls a chosen skill as a check: the server adds the modifier from the sheet', async () => {
    stubServer({
      'GET /api/sessions/12': () => json(200, resume('player')),
      'GET /api/sessions/12/rolls': () => json(200, board()),
      'POST /api/sessions/12/quick-roll': () =>
        json(201, result({ id: 81, roll_request_id: null, source: 'quick', formula: '1d20', total: 17 })),
    });
    renderApp();
    await screen.findByTestId('session-status');
    await tab(en['table.tab.dice']);
    fireEvent.change(screen.getByLabelText(en['dice.checkPick']), { target: { value: 'stealth' } });
    await click(screen.getByRole('button', { name: en['dice.rollCheck'] }));
    const sent = callsTo('POST', '/api/sessions/12/quick-roll').map((c) => c.body);
    expect(sent).toEqual([{ formula: '', check: 'stealth', idempotency_key: expect.any(String) }]);
    // a saving throw is one of the choices, named in the reader's language
    const pick = screen.getByLabelText(en['dice.checkPick']) as HTMLSelectElement;
    expect([...pick.options].find((o) => o.value === 'dex_save')?.textContent).toBe('Dexterity save');
    fireEvent.change(pick, { target: { value: 'dex_save' } });
    await click(screen.getByRole('button', { name: en['dice.rollCheck'] }));
    expect(callsTo('POST', '/api/sessions/12/quick-roll')[1]!.body).toMatchObject({ formula: '', check: 'dex_save' });
    await vi.waitFor(() => expect(within(screen.getByTestId('roll-history')).getAllByTestId('roll-total')[0]!.textContent).toBe('17'));
  });
});

// ---- the DC is the DM's alone ------------------------------------------------

describe('DC', () => {
  it('the DM sees each request’s DC and pass / fail; can cancel a pending request', async () => {
    const done = result({ id: 90, roll_request_id: 40, subject_seat_id: 10, subject_character_id: 4, total: 17, success: true });
    stubServer({
      'GET /api/sessions/12': () => json(200, resume('dm')),
      'GET /api/sessions/12/rolls': () =>
        json(
          200,
          board({
            requests: [
              request({ id: 41, dc: 15 }),
              request({ id: 40, target_seat_id: 10, target_character_id: 4, dc: 15, status: 'resolved', result: done }),
            ],
            results: [done],
          }),
        ),
      'POST /api/roll-requests/41/cancel': () => json(200, request({ id: 41, dc: 15, status: 'cancelled' })),
    });
    renderApp();
    await screen.findByTestId('session-status');
    await tab(en['table.tab.dice']);
    await vi.waitFor(() => expect(screen.getAllByTestId('dm-request')).toHaveLength(2));
    const [pending, resolved] = screen.getAllByTestId('dm-request') as [HTMLElement, HTMLElement];
    expect(pending.getAttribute('data-target')).toBe('Mira');
    expect(byTestId(pending, 'request-dc').textContent).toBe('DC 15');
    expect(byTestId(resolved, 'request-dc').textContent).toBe('DC 15');
    expect(byTestId(resolved, 'request-total').textContent).toBe('17');
    expect(byTestId(resolved, 'check-outcome').textContent).toBe(en['check.pass']);
    expect(within(pending).getByRole('button', { name: 'Roll for Mira' })).toBeTruthy();
    await click(within(pending).getByRole('button', { name: en['check.cancelRequest'] }));
    expect(callsTo('POST', '/api/roll-requests/41/cancel')).toHaveLength(1);
    await vi.waitFor(() => expect(callsTo('GET', '/api/sessions/12/rolls').length).toBeGreaterThanOrEqual(2));
  });

  it('a player page never renders a DC, even if one slipped into the data', async () => {
    stubServer({
      'GET /api/sessions/12': () => json(200, resume('player')),
      // the server never sends dc to players; the page must not show it even so
      'GET /api/sessions/12/rolls': () => json(200, board({ requests: [request({ dc: 15 })] })),
    });
    renderApp();
    await screen.findByTestId('prompt-bar');
    const w = await nextWait(1);
    await act(async () =>
      w.answer({
        events: [ev(2, 'roll.outcome', { visibility: 'dm_only', subject_seat_id: 9, payload: { version: 1, request_id: 31, result_id: 5, dc: 15, success: true } })],
        cursor: 2,
      }),
    );
    await nextWait(2);
    for (const name of [en['table.tab.dice'], en['table.tab.actions'], en['table.tab.chat']]) {
      await tab(name);
      expect(screen.queryByTestId('request-dc')).toBeNull();
      // (the page without its icons: an icon's drawing has numbers of its own)
      const page = document.body.cloneNode(true) as HTMLElement;
      for (const icon of Array.from(page.querySelectorAll('svg'))) icon.remove();
      expect(page.innerHTML).not.toMatch(/\bDC\b/);
      expect(page.innerHTML).not.toMatch(/(^|[^0-9])15([^0-9]|$)/);
    }
  });
});

// ---- character state ---------------------------------------------------------

describe('character state', () => {
  it('HP bar, temp HP and conditions come from the resume and follow character.changed', async () => {
    let reads = 0;
    const first = resume('player');
    first.participants[0]!.character!.hp = { max: 20, current: 5, temp: 3 };
    const later = resume('player');
    later.participants[0]!.character!.hp = { max: 20, current: 12, temp: 0 };
    later.participants[0]!.character!.conditions = ['poisoned'];
    stubServer({
      'GET /api/sessions/12': () => json(200, ++reads === 1 ? first : later),
      'GET /api/sessions/12/rolls': () => json(200, board()),
    });
    renderApp();
    await screen.findByTestId('session-status');
    const mira = card('Mira');
    expect(byTestId(mira, 'card-hp').textContent).toBe('HP 5/20');
    const bar = byTestId(mira, 'hp-bar');
    expect(bar.getAttribute('aria-valuenow')).toBe('5');
    expect(bar.getAttribute('aria-valuemax')).toBe('20');
    expect((bar.querySelector('.hp-fill') as HTMLElement).style.width).toBe('25%');
    expect((bar.querySelector('.hp-temp') as HTMLElement).style.width).toBe('15%');
    expect(byTestId(mira, 'card-temp').textContent).toBe('Temp HP 3');
    expect(byTestId(mira, 'card-conditions').textContent).toContain(en['condition.prone']);

    const w = await nextWait(1);
    await act(async () =>
      w.answer({
        events: [
          ev(2, 'character.changed', {
            subject_seat_id: 9,
            subject_character_id: 3,
            // The document's EventPayload lacks op, before and after yet.
            payload: {
              version: 1,
              character_id: 3,
              seat_id: 9,
              op: 'heal',
              before: { hp: { max: 20, current: 5, temp: 3 }, conditions: ['prone'], resources: [] },
              after: { hp: { max: 20, current: 12, temp: 0 }, conditions: ['poisoned'], resources: [] },
            } satisfies CharacterChangedPayload as EventView['payload'],
          }),
        ],
        cursor: 2,
      }),
    );
    await vi.waitFor(() => expect(byTestId(card('Mira'), 'card-hp').textContent).toBe('HP 12/20'));
    expect(reads).toBe(2);
    expect(within(card('Mira')).queryByTestId('card-temp')).toBeNull();
    expect(byTestId(card('Mira'), 'card-conditions').textContent).toContain(en['condition.poisoned']);
    expect(screen.getAllByTestId('log-line').some((l) => l.textContent?.includes('Mira is healed: HP 12/20'))).toBe(true);
  });

  it('the DM damages, heals and changes conditions on any card', async () => {
    stubServer({
      'GET /api/sessions/12': () => json(200, resume('dm')),
      'GET /api/sessions/12/rolls': () => json(200, board()),
      'POST /api/sessions/12/character-state': (body) => {
        const b = body as { op: string };
        if (b.op === 'heal') return apiError(422, 'character_state_invalid');
        return json(200, { character_id: 4, seat_id: 10, op: b.op, before: {}, after: {} });
      },
    });
    renderApp();
    await screen.findByTestId('session-status');
    const nox = card('Nox');
    fireEvent.change(within(nox).getByLabelText('Amount for Nox'), { target: { value: '4' } });
    fireEvent.change(within(nox).getByLabelText('Damage type for Nox'), { target: { value: 'fire' } });
    await click(within(nox).getByRole('button', { name: en['card.damage'] }));
    // typed damage, for the character's resistances
    expect(callsTo('POST', '/api/sessions/12/character-state')[0]!.body).toEqual({ subject_seat_id: 10, op: 'damage', amount: 4, damage_type: 'fire' });
    // the card reads the resume again
    await vi.waitFor(() => expect(callsTo('GET', '/api/sessions/12').length).toBeGreaterThanOrEqual(2));
    fireEvent.change(within(card('Nox')).getByLabelText('Condition for Nox'), { target: { value: 'poisoned' } });
    await click(within(card('Nox')).getByRole('button', { name: en['card.addCondition'] }));
    expect(callsTo('POST', '/api/sessions/12/character-state')[1]!.body).toEqual({ subject_seat_id: 10, op: 'add_condition', condition: 'poisoned' });
    await click(within(card('Nox')).getByRole('button', { name: 'Remove Prone' }));
    expect(callsTo('POST', '/api/sessions/12/character-state')[2]!.body).toEqual({ subject_seat_id: 10, op: 'remove_condition', condition: 'prone' });
    fireEvent.change(within(card('Nox')).getByLabelText('Amount for Nox'), { target: { value: '2' } });
    await click(within(card('Nox')).getByRole('button', { name: en['card.heal'] }));
    expect((await within(card('Nox')).findByRole('alert')).textContent).toContain(errorsEn.character_state_invalid);
  });

  it('a player heals, sets temp HP and spends resources on their own card only; refusals are translated', async () => {
    stubServer({
      'GET /api/sessions/12': () => json(200, resume('player')),
      'GET /api/sessions/12/rolls': () => json(200, board()),
      'GET /api/characters/3': () => json(200, { id: 3, name: 'Mira', resources: [{ name: 'Ki', current: 2, max: 3 }] }),
      'POST /api/sessions/12/character-state': (body) => {
        const b = body as { op: string };
        if (b.op === 'set_temp_hp') return apiError(403, 'character_state_forbidden');
        return json(200, {
          character_id: 3,
          seat_id: 9,
          op: b.op,
          before: { hp: { max: 20, current: 14, temp: 0 }, conditions: [], resources: [{ name: 'Ki', current: 2, max: 3 }] },
          after: { hp: { max: 20, current: 14, temp: 0 }, conditions: [], resources: [{ name: 'Ki', current: 1, max: 3 }] },
        });
      },
    });
    renderApp();
    await screen.findByTestId('session-status');
    expect(within(card('Nox')).queryByTestId('card-controls')).toBeNull();
    const mira = card('Mira');
    expect(within(mira).queryByRole('button', { name: en['card.damage'] })).toBeNull();
    expect(within(mira).queryByRole('button', { name: 'Remove Prone' })).toBeNull();
    fireEvent.change(within(mira).getByLabelText('Amount for Mira'), { target: { value: '3' } });
    await click(within(mira).getByRole('button', { name: en['card.heal'] }));
    expect(callsTo('POST', '/api/sessions/12/character-state')[0]!.body).toEqual({ subject_seat_id: 9, op: 'heal', amount: 3 });
    fireEvent.change(within(card('Mira')).getByLabelText('Amount for Mira'), { target: { value: '5' } });
    await click(within(card('Mira')).getByRole('button', { name: en['card.setTemp'] }));
    expect(callsTo('POST', '/api/sessions/12/character-state')[1]!.body).toEqual({ subject_seat_id: 9, op: 'set_temp_hp', amount: 5 });
    expect((await within(card('Mira')).findByRole('alert')).textContent).toContain(errorsEn.character_state_forbidden);

    // resources: read from the own character when opened
    const details = card('Mira').querySelector('details')!;
    await act(async () => {
      details.open = true;
      fireEvent(details, new Event('toggle'));
    });
    const ki = await within(card('Mira')).findByTestId('resource');
    expect(ki.textContent).toContain('Ki 2/3');
    await click(within(ki).getByRole('button', { name: 'Spend one Ki' }));
    expect(callsTo('POST', '/api/sessions/12/character-state')[2]!.body).toEqual({ subject_seat_id: 9, op: 'spend_resource', resource: 'Ki', amount: 1 });
    await vi.waitFor(() => expect(within(card('Mira')).getByTestId('resource').textContent).toContain('Ki 1/3'));
  });
});

// ---- pending actions -----------------------------------------------------------

describe('pending actions', () => {
  it('a player declares an action into the open window; can withdraw their own', async () => {
    stubServer({
      'GET /api/sessions/12': () => json(200, resume('player')),
      'GET /api/sessions/12/rolls': () =>
        json(200, board({ windows: [{ id: 1, prompt: 'What does everyone do?', status: 'open', created_at: T0 }], pending_actions: [action({ window_id: 1 })] })),
      'POST /api/sessions/12/pending-actions': () => json(201, action({ id: 3, text: 'I guard the rear', window_id: 1 })),
      'POST /api/pending-actions/2/transition': () => json(200, action({ status: 'cancelled' })),
    });
    renderApp();
    const bar = await screen.findByTestId('prompt-bar');
    expect(byTestId(bar, 'window-prompt').textContent).toContain('What does everyone do?');
    fireEvent.change(screen.getByLabelText(en['table.input.message']), { target: { value: 'I guard the rear' } });
    await click(screen.getByRole('button', { name: en['table.input.declare'] }));
    expect(callsTo('POST', '/api/sessions/12/pending-actions')[0]!.body).toEqual({ text: 'I guard the rear', window_id: 1 });
    expect((screen.getByLabelText(en['table.input.message']) as HTMLInputElement).value).toBe('');
    await tab(en['table.tab.actions']);
    const line = screen.getByTestId('pending-action');
    expect(byTestId(line, 'action-status').textContent).toBe(en['actions.status.pending']);
    expect(within(line).queryByRole('button', { name: en['actions.move.processing'] })).toBeNull();
    await click(within(line).getByRole('button', { name: en['actions.move.cancelMine'] }));
    expect(callsTo('POST', '/api/pending-actions/2/transition')[0]!.body).toEqual({ to: 'cancelled' });
  });

  it('the DM moves actions; an illegal move shows the translated error; "Request check" links the action', async () => {
    stubServer({
      'GET /api/sessions/12': () => json(200, resume('dm')),
      'GET /api/sessions/12/rolls': () => json(200, board({ pending_actions: [action({ subject_seat_id: 10, subject_character_id: 4 })] })),
      'POST /api/pending-actions/2/transition': (body) =>
        (body as { to: string }).to === 'resolved'
          ? apiError(409, 'pending_action_invalid_transition')
          : json(200, action({ status: 'processing' })),
      'POST /api/sessions/12/checks': () => json(201, { group_id: 5, requests: [] }),
      'POST /api/sessions/12/action-windows': () => json(201, { id: 1, prompt: 'What does everyone do?', status: 'open', created_at: T0 }),
    });
    renderApp();
    await screen.findByTestId('session-status');
    await tab(en['table.tab.actions']);
    await vi.waitFor(() => expect(screen.getAllByTestId('pending-action')).toHaveLength(1));
    const line = () => screen.getByTestId('pending-action');
    expect(line().textContent).toContain('Nox');
    await click(within(line()).getByRole('button', { name: en['actions.move.resolved'] }));
    expect(callsTo('POST', '/api/pending-actions/2/transition')[0]!.body).toEqual({ to: 'resolved' });
    expect((await within(line()).findByRole('alert')).textContent).toContain(errorsEn.pending_action_invalid_transition);
    fireEvent.change(screen.getByLabelText('Language'), { target: { value: 'zh-TW' } });
    expect(within(line()).getByRole('alert').textContent).toContain(errorsZhTW.pending_action_invalid_transition);
    fireEvent.change(screen.getByLabelText(zhTW['lang.label']), { target: { value: 'en' } });
    await click(within(line()).getByRole('button', { name: en['actions.move.processing'] }));
    expect(callsTo('POST', '/api/pending-actions/2/transition')[1]!.body).toEqual({ to: 'processing' });

    await click(within(line()).getByRole('button', { name: en['check.request'] }));
    const dialog = screen.getByRole('dialog');
    expect((within(dialog).getByLabelText('Nox') as HTMLInputElement).checked).toBe(true);
    expect((within(dialog).getByLabelText('Mira') as HTMLInputElement).checked).toBe(false);
    await click(within(dialog).getByRole('button', { name: en['check.dialog.send'] }));
    expect(callsTo('POST', '/api/sessions/12/checks')[0]!.body).toEqual({
      seat_ids: [10],
      skill: 'perception',
      mode: 'normal',
      flat_adjustment: 0,
      reveal_outcome: false,
      private: false,
      pending_action_id: 2,
    });

    // "What does everyone do?" opens an action window
    await click(screen.getByRole('button', { name: en['actions.window.open'] }));
    expect(callsTo('POST', '/api/sessions/12/action-windows')[0]!.body).toEqual({ prompt: en['actions.window.open'] });
  });
});

describe('zh-TW', () => {
  it('the dice panel and the player card speak Chinese', async () => {
    localStorage.setItem('adventure-table.language', 'zh-TW');
    stubServer({
      'GET /api/sessions/12': () => json(200, resume('player')),
      'GET /api/sessions/12/rolls': () => json(200, board({ requests: [request()] })),
    });
    renderApp();
    const bar = await screen.findByTestId('prompt-bar');
    expect(within(bar).getByRole('button', { name: zhTW['check.roll'] })).toBeTruthy();
    expect(within(bar).getByRole('button', { name: zhTW['check.enter'] })).toBeTruthy();
    expect(screen.getByRole('tab', { name: zhTW['table.tab.dice'] })).toBeTruthy();
  });
});

// ---- the table feed: roll and check cards, in place --------------------------

const NAT20_AUDIT = advantageAudit(20, 1);

const requested = (seq: number, over: Record<string, unknown> = {}) =>
  ev(seq, 'roll.requested', {
    visibility: 'public',
    subject_seat_id: 9,
    subject_character_id: 3,
    payload: {
      version: 1,
      request_id: 31,
      group_id: 4,
      label: 'Perception',
      request_type: 'skill',
      ability: 'wis',
      skill: 'perception',
      mode: 'advantage',
      flat_adjustment: 0,
      reveal_outcome: false,
      ...over,
    },
  });

describe('table feed', () => {
  it('a check is one card in the feed that resolves in place, with every die, the total and a natural 20', async () => {
    stubServer({
      'GET /api/sessions/12': () =>
        json(200, resume('player', { cursor: 2, recent_events: [ev(1, 'session.started', { acting_seat_id: 8 }), requested(2)] })),
      'GET /api/sessions/12/rolls': () => json(200, board({ requests: [request()] })),
    });
    renderApp();
    await screen.findByTestId('session-status');
    const feed = screen.getByTestId('chat');
    const card = await within(feed).findByTestId('feed-check');
    expect(card.getAttribute('data-status')).toBe('pending');
    expect(card.textContent).toContain('Mira');
    expect(card.textContent).toContain('Perception');
    expect(card.textContent).toContain(en['check.mode.advantage']);
    // the player never sees the DC; their own pending check carries its answer in the feed
    await within(card).findByRole('button', { name: en['check.roll'] });
    expect(within(card).getByRole('button', { name: en['check.enter'] })).toBeTruthy();
    expect(card.textContent).not.toContain('DC');

    const w = await nextWait(1);
    await act(async () =>
      w.answer({
        events: [
          ev(3, 'roll.resolved', {
            visibility: 'public',
            subject_seat_id: 9,
            payload: { version: 1, request_id: 31, result: result({ id: 60, audit: NAT20_AUDIT, raw_dice: [20, 1], total: 23 }) },
          }),
        ],
        cursor: 3,
      }),
    );
    await vi.waitFor(() => expect(within(feed).getByTestId('feed-check').getAttribute('data-status')).toBe('resolved'));
    // one card: the roll.resolved line is not repeated below it
    expect(within(feed).getAllByTestId('feed-check')).toHaveLength(1);
    expect(within(feed).queryAllByTestId('roll-card')).toHaveLength(0);
    const done = within(feed).getByTestId('feed-check');
    expect(byTestId(done, 'feed-check-total').textContent).toBe('23');
    expect(done.getAttribute('data-natural')).toBe('20');
    expect(done.className).toContain('is-nat20');
    const dice = within(done).getAllByTestId('die');
    expect(dice.map((d) => [d.textContent, d.getAttribute('data-kept'), d.getAttribute('data-dropped')])).toEqual([
      ['20', 'true', 'false'],
      ['1', 'false', 'true'],
    ]);
    expect(dice[0]!.className).toContain('is-nat20');
    // a dropped 1 is no fumble
    expect(dice[1]!.className).not.toContain('is-nat1');
  });

  it('quick rolls are roll cards in the feed, in order with the chat; a kept 1 on a d20 is a natural 1', async () => {
    stubServer({
      'GET /api/sessions/12': () => json(200, resume('player')),
      'GET /api/sessions/12/rolls': () => json(200, board()),
    });
    renderApp();
    await screen.findByTestId('session-status');
    const w = await nextWait(1);
    const nat1: DiceAudit = {
      formula: '1d20+5',
      normalized: 'd20 + 5',
      groups: [{ notation: 'd20', sides: 20, dice: [{ value: 1, kept: true, dropped: false }], subtotal: 1 }],
      total: 6,
      min: 6,
      max: 25,
    };
    await act(async () =>
      w.answer({
        events: [
          ev(2, 'message.posted', { acting_seat_id: 9, subject_seat_id: 9, payload: { version: 1, kind: 'character_dialogue', text: 'Here goes' } }),
          ev(3, 'roll.quick', {
            payload: { version: 1, result: result({ id: 80, roll_request_id: null, source: 'quick', formula: 'd20 + 5', audit: nat1, total: 6 }) },
          }),
          ev(4, 'message.posted', { acting_seat_id: 9, subject_seat_id: 9, payload: { version: 1, kind: 'character_dialogue', text: 'Ouch' } }),
        ],
        cursor: 4,
      }),
    );
    const feed = screen.getByTestId('chat');
    const card = await within(feed).findByTestId('roll-card');
    expect(card.getAttribute('data-natural')).toBe('1');
    expect(card.textContent).toContain('d20 + 5');
    expect(card.textContent).toContain(en['dice.quick']);
    expect(byTestId(card, 'feed-roll-total').textContent).toBe('6');
    // the card folds to its total and opens again
    const fold = byTestId(card, 'roll-fold');
    expect(fold.getAttribute('aria-expanded')).toBe('true');
    fireEvent.click(fold);
    expect(card.textContent).not.toContain('d20 + 5');
    expect(byTestId(card, 'feed-roll-total').textContent).toBe('6');
    expect(byTestId(card, 'roll-fold').getAttribute('aria-label')).toBe(en['dice.unfold']);
    fireEvent.click(byTestId(card, 'roll-fold'));
    expect(card.textContent).toContain('d20 + 5');
    // chat, roll, chat: one column in the order it happened
    const order = Array.from(feed.children).map((li) => li.getAttribute('data-kind'));
    expect(order.slice(-3)).toEqual(['character_dialogue', 'roll.quick', 'character_dialogue']);
  });

  it('the DM sees the DC on the feed card; a cancelled check says so in place', async () => {
    stubServer({
      'GET /api/sessions/12': () =>
        json(200, resume('dm', { cursor: 2, recent_events: [ev(1, 'session.started', { acting_seat_id: 8 }), requested(2)] })),
      'GET /api/sessions/12/rolls': () => json(200, board({ requests: [request({ dc: 15 })] })),
    });
    renderApp();
    await screen.findByTestId('session-status');
    const feed = screen.getByTestId('chat');
    await vi.waitFor(() => expect(within(feed).getByTestId('feed-check').textContent).toContain('DC 15'));
    const w = await nextWait(1);
    await act(async () =>
      w.answer({ events: [ev(3, 'roll.cancelled', { subject_seat_id: 9, payload: { version: 1, request_id: 31 } })], cursor: 3 }),
    );
    await vi.waitFor(() => expect(within(feed).getByTestId('feed-check').getAttribute('data-status')).toBe('cancelled'));
    expect(within(feed).queryAllByTestId('log-line').filter((l) => l.getAttribute('data-kind') === 'roll.cancelled')).toHaveLength(0);
  });

  it('a check shows once: the prompt bar leaves out a check the feed shows as a card, and keeps one asked before the loaded feed', async () => {
    stubServer({
      'GET /api/sessions/12': () =>
        json(200, resume('player', { cursor: 2, recent_events: [ev(1, 'session.started', { acting_seat_id: 8 }), requested(2)] })),
      'GET /api/sessions/12/rolls': () =>
        json(200, board({ requests: [request(), request({ id: 33, label: 'Stealth', skill: 'stealth', ability: 'dex', mode: 'normal', dice_needed: 1 })] })),
      'POST /api/roll-requests/31/roll': () => json(200, result({ id: 52, source: 'server', total: 17 })),
    });
    renderApp();
    const bar = await screen.findByTestId('prompt-bar');
    // the older check (no card in the loaded feed) is in the bar, the one in the feed is not
    await vi.waitFor(() => expect(within(bar).getAllByTestId('my-request')).toHaveLength(1));
    expect(byTestId(bar, 'my-request').textContent).toContain('Stealth');
    expect(bar.textContent).not.toContain('Perception');
    // the feed's card takes the answer: one compact row, the hint as the buttons' title
    const card = within(screen.getByTestId('chat')).getByTestId('feed-check');
    const answer = byTestId(card, 'check-answer');
    expect(answer.className).toContain('is-compact');
    const roll = within(answer).getByRole('button', { name: en['check.roll'] });
    expect(roll.getAttribute('title')).toBe(en['check.card.hint']);
    expect(card.textContent).not.toContain(en['check.status.pending']);
    await click(roll);
    expect(callsTo('POST', '/api/roll-requests/31/roll')).toHaveLength(1);
    await vi.waitFor(() => expect(card.getAttribute('data-status')).toBe('resolved'));
    expect(byTestId(card, 'feed-check-total').textContent).toBe('17');
    expect(screen.getByTestId('prompt-bar').textContent).not.toContain('Perception');
  });

  it('the prompt bar keeps only the newest answered check, not a pile', async () => {
    const first = request({ id: 31, status: 'resolved', result: result({ id: 50, roll_request_id: 31 }) });
    let reads = 0;
    stubServer({
      'GET /api/sessions/12': () => json(200, resume('player')),
      'GET /api/sessions/12/rolls': () =>
        json(
          200,
          ++reads === 1
            ? board({ requests: [request({ id: 31 }), request({ id: 32, mode: 'normal', dice_needed: 1 })] })
            : board({ requests: [first, request({ id: 32, status: 'resolved', result: result({ id: 51, roll_request_id: 32, total: 9 }) })] }),
        ),
    });
    renderApp();
    const bar = await screen.findByTestId('prompt-bar');
    await vi.waitFor(() => expect(within(bar).getAllByTestId('my-request')).toHaveLength(2));
    const w = await nextWait(1);
    await act(async () =>
      w.answer({
        events: [ev(2, 'roll.resolved', { visibility: 'public', payload: { version: 1, request_id: 32, result: result({ id: 51, roll_request_id: 32, total: 9 }) } })],
        cursor: 2,
      }),
    );
    await vi.waitFor(() => expect(within(screen.getByTestId('prompt-bar')).getAllByTestId('my-request')).toHaveLength(1));
    expect(byTestId(screen.getByTestId('prompt-bar'), 'request-total').textContent).toBe('9');
  });
});
