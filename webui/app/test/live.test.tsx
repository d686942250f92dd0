// The live table (session page): identity bootstrap, event feed, input bar,
// DM proxy, stage editor. fetch is faked at the boundary; the long-poll is a
// request the test answers (or fails) by hand.
import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import errorsEn from '../src/i18n/errors.en.json';
import errorsZhTW from '../src/i18n/errors.zh-TW.json';
import { en } from '../src/i18n/en';
import { resetIdentity } from '../src/identity';
import type { EventView } from '../src/table/api';
import { SIDE_WIDTH_KEY } from '../src/table/useSideWidth';
import { json, apiError, calls, waits, stubServer, callsTo, waitCalls, nextWait, renderApp, T0, seat, ev, msg, participant, resume } from './fixtures';

const chatTexts = () => screen.queryAllByTestId('chat-line').map((l) => within(l).getByTestId('chat-text').textContent);
const line = (text: string) => {
  const l = screen.getAllByTestId('chat-line').find((x) => within(x).getByTestId('chat-text').textContent === text);
  if (!l) throw new Error(`no chat line ${text}`);
  return l;
};
const posted = (e: EventView) => json(201, { message_id: (e.payload as unknown as { message_id: number }).message_id, event: e });
const type = (text: string) => fireEvent.change(screen.getByLabelText(en['table.input.message']), { target: { value: text } });
const click = (name: string) => act(async () => fireEvent.click(screen.getByRole('button', { name })));

beforeEach(() => {
  localStorage.clear();
  resetIdentity();
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

// ---- identity bootstrap --------------------------------------------------

describe('identity bootstrap', () => {
  it('a fresh browser sends GET /api/me alone first, then the page’s calls', async () => {
    let answerMe!: () => void;
    stubServer({
      'GET /api/me': () => new Promise<Response>((r) => (answerMe = () => r(json(200, { id: 1, display_name: 'Guest 1' })))),
      'GET /api/sessions/12': () => json(200, resume('player')),
    });
    renderApp('/sessions/12');
    await vi.waitFor(() => expect(calls.map((c) => c.path)).toEqual(['/api/me']));
    // nothing else goes out while /api/me is unanswered
    await new Promise((r) => setTimeout(r, 50));
    expect(calls.map((c) => c.path)).toEqual(['/api/me']);
    await act(async () => answerMe());
    await screen.findByTestId('session-status');
    expect(calls[1]!.path).toBe('/api/sessions/12');
    // one bootstrap per page load: later identity calls do not repeat it
    expect(callsTo('GET', '/api/me')).toHaveLength(1);
  });

  it('parallel identity calls of one page share the single bootstrap', async () => {
    let answerMe!: () => void;
    stubServer({
      'GET /api/me': () => new Promise<Response>((r) => (answerMe = () => r(json(200, { id: 1, display_name: 'Guest 1' })))),
      'GET /api/rooms/2': () => json(404, { error: { code: 'not_found', message: '' } }),
      'GET /api/characters': () => json(200, { characters: [] }),
    });
    renderApp('/rooms/2');
    await vi.waitFor(() => expect(callsTo('GET', '/api/me')).toHaveLength(1));
    await new Promise((r) => setTimeout(r, 50));
    expect(calls.map((c) => c.path)).toEqual(['/api/me']);
    await act(async () => answerMe());
    await screen.findByRole('alert');
    expect(callsTo('GET', '/api/me')).toHaveLength(1);
    expect(callsTo('GET', '/api/rooms/2')).toHaveLength(1);
  });
});

// ---- event feed ------------------------------------------------------------

describe('event feed', () => {
  it('continues from the resume cursor, dedupes by seq, retries a failed wait from the same cursor', async () => {
    stubServer({ 'GET /api/sessions/12': () => json(200, resume('player')) });
    const { unmount } = renderApp('/sessions/12');
    await screen.findByTestId('session-status');
    expect(chatTexts()).toEqual(['Hello there']);
    expect(screen.getAllByTestId('log-line').map((l) => l.textContent)).toEqual([expect.stringContaining(en['table.event.started'])]);

    const w1 = await nextWait(1);
    expect(w1.after).toBe(2);
    expect(waitCalls()[0]!.query.get('timeout')).toBe('25');
    // seq 2 again (already shown) and a new one
    await act(async () => w1.answer({ events: [msg(2, 'Hello there'), msg(3, 'Second line')], cursor: 3 }));
    await vi.waitFor(() => expect(chatTexts()).toEqual(['Hello there', 'Second line']));

    const w2 = await nextWait(2);
    expect(w2.after).toBe(3);
    await act(async () => w2.failNetwork());
    await vi.waitFor(() => expect(screen.getByTestId('feed-status').getAttribute('data-status')).toBe('reconnecting'));
    expect(screen.getByTestId('feed-status').textContent).toBe(en['table.feed.reconnecting']);

    // the retry asks from the same cursor; the cursor may skip invisible seqs
    const w3 = await nextWait(3);
    expect(w3.after).toBe(3);
    await act(async () => w3.answer({ events: [msg(3, 'Second line'), msg(5, 'Third line')], cursor: 6 }));
    await vi.waitFor(() => expect(chatTexts()).toEqual(['Hello there', 'Second line', 'Third line']));
    expect(screen.getByTestId('feed-status').getAttribute('data-status')).toBe('live');

    // an empty answer (timeout) keeps the returned cursor
    const w4 = await nextWait(4);
    expect(w4.after).toBe(6);
    await act(async () => w4.answer({ events: [], cursor: 6 }));
    const w5 = await nextWait(5);
    expect(w5.after).toBe(6);
    expect(chatTexts()).toEqual(['Hello there', 'Second line', 'Third line']);

    // leaving the page ends the long-poll
    unmount();
    expect(w5.signal?.aborted).toBe(true);
    await new Promise((r) => setTimeout(r, 30));
    expect(waits).toHaveLength(5);
  });

  it('follows the event stream where the browser has EventSource: pages by id, a lost stream catches up and reopens from the cursor, a refusal stops', async () => {
    // A stand-in for the browser's EventSource (jsdom has none); Chromium
    // runs the real one in the browser journeys.
    const opened: FakeEventSource[] = [];
    class FakeEventSource {
      url: string;
      closed = false;
      onmessage: ((m: MessageEvent<string>) => void) | null = null;
      onerror: (() => void) | null = null;
      private refused: ((m: MessageEvent<string>) => void) | null = null;
      constructor(url: string) {
        this.url = url;
        opened.push(this);
      }
      addEventListener(name: string, fn: (m: MessageEvent<string>) => void) {
        if (name === 'refused') this.refused = fn;
      }
      close() {
        this.closed = true;
      }
      page(events: EventView[], cursor: number) {
        this.onmessage?.(new MessageEvent('message', { data: JSON.stringify({ events, cursor, has_more: false }) }));
      }
      fail() {
        this.onerror?.();
      }
      refuse(code: string) {
        this.refused?.(new MessageEvent('refused', { data: JSON.stringify({ error: { code, message: '' } }) }));
      }
    }
    vi.stubGlobal('EventSource', FakeEventSource);
    stubServer({
      'GET /api/sessions/12': () => json(200, resume('player')),
      'GET /api/sessions/12/events': () => json(200, { events: [msg(4, 'Fourth line')], cursor: 4, has_more: false }),
    });
    const { unmount } = renderApp('/sessions/12');
    await screen.findByTestId('session-status');
    await vi.waitFor(() => expect(opened).toHaveLength(1));
    expect(opened[0]!.url).toBe('/api/sessions/12/events/stream?after=2');
    expect(waitCalls()).toHaveLength(0); // no long poll beside the stream

    await act(async () => opened[0]!.page([msg(2, 'Hello there'), msg(3, 'Second line')], 3));
    await vi.waitFor(() => expect(chatTexts()).toEqual(['Hello there', 'Second line']));

    // The stream is lost: one read from the cursor catches up, then a new
    // stream opens from the cursor that read returned.
    await act(async () => opened[0]!.fail());
    expect(opened[0]!.closed).toBe(true);
    await vi.waitFor(() => expect(chatTexts()).toEqual(['Hello there', 'Second line', 'Fourth line']));
    expect(callsTo('GET', '/api/sessions/12/events').map((c) => c.query.get('after'))).toEqual(['3']);
    await vi.waitFor(() => expect(opened).toHaveLength(2), { timeout: 3000 });
    expect(opened[1]!.url).toBe('/api/sessions/12/events/stream?after=4');

    // A refusal while open stops the feed with its code; nothing reopens.
    await act(async () => opened[1]!.refuse('room_access_revoked'));
    await screen.findByText(errorsEn.room_access_revoked);
    expect(screen.queryByTestId('feed-status')).toBeNull();
    expect(opened[1]!.closed).toBe(true);
    unmount();
    expect(opened).toHaveLength(2);
    expect(waitCalls()).toHaveLength(0);
  });

  it('refreshes the resume on participant.joined and session events; applies stage.updated directly', async () => {
    let n = 0;
    const later = resume('player');
    later.participants.push(participant(3, 11, 'Eve', 5, 'Pell'));
    later.seats.push(seat({ id: 11, label: 'Seat C', controller_display_name: 'Eve', character: { id: 5, name: 'Pell', level: 3 } }));
    const ended = resume('player');
    ended.session.status = 'ended';
    stubServer({ 'GET /api/sessions/12': () => json(200, [resume('player'), later, ended][Math.min(n++, 2)]) });
    renderApp('/sessions/12');
    await screen.findByTestId('session-status');
    expect(screen.getAllByTestId('participant')).toHaveLength(2);
    expect(screen.getByTestId('stage-text').textContent).toBe('A dark cave.');

    const w1 = await nextWait(1);
    await act(async () =>
      w1.answer({
        events: [
          ev(3, 'participant.joined', { payload: { version: 1, seat_id: 11, character_id: 5, late: true } }),
          ev(4, 'stage.updated', {
            acting_seat_id: 8,
            payload: { version: 1, revision: 5, text: 'The cave mouth glows.', image_id: 7, image_url: '/api/stage-images/7' },
          }),
        ],
        cursor: 4,
      }),
    );
    await vi.waitFor(() => expect(screen.getAllByTestId('participant')).toHaveLength(3));
    expect(callsTo('GET', '/api/sessions/12')).toHaveLength(2);
    expect(screen.getByTestId('stage-text').textContent).toBe('The cave mouth glows.');
    expect(screen.getByTestId('stage-image').getAttribute('src')).toBe('/api/stage-images/7');
    const log = screen.getAllByTestId('log-line').map((l) => l.textContent);
    expect(log.some((x) => x?.includes('Pell joined the table late.'))).toBe(true);
    expect(log.some((x) => x?.includes(en['table.event.stage']))).toBe(true);

    const w2 = await nextWait(2);
    await act(async () => w2.answer({ events: [ev(5, 'session.ended', { acting_seat_id: 8 })], cursor: 5 }));
    await vi.waitFor(() => expect(screen.getByTestId('session-status').textContent).toBe(en['sessionStatus.ended']));
    expect(screen.getByTestId('input-closed').textContent).toBe(en['table.input.over']);
    // no timer polling: only the events caused the reads
    expect(callsTo('GET', '/api/sessions/12')).toHaveLength(3);
  });

  it('labels speakers: character, DM, DM for …, OOC, and marks whispers with who sees them', async () => {
    const r = resume('dm', {
      recent_events: [
        msg(1, 'We should rest.'),
        msg(2, 'The wind howls.', { kind: 'narration' }, { acting_seat_id: 8, subject_seat_id: null, subject_character_id: null }),
        msg(3, 'brb', { kind: 'ooc' }),
        msg(4, 'Is the door trapped?', { kind: 'whisper_dm' }, { visibility: 'actor_and_dm' }),
        msg(5, 'It is.', { kind: 'whisper_dm', recipient_seat_ids: [9] }, { acting_seat_id: 8, subject_seat_id: null, subject_character_id: null, visibility: 'seat_private' }),
        msg(6, 'Nox kicks the door.', { kind: 'action' }, { acting_seat_id: 8, subject_seat_id: 10, subject_character_id: 4, execution_mode: 'dm_proxy' }),
        msg(7, 'looks around', { kind: 'action', intent: 'search' }),
        msg(8, 'listening', { kind: 'action', intent: 'check', check: 'perception' }),
        msg(9, 'Halt! Who goes there?', { kind: 'narration', speaker: 'Old Tom' }, { acting_seat_id: 8, subject_seat_id: null, subject_character_id: null }),
      ],
      cursor: 9,
    });
    stubServer({ 'GET /api/sessions/12': () => json(200, r) });
    renderApp('/sessions/12');
    await screen.findByTestId('session-status');
    const speaker = (text: string) => within(line(text)).getByTestId('speaker').textContent;
    expect(speaker('We should rest.')).toBe('Mira');
    expect(speaker('The wind howls.')).toBe('DM');
    expect(speaker('brb')).toBe('Mira');
    expect(line('brb').textContent).toContain(en['table.tag.ooc']);
    expect(line('Is the door trapped?').textContent).toContain(en['table.tag.whisperToDm']);
    expect(within(line('Is the door trapped?')).getByTestId('seen-by').textContent).toBe('Only Mira and the DM can see this.');
    expect(speaker('It is.')).toBe('DM');
    expect(line('It is.').textContent).toContain('Whisper to Mira');
    expect(within(line('It is.')).getByTestId('seen-by').textContent).toBe('Only Mira and the DM can see this.');
    expect(speaker('Nox kicks the door.')).toBe('DM for Nox');
    expect(within(line('We should rest.')).queryByTestId('seen-by')).toBeNull();
    expect(line('looks around').textContent).toContain(en['table.tag.search']);
    expect(line('listening').textContent).toContain('Check: Perception');
    expect(speaker('Halt! Who goes there?')).toBe('Old Tom (NPC)');
  });
});

// ---- input bar ---------------------------------------------------------------

describe('a player whose seat is not in the game yet', () => {
  const notJoined = (character: boolean) =>
    resume('player', {
      seats: [
        seat({ id: 8, role: 'dm', label: 'DM', controller_access_id: 5, controller_display_name: 'Dana' }),
        seat({ id: 9, label: 'Seat A', controller_access_id: 6, controller_display_name: 'Bob', ...(character ? { character: { id: 3, name: 'Mira', level: 3 } } : {}) }),
        seat({ id: 10, label: 'Seat B', controller_access_id: 7, controller_display_name: 'Cid', character: { id: 4, name: 'Nox', level: 3 } }),
      ],
      participants: [participant(2, 10, 'Cid', 4, 'Nox')],
    });
  it('is told to choose a character, with the way to the room page', async () => {
    stubServer({ 'GET /api/sessions/12': () => json(200, notJoined(false)) });
    renderApp('/sessions/12');
    const next = await screen.findByTestId('seat-next');
    expect(next.textContent).toContain(en['table.card.pickCharacter']);
    expect(within(next).getByRole('link', { name: en['table.card.toRoom'] }).getAttribute('href')).toBe('/rooms/2');
  });
  it('with a character, is told the DM lets them in', async () => {
    stubServer({ 'GET /api/sessions/12': () => json(200, notJoined(true)) });
    renderApp('/sessions/12');
    expect((await screen.findByTestId('seat-next')).textContent).toContain(en['table.card.waitForDm']);
  });
});

describe('input bar', () => {
  it('quick actions post the right kind and intent with an idempotency key; the answer shows at once', async () => {
    let seq = 10;
    stubServer({
      'GET /api/sessions/12': () => json(200, resume('player')),
      'POST /api/sessions/12/messages': (body) => {
        const b = body as { kind: string; text: string; intent?: string };
        seq += 1;
        return posted(msg(seq, b.text, { kind: b.kind, intent: b.intent ?? '' }));
      },
    });
    renderApp('/sessions/12');
    await screen.findByTestId('session-status');
    const cases: [string, Record<string, unknown>][] = [
      [en['table.input.say'], { kind: 'character_dialogue' }],
      [en['table.input.act'], { kind: 'action' }],
      [en['table.input.search'], { kind: 'action', intent: 'search' }],
      [en['table.input.whisperDm'], { kind: 'whisper_dm' }],
      [en['table.input.ooc'], { kind: 'ooc' }],
    ];
    for (const [i, [button, expected]] of cases.entries()) {
      type(`line ${i}`);
      await click(button);
      const sent = callsTo('POST', '/api/sessions/12/messages')[i]!.body as Record<string, unknown>;
      const { idempotency_key: key, ...rest } = sent;
      expect(rest, button).toEqual({ ...expected, text: `line ${i}` });
      expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect((screen.getByLabelText(en['table.input.message']) as HTMLInputElement).value).toBe('');
    }
    const keys = callsTo('POST', '/api/sessions/12/messages').map((c) => (c.body as { idempotency_key: string }).idempotency_key);
    expect(new Set(keys).size).toBe(5);
    expect(chatTexts()).toEqual(['Hello there', 'line 0', 'line 1', 'line 2', 'line 3', 'line 4']);
    // a player has no whisper targets and no narration
    expect(screen.queryByRole('group', { name: en['table.input.whisperTo'] })).toBeNull();
    expect(screen.queryByRole('button', { name: en['table.input.narrate'] })).toBeNull();
  });

  it('a retried click after a failure reuses the idempotency key; a new message gets a new one', async () => {
    let fail = true;
    stubServer({
      'GET /api/sessions/12': () => json(200, resume('player')),
      'POST /api/sessions/12/messages': (body) => {
        if (fail) {
          fail = false;
          return Promise.reject(new TypeError('Failed to fetch'));
        }
        return posted(msg(20, (body as { text: string }).text));
      },
    });
    renderApp('/sessions/12');
    await screen.findByTestId('session-status');
    type('Once only');
    await click(en['table.input.say']);
    expect(await screen.findByRole('alert')).toBeTruthy();
    await click(en['table.input.say']);
    type('Another');
    await click(en['table.input.say']);
    const keys = callsTo('POST', '/api/sessions/12/messages').map((c) => (c.body as { idempotency_key: string }).idempotency_key);
    expect(keys).toHaveLength(3);
    expect(keys[1]).toBe(keys[0]);
    expect(keys[2]).not.toBe(keys[0]);
    expect(chatTexts().filter((x) => x === 'Once only')).toHaveLength(1);
  });

  it('free text goes to /input with slash hints; unknown_command is shown translated', async () => {
    stubServer({
      'GET /api/sessions/12': () => json(200, resume('player')),
      'POST /api/sessions/12/input': (body) => {
        const text = (body as { text: string }).text;
        if (text.startsWith('/dance')) return apiError(422, 'unknown_command');
        return posted(msg(30, text.replace(/^\/search /, ''), { kind: 'action', intent: 'search' }));
      },
    });
    renderApp('/sessions/12');
    await screen.findByTestId('session-status');
    expect(screen.queryByTestId('slash-hints')).toBeNull();
    type('/');
    const hints = screen.getByTestId('slash-hints');
    expect(within(hints).getAllByRole('button').map((b) => b.textContent)).toEqual(['/action', '/search', '/whisper', '/ooc', '/check']);
    type('/se');
    expect(within(screen.getByTestId('slash-hints')).getAllByRole('button').map((b) => b.textContent)).toEqual(['/search']);
    fireEvent.click(within(screen.getByTestId('slash-hints')).getByRole('button', { name: '/search' }));
    expect((screen.getByLabelText(en['table.input.message']) as HTMLInputElement).value).toBe('/search ');
    type('/search the desk');
    await click(en['table.input.send']);
    const sent = callsTo('POST', '/api/sessions/12/input')[0]!.body as Record<string, unknown>;
    expect(sent).toEqual({ text: '/search the desk', idempotency_key: expect.any(String) });
    expect(callsTo('POST', '/api/sessions/12/messages')).toHaveLength(0);
    expect(chatTexts()).toContain('the desk');

    type('/dance wildly');
    expect(screen.getByTestId('slash-hints').textContent).toContain(en['table.slash.none']);
    await act(async () => fireEvent.submit(screen.getByLabelText(en['table.input.message']).closest('form')!));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain(errorsEn.unknown_command);
    expect(alert.textContent).not.toContain('SERVER TEXT');
    // the text stays so it can be fixed
    expect((screen.getByLabelText(en['table.input.message']) as HTMLInputElement).value).toBe('/dance wildly');
    fireEvent.change(screen.getByLabelText('Language'), { target: { value: 'zh-TW' } });
    expect(screen.getByRole('alert').textContent).toContain(errorsZhTW.unknown_command);
  });

  it('is closed in the lobby and for spectators', async () => {
    const lobby = resume('player');
    lobby.session.status = 'lobby';
    stubServer({ 'GET /api/sessions/12': () => json(200, lobby) });
    renderApp('/sessions/12');
    expect((await screen.findByTestId('input-closed')).textContent).toBe(en['table.input.lobby']);
    expect((screen.getByRole('button', { name: en['table.input.say'] }) as HTMLButtonElement).disabled).toBe(true);
    cleanup();
    const watcher = resume('player');
    watcher.me = { access_id: 9, authority: 'member', seat_id: null, role: 'spectator', controller: 'human', take_back_seat_ids: [] };
    stubServer({ 'GET /api/sessions/12': () => json(200, watcher) });
    renderApp('/sessions/12');
    expect((await screen.findByTestId('input-closed')).textContent).toBe(en['table.input.readOnly']);
  });
});

// ---- the DM ------------------------------------------------------------------

describe('DM', () => {
  it('narrates by default, whispers to a chosen seat, and acts for a player behind a clear banner', async () => {
    let seq = 40;
    stubServer({
      'GET /api/sessions/12': () => json(200, resume('dm')),
      'POST /api/sessions/12/messages': (body) => {
        const b = body as { kind: string; text: string; subject_seat_id?: number };
        seq += 1;
        return b.subject_seat_id
          ? posted(msg(seq, b.text, { kind: b.kind }, { acting_seat_id: 8, subject_seat_id: b.subject_seat_id, subject_character_id: 3, execution_mode: 'dm_proxy' }))
          : posted(msg(seq, b.text, { kind: b.kind }, { acting_seat_id: 8, subject_seat_id: null, subject_character_id: null }));
      },
      'POST /api/sessions/12/input': (body) => {
        const b = body as { text: string };
        seq += 1;
        return posted(msg(seq, b.text, { kind: 'narration' }, { acting_seat_id: 8, subject_seat_id: null, subject_character_id: null }));
      },
    });
    renderApp('/sessions/12');
    await screen.findByTestId('session-status');
    expect(screen.queryByRole('button', { name: en['table.input.say'] })).toBeNull();

    // plain text: narration through /input
    type('Night falls.');
    await click(en['table.input.send']);
    expect(callsTo('POST', '/api/sessions/12/input')[0]!.body).toEqual({ text: 'Night falls.', idempotency_key: expect.any(String) });
    expect(within(line('Night falls.')).getByTestId('speaker').textContent).toBe('DM');

    // the DM's commands include voicing an NPC
    type('/');
    expect(within(screen.getByTestId('slash-hints')).getAllByRole('button').map((b) => b.textContent)).toEqual(['/whisper', '/ooc', '/check', '/npc']);
    type('/n');
    fireEvent.click(within(screen.getByTestId('slash-hints')).getByRole('button', { name: '/npc' }));
    expect((screen.getByLabelText(en['table.input.message']) as HTMLInputElement).value).toBe('/npc ');
    expect(screen.getByTestId('slash-hints').textContent).toContain(en['table.slash.npc']);

    // whisper needs a target
    type('You hear a voice.');
    const whisper = screen.getByRole('button', { name: en['table.input.whisper'] }) as HTMLButtonElement;
    expect(whisper.disabled).toBe(true);
    const chips = screen.getByRole('group', { name: en['table.input.whisperTo'] });
    expect(within(chips).getAllByRole('button').map((o) => o.textContent)).toEqual(['Mira', 'Nox']);
    fireEvent.click(within(chips).getByRole('button', { name: 'Nox' }));
    expect(within(chips).getByRole('button', { name: 'Nox' }).getAttribute('aria-pressed')).toBe('true');
    await click(en['table.input.whisper']);
    expect(callsTo('POST', '/api/sessions/12/messages')[0]!.body).toEqual({
      kind: 'whisper_dm',
      text: 'You hear a voice.',
      to_seat_id: 10,
      idempotency_key: expect.any(String),
    });

    // DM proxy: act as Mira
    expect(screen.queryByTestId('proxy-banner')).toBeNull();
    const mira = screen.getAllByTestId('participant').find((c) => c.getAttribute('data-seat') === 'Seat A')!;
    await act(async () => fireEvent.click(within(mira).getByRole('button', { name: 'Act as Mira' })));
    const banner = screen.getByTestId('proxy-banner');
    expect(banner.textContent).toContain('Acting as Mira');
    expect(within(banner).getByRole('button', { name: en['table.proxy.stop'] })).toBeTruthy();
    type('Mira draws her sword.');
    await click(en['table.input.act']);
    expect(callsTo('POST', '/api/sessions/12/messages')[1]!.body).toEqual({
      kind: 'action',
      text: 'Mira draws her sword.',
      subject_seat_id: 9,
      idempotency_key: expect.any(String),
    });
    expect(within(line('Mira draws her sword.')).getByTestId('speaker').textContent).toBe('DM for Mira');
    type('Hold!');
    await click(en['table.input.send']);
    expect(callsTo('POST', '/api/sessions/12/input')[1]!.body).toEqual({
      text: 'Hold!',
      subject_seat_id: 9,
      idempotency_key: expect.any(String),
    });

    // Stop: back to the DM's own voice
    await act(async () => fireEvent.click(within(screen.getByTestId('proxy-banner')).getByRole('button', { name: en['table.proxy.stop'] })));
    expect(screen.queryByTestId('proxy-banner')).toBeNull();
    type('The sun rises.');
    await click(en['table.input.narrate']);
    expect(callsTo('POST', '/api/sessions/12/messages')[2]!.body).toEqual({
      kind: 'narration',
      text: 'The sun rises.',
      idempotency_key: expect.any(String),
    });
    // proxying never touched a seat
    expect(calls.some((c) => c.path.startsWith('/api/seats/'))).toBe(false);
  });

  it('a player gets no Act as control and no stage editor', async () => {
    stubServer({ 'GET /api/sessions/12': () => json(200, resume('player')) });
    renderApp('/sessions/12');
    await screen.findByTestId('session-status');
    expect(screen.queryByRole('button', { name: /Act as/ })).toBeNull();
    expect(screen.queryByRole('button', { name: en['table.stage.edit'] })).toBeNull();
    expect(screen.queryByLabelText(en['table.stage.upload'])).toBeNull();
  });
});

// ---- stage -------------------------------------------------------------------

describe('stage editor', () => {
  it('sends the revision it read; on stage_revision_conflict shows the error, reloads, and retries with the new revision', async () => {
    let reads = 0;
    const newer = resume('dm');
    newer.stage = { text: 'Someone else wrote this.', image_id: null, image_url: null, revision: 5, updated_at: T0 };
    stubServer({
      'GET /api/sessions/12': () => json(200, ++reads === 1 ? resume('dm') : newer),
      'PUT /api/sessions/12/stage': (body) => {
        const b = body as { text: string; image_id: number | null; revision: number };
        if (b.revision === 4) return apiError(409, 'stage_revision_conflict');
        return json(200, { ...b, image_url: null, revision: b.revision + 1, updated_at: T0 });
      },
    });
    renderApp('/sessions/12');
    await screen.findByTestId('session-status');
    await click(en['table.stage.edit']);
    const area = screen.getByLabelText(en['table.stage.text']) as HTMLTextAreaElement;
    expect(area.value).toBe('A dark cave.');
    fireEvent.change(area, { target: { value: 'A bright cave.' } });
    await click(en['table.stage.save']);
    expect(callsTo('PUT', '/api/sessions/12/stage')[0]!.body).toEqual({ text: 'A bright cave.', image_id: null, revision: 4 });
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain(errorsEn.stage_revision_conflict);
    expect(alert.textContent).not.toContain('SERVER TEXT');
    // reloaded: the other writer's stage shows, the draft is kept
    await vi.waitFor(() => expect(screen.getByTestId('stage-text').textContent).toBe('Someone else wrote this.'));
    expect(reads).toBe(2);
    expect((screen.getByLabelText(en['table.stage.text']) as HTMLTextAreaElement).value).toBe('A bright cave.');
    await click(en['table.stage.save']);
    expect(callsTo('PUT', '/api/sessions/12/stage')[1]!.body).toEqual({ text: 'A bright cave.', image_id: null, revision: 5 });
    await vi.waitFor(() => expect(screen.getByTestId('stage-text').textContent).toBe('A bright cave.'));
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('uploads the file as raw bytes, then puts the image on the stage with the revision; clears it again', async () => {
    stubServer({
      'GET /api/sessions/12': () => json(200, resume('dm')),
      'POST /api/sessions/12/stage/images': () =>
        json(201, { id: 7, mime_type: 'image/png', byte_size: 68, width: 1, height: 1, url: '/api/stage-images/7' }),
      'PUT /api/sessions/12/stage': (body) => {
        const b = body as { text: string; image_id: number | null; revision: number };
        return json(200, { ...b, image_url: b.image_id ? `/api/stage-images/${b.image_id}` : null, revision: b.revision + 1, updated_at: T0 });
      },
    });
    renderApp('/sessions/12');
    await screen.findByTestId('session-status');
    const file = new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], 'map.png', { type: 'image/png' });
    await act(async () => fireEvent.change(screen.getByLabelText(en['table.stage.upload']), { target: { files: [file] } }));
    await vi.waitFor(() => expect(callsTo('PUT', '/api/sessions/12/stage')).toHaveLength(1));
    expect(callsTo('POST', '/api/sessions/12/stage/images')[0]!.body).toBe(file);
    expect(callsTo('PUT', '/api/sessions/12/stage')[0]!.body).toEqual({ text: 'A dark cave.', image_id: 7, revision: 4 });
    await vi.waitFor(() => expect(screen.getByTestId('stage-image').getAttribute('src')).toBe('/api/stage-images/7'));

    await click(en['table.stage.clearImage']);
    expect(callsTo('PUT', '/api/sessions/12/stage')[1]!.body).toEqual({ text: 'A dark cave.', image_id: null, revision: 5 });
    await vi.waitFor(() => expect(screen.queryByTestId('stage-image')).toBeNull());
  });

  it('shows stage_image_invalid translated', async () => {
    stubServer({
      'GET /api/sessions/12': () => json(200, resume('dm')),
      'POST /api/sessions/12/stage/images': () => apiError(422, 'stage_image_invalid'),
    });
    renderApp('/sessions/12');
    await screen.findByTestId('session-status');
    const file = new File(['not an image'], 'x.png', { type: 'image/png' });
    await act(async () => fireEvent.change(screen.getByLabelText(en['table.stage.upload']), { target: { files: [file] } }));
    expect((await screen.findByRole('alert')).textContent).toContain(errorsEn.stage_image_invalid);
    expect(callsTo('PUT', '/api/sessions/12/stage')).toHaveLength(0);
  });
});

// ---- layout --------------------------------------------------------------------

describe('table layout', () => {
  it('player cards show character, level, HP, conditions and who plays; the DM seat has a card', async () => {
    stubServer({ 'GET /api/sessions/12': () => json(200, resume('player')) });
    renderApp('/sessions/12');
    await screen.findByTestId('session-status');
    expect(screen.getByTestId('dm-card').textContent).toContain('Dana');
    const mira = screen.getAllByTestId('participant')[0]!;
    for (const part of ['Mira', 'level 3', 'HP 14/20', en['condition.prone'], 'Bob', en['common.you']]) {
      expect(mira.textContent, part).toContain(part);
    }
  });

  it('the divider resizes the side panel and the width is remembered', async () => {
    localStorage.setItem(SIDE_WIDTH_KEY, '400');
    stubServer({ 'GET /api/sessions/12': () => json(200, resume('player')) });
    renderApp('/sessions/12');
    await screen.findByTestId('session-status');
    const divider = screen.getByRole('separator', { name: en['table.resize'] });
    expect(divider.getAttribute('aria-valuenow')).toBe('400');
    fireEvent.keyDown(divider, { key: 'ArrowLeft' });
    expect(divider.getAttribute('aria-valuenow')).toBe('424');
    expect(localStorage.getItem(SIDE_WIDTH_KEY)).toBe('424');
    expect((screen.getByTestId('divider').parentElement as HTMLElement).style.gridTemplateColumns).toContain('424px');
    cleanup();
    renderApp('/sessions/12');
    await screen.findByTestId('session-status');
    expect(screen.getByRole('separator', { name: en['table.resize'] }).getAttribute('aria-valuenow')).toBe('424');
  });
});
