// The Dice tab's roll history: GET /roll-results pages (newest first, "Load
// older" with before), new rolls on top as they arrive, an empty state and a
// failed read. fetch is faked at the boundary; the long-poll is answered by hand.
import { act, fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { en } from '../src/i18n/en';
import type { RollResultView } from '../src/table/api';
import { apiError, callsTo, ev, json, nextWait, renderApp, resetEachTest, resumeAtStart as resume, rollResult, stubServer } from './fixtures';


// roll: Mira's public quick 1d20 unless over says otherwise.
const roll = (id: number, face: number, over: Partial<RollResultView> = {}) => rollResult(id, face, 0, { formula: '1d20', ...over });

const page = (results: RollResultView[], before: number, has_more: boolean) => json(200, { results, before, has_more });
const board = () => json(200, { requests: [], results: [], pending_actions: [], windows: [] });
const click = (el: HTMLElement) => act(async () => fireEvent.click(el));
const entries = () => within(screen.getByTestId('roll-history')).queryAllByTestId('roll-history-entry');
const ids = () => entries().map((e) => Number(e.getAttribute('data-id')));
const historyCalls = () => callsTo('GET', '/api/sessions/12/roll-results');

async function openDice() {
  await screen.findByTestId('session-status');
  await click(screen.getByRole('tab', { name: en['table.tab.dice'] }));
}

resetEachTest();

describe('roll history', () => {
  it('lists the server’s page newest first with who, what, formula, dice, total and tags; Load older pages with before', { timeout: 20_000 }, async () => {
    stubServer({
      'GET /api/sessions/12': () => json(200, resume('player')),
      'GET /api/sessions/12/rolls': board,
      'GET /api/sessions/12/roll-results': (_b, call) =>
        call.query.get('before') === '40'
          ? page([roll(38, 7), roll(35, 3)], 35, false)
          : page(
              [
                roll(45, 20),
                roll(42, 1, { source: 'physical', visibility: 'actor_and_dm', subject_seat_id: 10, subject_character_id: 4, acting_seat_id: 10 }),
                roll(41, 12, { acting_seat_id: 8, subject_seat_id: null, subject_character_id: null, execution_mode: 'self' }),
              ],
              40,
              true,
            ),
    });
    renderApp();
    await openDice();
    await vi.waitFor(() => expect(ids()).toEqual([45, 42, 41]));
    expect(historyCalls()[0]!.query.get('before')).toBeNull();
    // one list: the old "Results" list is gone
    expect(screen.getAllByTestId('roll-history')).toHaveLength(1);
    expect(screen.getByRole('heading', { name: en['dice.history'] })).toBeTruthy();

    const [nat20, nat1, dm] = entries() as [HTMLElement, HTMLElement, HTMLElement];
    expect(within(nat20).getByTestId('roll-who').textContent).toBe('Mira');
    expect(nat20.textContent).toContain(en['dice.quick']);
    expect(within(nat20).getByTestId('roll-formula').textContent).toBe('1d20');
    expect(within(nat20).getAllByTestId('die').map((d) => d.textContent)).toEqual(['20']);
    expect(within(nat20).getByTestId('roll-total').textContent).toBe('20');
    expect(nat20.getAttribute('data-natural')).toBe('20');
    expect(within(nat20).getByTestId('roll-natural').textContent).toBe(en['dice.natural20']);
    expect(nat20.textContent).not.toContain(en['dice.private']);

    expect(within(nat1).getByTestId('roll-who').textContent).toBe('Nox');
    expect(within(nat1).getByTestId('roll-natural').textContent).toBe(en['dice.natural1']);
    expect(nat1.textContent).toContain(en['dice.physical']);
    expect(nat1.textContent).toContain(en['dice.private']);

    expect(within(dm).getByTestId('roll-who').textContent).toBe(en['table.speaker.dm']);
    expect(within(dm).queryByTestId('roll-natural')).toBeNull();

    // older: the next page is read with the answer's before, and added below
    await click(screen.getByTestId('roll-history-more'));
    await vi.waitFor(() => expect(ids()).toEqual([45, 42, 41, 38, 35]));
    expect(historyCalls().at(-1)!.query.get('before')).toBe('40');
    // no more pages: no button
    expect(screen.queryByTestId('roll-history-more')).toBeNull();
    expect(screen.getByTestId('roll-history').textContent).not.toContain(en['dice.history.empty']);
  });

  it('shows a new roll on top as it arrives and reads the newest page again', { timeout: 20_000 }, async () => {
    let newest: RollResultView[] = [roll(41, 12)];
    stubServer({
      'GET /api/sessions/12': () => json(200, resume('player')),
      'GET /api/sessions/12/rolls': board,
      'GET /api/sessions/12/roll-results': (_b, call) =>
        call.query.get('before') === '41' ? page([roll(30, 5)], 30, false) : page(newest, 41, true),
    });
    renderApp();
    await openDice();
    await vi.waitFor(() => expect(ids()).toEqual([41]));
    await click(screen.getByTestId('roll-history-more'));
    await vi.waitFor(() => expect(ids()).toEqual([41, 30]));
    const reads = historyCalls().length;

    // the server now has Nox's roll: its event arrives
    const fresh = roll(50, 9, { subject_seat_id: 10, subject_character_id: 4, acting_seat_id: 10 });
    newest = [fresh, roll(41, 12)];
    const w = await nextWait(1);
    await act(async () => w.answer({ events: [ev(2, 'roll.quick', { acting_seat_id: 10, payload: { version: 1, result: fresh } })], cursor: 2 }));
    await vi.waitFor(() => expect(ids()).toEqual([50, 41, 30]));
    expect(within(entries()[0]!).getByTestId('roll-who').textContent).toBe('Nox');
    // and the newest page was read again (no before); the older page stays
    await vi.waitFor(() => expect(historyCalls().length).toBeGreaterThan(reads));
    expect(historyCalls().at(-1)!.query.get('before')).toBeNull();
    expect(ids()).toEqual([50, 41, 30]);
  });

  it('reads the newest page again when a roll’s outcome is revealed', { timeout: 20_000 }, async () => {
    let success: boolean | undefined;
    stubServer({
      'GET /api/sessions/12': () => json(200, resume('player')),
      'GET /api/sessions/12/rolls': () =>
        json(200, { requests: [], results: [roll(41, 12, { success })], pending_actions: [], windows: [] }),
      'GET /api/sessions/12/roll-results': () => page([roll(41, 12, { success })], 41, false),
    });
    renderApp();
    await openDice();
    await vi.waitFor(() => expect(ids()).toEqual([41]));
    expect(within(entries()[0]!).queryByTestId('check-outcome')).toBeNull();
    const reads = historyCalls().length;
    success = true;
    const w = await nextWait(1);
    await act(async () =>
      w.answer({ events: [ev(2, 'roll.outcome', { payload: { version: 1, request_id: 3, result_id: 41, dc: 10, success: true } })], cursor: 2 }),
    );
    await vi.waitFor(() => expect(historyCalls().length).toBeGreaterThan(reads));
    await vi.waitFor(() => expect(within(entries()[0]!).getByTestId('check-outcome').textContent).toBe(en['check.pass']));
  });

  it('says so when there are no rolls yet, and shows a failed read with Retry', { timeout: 20_000 }, async () => {
    let fail = true;
    stubServer({
      'GET /api/sessions/12': () => json(200, resume('dm')),
      'GET /api/sessions/12/rolls': board,
      'GET /api/sessions/12/roll-results': () => (fail ? apiError(503, 'database_unavailable') : page([], 0, false)),
    });
    renderApp();
    await openDice();
    const panel = screen.getByTestId('dice-panel');
    const alert = await within(panel).findByRole('alert');
    expect(alert.textContent).toContain(en['dice.history.failed']);
    fail = false;
    await click(within(alert).getByRole('button', { name: en['common.retry'] }));
    await vi.waitFor(() => expect(within(panel).queryByRole('alert')).toBeNull());
    expect(within(panel).getByText(en['dice.history.empty'])).toBeTruthy();
    expect(entries()).toHaveLength(0);
    expect(screen.queryByTestId('roll-history-more')).toBeNull();
  });
});
