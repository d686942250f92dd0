// Chat message edit and delete (own lines within 10 minutes, every line for
// the DM), message.edited / message.deleted applied to the original line, and
// presence (who is online, polled every 20 s while the page is visible).
import { act, fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import errorsEn from '../src/i18n/errors.en.json';
import { en } from '../src/i18n/en';
import { PRESENCE_POLL_MS } from '../src/pages/Session';
import type { EventView } from '../src/table/api';
import { apiError, callsTo, ev, json, msg, nextWait, renderApp, resetEachTest, resume, stubServer } from './fixtures';

const recent = () => new Date(Date.now() - 60_000).toISOString();
const line = (text: string) => {
  const l = screen.getAllByTestId('chat-line').find((x) => within(x).getByTestId('chat-text').textContent === text);
  if (!l) throw new Error(`no chat line ${text}`);
  return l;
};
const edited = (seq: number, messageId: number, text: string, by = 9): EventView =>
  ev(seq, 'message.edited', {
    acting_seat_id: by,
    payload: { version: 1, message_id: messageId, text, edited_at: recent(), edited_by_seat_id: by, roll_result_ids: [] },
  });
const deleted = (seq: number, messageId: number, by = 9): EventView =>
  ev(seq, 'message.deleted', {
    acting_seat_id: by,
    payload: { version: 1, message_id: messageId, deleted_at: recent(), deleted_by_seat_id: by },
  });
const messageView = (id: number, text: string, event: EventView, deletedAt: string | null = null) => ({
  id,
  session_id: 12,
  kind: 'character_dialogue',
  text,
  rolls: [],
  created_at: recent(),
  edited_at: deletedAt ? null : recent(),
  deleted_at: deletedAt,
  deleted_by_seat_id: deletedAt ? 9 : null,
  event,
});
const presence = (online: unknown[] = []) => json(200, { online, ttl_seconds: 90 });

// The player's page (Bob, seat 9): line 2 is his own but old (T0), line 3 his
// own and a minute old, line 4 Nox's (seat 10) and a minute old.
const playerResume = (role: 'dm' | 'player' = 'player') =>
  resume(role, {
    cursor: 4,
    recent_events: [
      ev(1, 'session.started', { acting_seat_id: 8 }),
      msg(2, 'Old line'),
      msg(3, 'My line', {}, { created_at: recent() }),
      msg(4, 'Nox line', {}, { acting_seat_id: 10, subject_seat_id: 10, subject_character_id: 4, created_at: recent() }),
    ],
  });

const tools = (l: HTMLElement) => within(l).queryByTestId('chat-tools');

resetEachTest();

describe('message edit and delete', () => {
  it('a player gets Edit and Delete on their own recent lines only; the DM on every line', async () => {
    stubServer({ 'GET /api/sessions/12': () => json(200, playerResume('player')), 'GET /api/sessions/12/presence': () => presence() });
    const first = renderApp('/sessions/12');
    await screen.findByText('My line');
    expect(tools(line('My line'))).not.toBeNull();
    expect(within(line('My line')).getByRole('button', { name: en['table.msg.edit'] })).toBeTruthy();
    expect(within(line('My line')).getByRole('button', { name: en['table.msg.delete'] })).toBeTruthy();
    expect(tools(line('Old line'))).toBeNull();
    expect(tools(line('Nox line'))).toBeNull();
    first.unmount();

    stubServer({ 'GET /api/sessions/12': () => json(200, playerResume('dm')), 'GET /api/sessions/12/presence': () => presence() });
    renderApp('/sessions/12');
    await screen.findByText('My line');
    for (const text of ['Old line', 'My line', 'Nox line']) expect(tools(line(text))).not.toBeNull();
  });

  it('Edit sends PATCH {text}; the answer’s event shows the new text with an edited mark; Escape cancels', async () => {
    stubServer({
      'GET /api/sessions/12': () => json(200, playerResume()),
      'GET /api/sessions/12/presence': () => presence(),
      'PATCH /api/messages/3': (body) => json(200, messageView(3, (body as { text: string }).text, edited(5, 3, (body as { text: string }).text))),
    });
    renderApp('/sessions/12');
    await screen.findByText('My line');

    // Escape cancels: nothing sent, the text stays
    await act(async () => fireEvent.click(within(line('My line')).getByRole('button', { name: en['table.msg.edit'] })));
    let box = screen.getByLabelText(en['table.msg.editLabel']) as HTMLTextAreaElement;
    expect(box.value).toBe('My line');
    expect(document.activeElement).toBe(box);
    fireEvent.change(box, { target: { value: 'Not this' } });
    await act(async () => fireEvent.keyDown(box, { key: 'Escape' }));
    expect(screen.queryByLabelText(en['table.msg.editLabel'])).toBeNull();
    expect(line('My line')).toBeTruthy();
    expect(callsTo('PATCH', '/api/messages/3')).toHaveLength(0);

    await act(async () => fireEvent.click(within(line('My line')).getByRole('button', { name: en['table.msg.edit'] })));
    box = screen.getByLabelText(en['table.msg.editLabel']) as HTMLTextAreaElement;
    fireEvent.change(box, { target: { value: 'My **better** line' } });
    await act(async () => fireEvent.click(screen.getByRole('button', { name: en['common.save'] })));
    await vi.waitFor(() => expect(callsTo('PATCH', '/api/messages/3')).toHaveLength(1));
    expect(callsTo('PATCH', '/api/messages/3')[0]!.body).toEqual({ text: 'My **better** line' });
    const l = await vi.waitFor(() => line('My better line'));
    expect(within(l).getByTestId('edited-mark').textContent).toContain(en['table.msg.edited']);
    expect(l.querySelector('strong')?.textContent).toBe('better');
    expect(screen.queryByLabelText(en['table.msg.editLabel'])).toBeNull();
    expect(screen.getAllByTestId('chat-text').map((x) => x.textContent)).toEqual(['Old line', 'My better line', 'Nox line']);
  });

  it('edits and deletes by others arrive in the feed and change the original line', async () => {
    stubServer({ 'GET /api/sessions/12': () => json(200, playerResume('dm')), 'GET /api/sessions/12/presence': () => presence() });
    renderApp('/sessions/12');
    await screen.findByText('My line');
    const w = await nextWait(1);
    await act(async () => w.answer({ events: [edited(5, 3, 'Changed by Bob'), deleted(6, 4, 10)], cursor: 6 }));
    const l = await vi.waitFor(() => line('Changed by Bob'));
    expect(within(l).getByTestId('edited-mark')).toBeTruthy();
    expect(l.dataset.edited).toBe('true');
    const gone = screen.getAllByTestId('chat-line').find((x) => x.dataset.seq === '4')!;
    expect(within(gone).getByTestId('chat-text').textContent).toBe(en['table.msg.deleted']);
    expect(gone.dataset.deleted).toBe('true');
    expect(screen.queryByText('Nox line')).toBeNull();
    // a deleted line has no controls, even for the DM; the edit events are no log lines
    expect(tools(gone)).toBeNull();
    expect(screen.queryAllByTestId('log-line').filter((x) => x.dataset.kind?.startsWith('message.'))).toHaveLength(0);
  });

  it('Delete asks first; Yes sends DELETE and the line becomes "Message deleted"', async () => {
    stubServer({
      'GET /api/sessions/12': () => json(200, playerResume()),
      'GET /api/sessions/12/presence': () => presence(),
      'DELETE /api/messages/3': () => json(200, messageView(3, '', deleted(5, 3), recent())),
    });
    renderApp('/sessions/12');
    await screen.findByText('My line');
    await act(async () => fireEvent.click(within(line('My line')).getByRole('button', { name: en['table.msg.delete'] })));
    const confirm = screen.getByTestId('chat-delete-confirm');
    expect(confirm.textContent).toContain(en['table.msg.deleteConfirm']);
    // Cancel sends nothing
    await act(async () => fireEvent.click(within(confirm).getByRole('button', { name: en['common.cancel'] })));
    expect(callsTo('DELETE', '/api/messages/3')).toHaveLength(0);
    await act(async () => fireEvent.click(within(line('My line')).getByRole('button', { name: en['table.msg.delete'] })));
    await act(async () =>
      fireEvent.click(within(screen.getByTestId('chat-delete-confirm')).getByRole('button', { name: en['table.msg.deleteYes'] })),
    );
    await vi.waitFor(() => expect(callsTo('DELETE', '/api/messages/3')).toHaveLength(1));
    const l = await vi.waitFor(() => {
      const x = screen.getAllByTestId('chat-line').find((y) => y.dataset.seq === '3')!;
      expect(x.dataset.deleted).toBe('true');
      return x;
    });
    expect(within(l).getByTestId('chat-text').textContent).toBe(en['table.msg.deleted']);
    expect(screen.queryByText('My line')).toBeNull();
  });

  it('message_not_editable shows its translated text at the line and keeps the editor open', async () => {
    stubServer({
      'GET /api/sessions/12': () => json(200, playerResume()),
      'GET /api/sessions/12/presence': () => presence(),
      'PATCH /api/messages/3': () => apiError(403, 'message_not_editable'),
    });
    renderApp('/sessions/12');
    await screen.findByText('My line');
    await act(async () => fireEvent.click(within(line('My line')).getByRole('button', { name: en['table.msg.edit'] })));
    fireEvent.change(screen.getByLabelText(en['table.msg.editLabel']), { target: { value: 'Too late' } });
    await act(async () => fireEvent.click(screen.getByRole('button', { name: en['common.save'] })));
    const err = await screen.findByTestId('chat-error');
    expect(err.textContent).toBe(errorsEn.message_not_editable);
    expect(err.closest('[data-testid="chat-line"]')?.getAttribute('data-seq')).toBe('3');
    expect(screen.queryByText('SERVER TEXT message_not_editable')).toBeNull();
    expect((screen.getByLabelText(en['table.msg.editLabel']) as HTMLTextAreaElement).value).toBe('Too late');
  });
});

describe('presence', () => {
  const online = [
    { kind: 'human', access_id: 5, seat_id: 8, name: 'Dana', role: 'dm', last_seen: recent() },
    { kind: 'human', access_id: 6, seat_id: 9, name: 'Bob', role: 'player', last_seen: recent() },
    { kind: 'ai', seat_id: 10, name: 'Nox', role: 'player', last_seen: recent() },
    { kind: 'human', access_id: 11, seat_id: null, name: 'Eve', role: 'spectator', last_seen: recent() },
  ];

  it('shows "N online" with names (humans and AI) and an online mark on the seats’ cards', async () => {
    stubServer({ 'GET /api/sessions/12': () => json(200, resume('player')), 'GET /api/sessions/12/presence': () => presence(online.slice(0, 3)) });
    renderApp('/sessions/12');
    const p = await screen.findByTestId('presence');
    expect(within(p).getByTestId('presence-count').textContent).toBe('3 online');
    expect(within(p).getAllByTestId('presence-name').map((x) => x.textContent)).toEqual(['Dana', ', Bob', `, Nox (${en['table.presence.ai']})`]);
    const dm = screen.getByTestId('dm-card');
    expect(within(dm).getByTestId('online').textContent).toContain(en['table.presence.online']);
    for (const card of screen.getAllByTestId('participant')) expect(within(card).queryByTestId('online')).not.toBeNull();
  });

  it('polls every 20 s while the page is visible and stops while it is hidden', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    let answer = online.slice(0, 1);
    stubServer({ 'GET /api/sessions/12': () => json(200, resume('player')), 'GET /api/sessions/12/presence': () => presence(answer) });
    let hidden = false;
    vi.spyOn(document, 'visibilityState', 'get').mockImplementation(() => (hidden ? 'hidden' : 'visible'));
    renderApp('/sessions/12');
    await vi.waitFor(() => expect(screen.getByTestId('presence-count').textContent).toBe('1 online'));
    expect(callsTo('GET', '/api/sessions/12/presence')).toHaveLength(1);
    // not yet
    await act(async () => vi.advanceTimersByTime(PRESENCE_POLL_MS - 1000));
    expect(callsTo('GET', '/api/sessions/12/presence')).toHaveLength(1);
    answer = online;
    await act(async () => vi.advanceTimersByTime(1000));
    expect(callsTo('GET', '/api/sessions/12/presence')).toHaveLength(2);
    await vi.waitFor(() => expect(screen.getByTestId('presence-count').textContent).toBe('4 online'));
    // Nox (seat 10) is an AI seat now online; Eve (a spectator) is listed, no card
    const nox = screen.getAllByTestId('participant').find((c) => c.dataset.seat === 'Seat B')!;
    expect(within(nox).queryByTestId('online')).not.toBeNull();
    // hidden: no reads
    hidden = true;
    await act(async () => {
      document.dispatchEvent(new Event('visibilitychange'));
      vi.advanceTimersByTime(PRESENCE_POLL_MS * 3);
    });
    expect(callsTo('GET', '/api/sessions/12/presence')).toHaveLength(2);
    // shown again: one read at once, then the 20 s rhythm
    hidden = false;
    await act(async () => document.dispatchEvent(new Event('visibilitychange')));
    expect(callsTo('GET', '/api/sessions/12/presence')).toHaveLength(3);
  });
});
