// The table feed on its own (TableFeed rendered directly): the author's Edit
// and Delete go when the 10-minute window closes, inline [[…]] rolls are
// chips and roll cards, and a pending check card carries its answer.
import { act, cleanup, render, screen, within } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { en } from '../src/i18n/en';
import { I18nProvider } from '../src/i18n/I18nProvider';
import { resetIdentity } from '../src/identity';
import { MESSAGE_EDIT_WINDOW_MS, type EventView } from '../src/table/api';
import { TableFeed, type MessageEditCtx } from '../src/table/Feed';
import { tableNames } from '../src/table/names';
import { msg, resume } from './fixtures';

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
