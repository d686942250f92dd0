// The chat box (a textarea: Enter sends, Shift+Enter breaks the line),
// Markdown in chat lines and on the stage, the confirmations before End and
// Abandon, and the page titles.
import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { en } from '../src/i18n/en';
import { zhTW } from '../src/i18n/zh-TW';
import { resetIdentity } from '../src/identity';
import type { EventView, SessionResume } from '../src/table/api';
import { namedWhisper } from '../src/table/InputBar';
import { json, callsTo, nextWait, renderApp, resume, msg, stubServer } from './fixtures';

const posted = (e: EventView) => json(201, { message_id: (e.payload as unknown as { message_id: number }).message_id, event: e });
const box = () => screen.getByLabelText(en['table.input.message']) as HTMLTextAreaElement;

beforeEach(() => {
  localStorage.clear();
  resetIdentity();
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('chat box', () => {
  it('is a textarea: Enter sends, Shift+Enter keeps a new line, it grows with its lines', { timeout: 20_000 }, async () => {
    let seq = 10;
    stubServer({
      'GET /api/sessions/12': () => json(200, resume('player')),
      'POST /api/sessions/12/input': (body) => {
        seq += 1;
        return posted(msg(seq, (body as { text: string }).text));
      },
    });
    renderApp('/sessions/12');
    await screen.findByTestId('session-status');
    expect(box().tagName).toBe('TEXTAREA');
    expect(box().rows).toBe(1);

    fireEvent.change(box(), { target: { value: 'first line' } });
    // Shift+Enter is the textarea's own newline: nothing is sent
    expect(fireEvent.keyDown(box(), { key: 'Enter', shiftKey: true })).toBe(true);
    fireEvent.change(box(), { target: { value: 'first line\n**second** line' } });
    expect(box().rows).toBe(2);
    // an IME composing with Enter does not send either
    fireEvent.keyDown(box(), { key: 'Enter', isComposing: true });
    expect(callsTo('POST', '/api/sessions/12/input')).toHaveLength(0);

    await act(async () => {
      expect(fireEvent.keyDown(box(), { key: 'Enter' })).toBe(false); // default (a newline) prevented
    });
    const sent = callsTo('POST', '/api/sessions/12/input');
    expect(sent).toHaveLength(1);
    expect((sent[0]!.body as { text: string }).text).toBe('first line\n**second** line');
    expect(box().value).toBe('');
    expect(box().rows).toBe(1);
    // the new line shows with its line break and its bold word
    const line = screen.getAllByTestId('chat-line').at(-1)!;
    const text = within(line).getByTestId('chat-text');
    expect(text.querySelector('br')).not.toBeNull();
    expect(text.querySelector('strong')?.textContent).toBe('second');

    // it grows to six lines at most
    fireEvent.change(box(), { target: { value: 'a\nb\nc\nd\ne\nf\ng\nh' } });
    expect(box().rows).toBe(6);
  });

  it('slash commands still go to /input from Enter; an empty box sends nothing', { timeout: 20_000 }, async () => {
    stubServer({
      'GET /api/sessions/12': () => json(200, resume('player')),
      'POST /api/sessions/12/input': () => json(201, { message_id: 11, event: msg(11, 'I search', { intent: 'search' }) }),
    });
    renderApp('/sessions/12');
    await screen.findByTestId('session-status');
    fireEvent.keyDown(box(), { key: 'Enter' });
    fireEvent.change(box(), { target: { value: '   ' } });
    fireEvent.keyDown(box(), { key: 'Enter' });
    expect(callsTo('POST', '/api/sessions/12/input')).toHaveLength(0);
    fireEvent.change(box(), { target: { value: '/search the chest' } });
    expect(screen.getByTestId('slash-hints')).toBeTruthy();
    await act(async () => fireEvent.keyDown(box(), { key: 'Enter' }));
    expect(callsTo('POST', '/api/sessions/12/input').map((c) => (c.body as { text: string }).text)).toEqual(['/search the chest']);
  });
});

describe('whispers typed as /w Name', () => {
  const targets = [
    { seatId: 9, name: 'Mira' },
    { seatId: 10, name: 'Mira Vale' },
    { seatId: 11, name: 'Nox' },
  ];
  it('finds the longest name the line starts with, without case', () => {
    expect(namedWhisper('/w nox The door is trapped.', targets)).toEqual({ seatId: 11, text: 'The door is trapped.' });
    expect(namedWhisper('/whisper Mira Vale: you hear it too', targets)).toEqual({ seatId: 10, text: 'you hear it too' });
    expect(namedWhisper('/w Mira Valerian is here', targets)).toEqual({ seatId: 9, text: 'Valerian is here' });
  });
  it('is nothing without a known name or without text', () => {
    expect(namedWhisper('/w Bob hello', targets)).toBeNull();
    expect(namedWhisper('/w Nox', targets)).toBeNull();
    expect(namedWhisper('/w Noxious fumes', targets)).toBeNull();
    expect(namedWhisper('Nox hello', targets)).toBeNull();
  });
});

describe('markdown on the table', () => {
  it('chat lines and the stage render markdown, never HTML', { timeout: 20_000 }, async () => {
    const r = resume('player', {
      stage: { text: 'The **cave** glows.\n\n<img src=x onerror="alert(1)">', image_id: null, image_url: null, revision: 4, updated_at: '2025-01-01T10:00:00Z' },
    });
    r.recent_events = [...r.recent_events, msg(3, 'Look: [map](javascript:alert(1)) and `code` <script>alert(2)</script>')];
    r.cursor = 3;
    stubServer({ 'GET /api/sessions/12': () => json(200, r) });
    renderApp('/sessions/12');
    const stage = await screen.findByTestId('stage-text');
    expect(stage.querySelector('strong')?.textContent).toBe('cave');
    expect(stage.querySelector('img')).toBeNull();
    expect(stage.textContent).toContain('<img src=x onerror="alert(1)">');
    const line = screen.getAllByTestId('chat-text').at(-1)!;
    expect(line.querySelector('a')).toBeNull();
    expect(line.querySelector('[href]')).toBeNull();
    expect(line.querySelector('code')?.textContent).toBe('code');
    expect(line.querySelector('script')).toBeNull();
    expect(line.textContent).toContain('<script>alert(2)</script>');
  });
});

describe('End and Abandon ask first', () => {
  const dmResume = (status: 'active' | 'ended' | 'abandoned' = 'active'): SessionResume => {
    const r = resume('dm');
    return { ...r, session: { ...r.session, status }, can: status === 'active' ? r.can : { start: false, late_join: false, end: false, abandon: false } };
  };

  // the session page is large and role queries are slow: a longer timeout
  it('End asks; Cancel and Escape send nothing and give the focus back; Yes ends', { timeout: 20_000 }, async () => {
    stubServer({
      'GET /api/sessions/12': () => json(200, dmResume()),
      'POST /api/sessions/12/end': () => json(200, dmResume('ended')),
      'POST /api/sessions/12/abandon': () => json(200, dmResume('abandoned')),
    });
    renderApp('/sessions/12');
    await screen.findByTestId('session-status');
    const endButton = () => screen.getByRole('button', { name: en['session.end'] });

    // Cancel
    fireEvent.click(endButton());
    let dialog = screen.getByRole('alertdialog', { name: en['session.end.confirm'] });
    const yes = within(dialog).getByRole('button', { name: en['session.end.yes'] });
    await vi.waitFor(() => expect(document.activeElement).toBe(yes));
    fireEvent.click(within(dialog).getByRole('button', { name: en['common.cancel'] }));
    expect(screen.queryByRole('alertdialog')).toBeNull();
    await vi.waitFor(() => expect(document.activeElement).toBe(endButton()));

    // Escape
    fireEvent.click(endButton());
    dialog = screen.getByRole('alertdialog', { name: en['session.end.confirm'] });
    fireEvent.keyDown(within(dialog).getByRole('button', { name: en['session.end.yes'] }), { key: 'Escape' });
    expect(screen.queryByRole('alertdialog')).toBeNull();
    await vi.waitFor(() => expect(document.activeElement).toBe(endButton()));
    expect(callsTo('POST', '/api/sessions/12/end')).toHaveLength(0);

    // Abandon asks too, with its own words; cancelled
    fireEvent.click(screen.getByRole('button', { name: en['session.abandon'] }));
    dialog = screen.getByRole('alertdialog', { name: en['session.abandon.confirm'] });
    fireEvent.keyDown(dialog, { key: 'Escape' });
    expect(callsTo('POST', '/api/sessions/12/abandon')).toHaveLength(0);

    // Yes
    fireEvent.click(endButton());
    await act(async () => fireEvent.click(screen.getByRole('button', { name: en['session.end.yes'] })));
    expect(callsTo('POST', '/api/sessions/12/end')).toHaveLength(1);
    expect(callsTo('POST', '/api/sessions/12/abandon')).toHaveLength(0);
    await vi.waitFor(() => expect(screen.getByTestId('session-status').textContent).toBe(en['sessionStatus.ended']));
  });

  it('Abandon sends only after Yes', { timeout: 20_000 }, async () => {
    stubServer({
      'GET /api/sessions/12': () => json(200, dmResume()),
      'POST /api/sessions/12/abandon': () => json(200, dmResume('abandoned')),
    });
    renderApp('/sessions/12');
    await screen.findByTestId('session-status');
    fireEvent.click(screen.getByRole('button', { name: en['session.abandon'] }));
    expect(callsTo('POST', '/api/sessions/12/abandon')).toHaveLength(0);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: en['session.abandon.yes'] })));
    expect(callsTo('POST', '/api/sessions/12/abandon')).toHaveLength(1);
    await vi.waitFor(() => expect(screen.getByTestId('session-status').textContent).toBe(en['sessionStatus.abandoned']));
  });
});

describe('page titles', () => {
  it('names the page and what it shows, translated', { timeout: 20_000 }, async () => {
    stubServer({ 'GET /api/sessions/12': () => json(200, resume('player')) });
    renderApp('/sessions/12');
    await screen.findByTestId('session-status');
    await nextWait(1);
    expect(document.title).toBe('Session · Lost Mine — Adventure Table');
    await act(async () => fireEvent.change(screen.getByLabelText(en['lang.label']), { target: { value: 'zh-TW' } }));
    expect(document.title).toBe(`${zhTW['title.session']} · Lost Mine — Adventure Table`);
    cleanup();
    localStorage.clear();

    stubServer({});
    renderApp('/no/such/page');
    expect(document.title).toBe(`${en['title.notFound']} — Adventure Table`);
    cleanup();

    stubServer({ 'GET /api/rooms': () => json(200, []) });
    renderApp('/tables');
    expect(document.title).toBe('Tables — Adventure Table');
    cleanup();

    stubServer({ 'GET /api/health': () => json(200, { status: 'ok' }) });
    renderApp('/');
    expect(document.title).toBe('Adventure Table');
  });
});
