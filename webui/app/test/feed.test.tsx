// The table feed on its own (TableFeed rendered directly): the author's Edit
// and Delete go when the 10-minute window closes, inline [[…]] rolls are
// chips and roll cards, and a pending check card carries its answer.
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { en } from '../src/i18n/en';
import { I18nProvider } from '../src/i18n/I18nProvider';
import { resetIdentity } from '../src/identity';
import { MESSAGE_EDIT_WINDOW_MS, type EventView, type RollResultView } from '../src/table/api';
import { TableFeed, type CheckAnswerCtx, type MessageEditCtx } from '../src/table/Feed';
import { tableNames } from '../src/table/names';
import { callsTo, checkRequest, ev, json, msg, resume, rollResult, stubServer, T0 } from './fixtures';

const names = tableNames(resume('player'));
const wrap = (node: ReactNode) => <I18nProvider>{node}</I18nProvider>;
const lineOf = (text: string) => {
  const l = screen.getAllByTestId('chat-line').find((x) => within(x).getByTestId('chat-text').textContent === text);
  if (!l) throw new Error(`no chat line ${text}`);
  return l;
};
const tools = (text: string) => within(lineOf(text)).queryByTestId('chat-tools');

beforeEach(() => {
  localStorage.clear();
  resetIdentity();
});

afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('edit window', () => {
  it('the author’s Edit and Delete vanish when the 10 minutes are up, with no new event; the DM keeps them', () => {
    vi.useFakeTimers({ now: new Date('2026-01-01T10:00:00Z') });
    // Bob's line, posted 9 minutes ago; Nox's line (seat 10)
    const events: EventView[] = [
      msg(2, 'Bob line', {}, { created_at: '2026-01-01T09:51:00Z' }),
      msg(3, 'Nox line', {}, { acting_seat_id: 10, subject_seat_id: 10, subject_character_id: 4, created_at: '2026-01-01T09:59:00Z' }),
    ];
    const player: MessageEditCtx = { isDM: false, mySeatId: 9, onEvent: () => {} };
    const dm: MessageEditCtx = { isDM: true, mySeatId: 8, onEvent: () => {} };
    const view = render(wrap(<TableFeed events={events} names={names} edit={player} />));
    expect(tools('Bob line')).not.toBeNull();
    expect(tools('Nox line')).toBeNull();

    act(() => vi.advanceTimersByTime(MESSAGE_EDIT_WINDOW_MS - 9 * 60_000 - 1000));
    expect(tools('Bob line')).not.toBeNull();
    act(() => vi.advanceTimersByTime(2000));
    expect(tools('Bob line')).toBeNull();
    expect(within(lineOf('Bob line')).queryByRole('button', { name: en['table.msg.edit'] })).toBeNull();

    // the DM: every line, for ever
    view.rerender(wrap(<TableFeed events={events} names={names} isDM edit={dm} />));
    act(() => vi.advanceTimersByTime(60 * 60_000));
    expect(tools('Bob line')).not.toBeNull();
    expect(tools('Nox line')).not.toBeNull();
  });

  it('clears its timer when the line goes away', () => {
    vi.useFakeTimers({ now: new Date('2026-01-01T10:00:00Z') });
    const events = [msg(2, 'Bob line', {}, { created_at: '2026-01-01T09:59:00Z' })];
    const view = render(wrap(<TableFeed events={events} names={names} edit={{ isDM: false, mySeatId: 9, onEvent: () => {} }} />));
    expect(vi.getTimerCount()).toBeGreaterThan(0);
    view.unmount();
    expect(vi.getTimerCount()).toBe(0);
  });
});

const chips = (root: HTMLElement) =>
  within(root)
    .queryAllByTestId('inline-roll')
    .map((c) => [c.getAttribute('data-index'), c.textContent, c.getAttribute('data-natural')]);

describe('inline rolls', () => {
  it('the i-th [[…]] marker is a chip for rolls[i], in Markdown and in code; every roll is a card under the line', () => {
    const rolls = [rollResult(70, 20, 2), rollResult(71, 1), rollResult(72, 9, 5)];
    const text = 'I **swing [[1d20+2]]** and `[[1d20]]` then [[ 1d20+5 ]] — [[2d6]] stays text';
    render(wrap(<TableFeed events={[msg(2, text, { rolls })]} names={names} />));
    const line = screen.getByTestId('chat-line');
    const shown = within(line).getByTestId('chat-text');
    expect(chips(shown)).toEqual([
      ['0', 'd20 + 2 → 22', '20'],
      ['1', 'd20 + 0 → 1', '1'],
      ['2', 'd20 + 5 → 14', null],
    ]);
    // Markdown still applies around the chips: the first is in bold, the second in code
    expect(shown.querySelector('strong')!.contains(within(shown).getAllByTestId('inline-roll')[0]!)).toBe(true);
    expect(shown.querySelector('code:not(.roll-formula)')!.contains(within(shown).getAllByTestId('inline-roll')[1]!)).toBe(true);
    expect(shown.textContent).toContain('[[2d6]] stays text');
    expect(shown.textContent).not.toContain('[[1d20+2]]');
    expect(within(shown).getAllByTestId('inline-roll')[0]!.className).toContain('is-nat20');
    // one card per roll, in order, inside the chat line
    const cards = within(line).getAllByTestId('roll-card');
    expect(cards.map((c) => within(c).getByTestId('feed-roll-total').textContent)).toEqual(['22', '1', '14']);
    expect(cards.map((c) => c.getAttribute('data-natural'))).toEqual(['20', '1', null]);
  });

  it('typed token characters draw no chip; a line without rolls shows its markers as text', () => {
    render(wrap(<TableFeed events={[msg(2, 'odd \uE0000\uE001 [[1d20]]', { rolls: [rollResult(70, 4)] }), msg(3, 'plain [[1d4]]')]} names={names} />));
    const [first, second] = screen.getAllByTestId('chat-line');
    expect(chips(first!)).toEqual([['0', 'd20 + 0 → 4', null]]);
    expect(chips(second!)).toEqual([]);
    expect(within(second!).getByTestId('chat-text').textContent).toBe('plain [[1d4]]');
    expect(within(second!).queryAllByTestId('roll-card')).toHaveLength(0);
  });

  it('an edit rolls nothing again: kept markers keep their rolls, added or changed ones stay text, the cards stay', () => {
    const rolls = [rollResult(70, 12, 2), rollResult(71, 3)];
    const events = [
      msg(2, 'Hit [[1d20+2]] then [[1d20]]', { rolls }),
      ev(3, 'message.edited', {
        acting_seat_id: 9,
        payload: { version: 1, message_id: 2, text: 'Hit [[1d20+2]] then [[1d8]] and [[1d20]]', edited_at: T0, edited_by_seat_id: 9, roll_result_ids: [70, 71] },
      }),
    ];
    render(wrap(<TableFeed events={events} names={names} />));
    const line = screen.getByTestId('chat-line');
    expect(line.getAttribute('data-edited')).toBe('true');
    expect(chips(line.querySelector('[data-testid="chat-text"]')!)).toEqual([['0', 'd20 + 2 → 14', null]]);
    expect(within(line).getByTestId('chat-text').textContent).toContain('[[1d8]] and [[1d20]]');
    expect(within(line).getAllByTestId('roll-card')).toHaveLength(2);
  });
});

// ---- check cards answered in place -----------------------------------------

const asked = ev(2, 'roll.requested', {
  subject_seat_id: 9,
  subject_character_id: 3,
  payload: { version: 1, request_id: 31, group_id: 4, label: 'Perception', request_type: 'skill', ability: 'wis', skill: 'perception', mode: 'normal', flat_adjustment: 0, reveal_outcome: false },
});
const requests = new Map([[31, checkRequest()]]);
const editAs = (isDM: boolean, mySeatId: number): MessageEditCtx => ({ isDM, mySeatId, onEvent: () => {} });
const click = (el: HTMLElement) => act(async () => fireEvent.click(el));
const checkCard = () => screen.getByTestId('feed-check');

describe('check cards', () => {
  it('the targeted player answers on the card itself: Roll calls the roll API and the card resolves in place', async () => {
    stubServer({ 'POST /api/roll-requests/31/roll': () => json(200, rollResult(90, 20, 4, { roll_request_id: 31, source: 'server' })) });
    const got: RollResultView[] = [];
    const reloads: number[] = [];
    const checks: CheckAnswerCtx = { mySeatId: 9, canAct: true, onResult: (r) => got.push(r), reloadBoard: () => reloads.push(1) };
    render(wrap(<TableFeed events={[asked]} names={names} requests={requests} edit={editAs(false, 9)} checks={checks} />));
    const card = checkCard();
    expect(card.getAttribute('data-status')).toBe('pending');
    expect(within(card).getByRole('button', { name: en['check.enter'] })).toBeTruthy();
    expect(within(card).queryByRole('button', { name: en['check.cancelRequest'] })).toBeNull();
    await click(within(card).getByRole('button', { name: en['check.roll'] }));
    expect(callsTo('POST', '/api/roll-requests/31/roll')).toHaveLength(1);
    expect(callsTo('POST', '/api/roll-requests/31/roll')[0]!.body).toEqual({ idempotency_key: expect.any(String) });
    expect(got.map((r) => r.id)).toEqual([90]);
    expect(reloads).toHaveLength(1);
    // one card, resolved in place, its buttons gone
    expect(screen.getAllByTestId('feed-check')).toHaveLength(1);
    expect(checkCard().getAttribute('data-status')).toBe('resolved');
    expect(within(checkCard()).getByTestId('feed-check-total').textContent).toBe('24');
    expect(within(checkCard()).queryByRole('button')).toBeNull();
  });

  it('Enter my dice sends the faces from the card', async () => {
    stubServer({ 'POST /api/roll-requests/31/physical': () => json(200, rollResult(91, 13, 0, { roll_request_id: 31, source: 'physical' })) });
    render(wrap(<TableFeed events={[asked]} names={names} requests={requests} edit={editAs(false, 9)} />));
    await click(within(checkCard()).getByRole('button', { name: en['check.enter'] }));
    fireEvent.change(within(checkCard()).getByLabelText('Die 1'), { target: { value: '13' } });
    await click(within(checkCard()).getByRole('button', { name: en['check.faces.send'] }));
    expect((callsTo('POST', '/api/roll-requests/31/physical')[0]!.body as { faces: number[] }).faces).toEqual([13]);
    expect(checkCard().getAttribute('data-status')).toBe('resolved');
  });

  it('another player, a spectator and a finished session get no live answer', () => {
    const view = render(wrap(<TableFeed events={[asked]} names={names} requests={requests} edit={editAs(false, 10)} />));
    expect(within(checkCard()).queryByRole('button')).toBeNull();
    view.rerender(wrap(<TableFeed events={[asked]} names={names} requests={requests} />));
    expect(within(checkCard()).queryByRole('button')).toBeNull();
    view.rerender(wrap(<TableFeed events={[asked, ev(3, 'session.ended')]} names={names} requests={requests} edit={editAs(false, 9)} />));
    expect((within(checkCard()).getByRole('button', { name: en['check.roll'] }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('the DM gets Cancel request on the card (no Roll for them here); the card says cancelled at once', async () => {
    stubServer({ 'POST /api/roll-requests/31/cancel': () => json(200, checkRequest({ status: 'cancelled' })) });
    render(wrap(<TableFeed events={[asked]} names={names} isDM requests={requests} edit={editAs(true, 8)} />));
    const card = checkCard();
    expect(within(card).queryByRole('button', { name: en['check.roll'] })).toBeNull();
    await click(within(card).getByRole('button', { name: en['check.cancelRequest'] }));
    expect(callsTo('POST', '/api/roll-requests/31/cancel')).toHaveLength(1);
    expect(checkCard().getAttribute('data-status')).toBe('cancelled');
    expect(within(checkCard()).queryByRole('button')).toBeNull();
  });
});

describe('narration being written', () => {
  it('a narrator’s draft shows at the foot of the feed, for the DM seat in the narration style, and goes once its line is posted', () => {
    const dmSeat = names.dmSeatId;
    const before: EventView[] = [msg(2, 'Bob line', {})];
    const view = render(wrap(<TableFeed events={before} names={names} drafts={[{ seatId: dmSeat, text: 'The stranger' }]} />));
    const draft = screen.getByTestId('narrator-draft');
    expect(draft.textContent).toBe(`${en['table.speaker.dm']}${en['narrator.state.writing']}The stranger`);
    expect(draft.className).toContain('kind-narration');
    expect(draft.getAttribute('aria-hidden')).toBe('true');
    // the posted line replaces it even while the server still reports the draft
    const posted = [...before, msg(3, 'The stranger leans close.', {}, { acting_seat_id: dmSeat, subject_seat_id: dmSeat })];
    view.rerender(wrap(<TableFeed events={posted} names={names} drafts={[{ seatId: dmSeat, text: 'The stranger' }]} />));
    expect(screen.queryByTestId('narrator-draft')).toBeNull();
    // an older line of that seat does not hide its next draft
    view.rerender(wrap(<TableFeed events={posted} names={names} drafts={[{ seatId: dmSeat, text: 'Thunder' }]} />));
    expect(screen.getByTestId('narrator-draft').textContent).toContain('Thunder');
  });
});
