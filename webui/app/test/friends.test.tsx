// @vitest-environment-options {"url": "http://192.168.1.20:8080/"}
//
// Playing with friends on a LAN: the page was opened at the server's LAN
// address, so the invite link (and the MCP URL) name that address, never
// 127.0.0.1. Text the server makes (branch names, script notices) arrives as
// codes and is shown in the reader's language.
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { en } from '../src/i18n/en';
import { format } from '../src/i18n/messages';
import { serverText } from '../src/i18n/serverText';
import { zhTW } from '../src/i18n/zh-TW';
import { I18nProvider } from '../src/i18n/I18nProvider';
import { resetIdentity } from '../src/identity';
import { ScriptConsole } from '../src/solo/ScriptConsole';
import type { RoomView } from '../src/table/api';
import { callsTo, json, renderApp, stubServer, T0 } from './fixtures';

beforeEach(() => {
  localStorage.clear();
  resetIdentity();
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const room: RoomView = {
  id: 2,
  name: 'Friday group',
  owner_user_id: 1,
  allow_self_claim: false,
  active_campaign_id: null,
  invite_code: 'abc123',
  my_access: { id: 5, authority: 'owner', status: 'active' },
  members: [{ access_id: 5, user_id: 1, display_name: 'Ann', authority: 'owner', status: 'active', joined_at: T0 }],
  campaigns: [],
} as unknown as RoomView;

describe('invite links on a LAN', () => {
  it('use the address the browser opened, not loopback', async () => {
    expect(window.location.origin).toBe('http://192.168.1.20:8080');
    stubServer({
      'GET /api/rooms/2': () => json(200, room),
      'GET /api/characters': () => json(200, { characters: [] }),
    });
    renderApp('/rooms/2');
    const link = (await screen.findByTestId('invite-link')) as HTMLInputElement;
    expect(link.value).toBe('http://192.168.1.20:8080/join/abc123');
    expect(link.value).not.toContain('127.0.0.1');
  });

  it('give agents the MCP URL at the same address', async () => {
    stubServer({
      'GET /api/meta/capabilities': () => json(200, { table: true, solo: true, scripting: true, mcp: true, ai_actor: true }),
    });
    renderApp('/settings');
    expect((await screen.findByTestId('mcp-url')).textContent).toBe('http://192.168.1.20:8080/mcp');
  });
});

const ADVENTURE = {
  id: 7,
  title: 'The mill',
  scenario_id: 1,
  persona_name: '',
  persona_pronouns: '',
  persona_desc: '',
  authors_note: '',
  stats: {},
  head_depth: 0,
  head_branch_id: 1,
  created_at: T0,
  updated_at: T0,
};

const OPENING = {
  id: 1,
  kind: 'opening',
  mode: '',
  text: 'The mill wheel creaks in the dark.',
  depth: 0,
  branch_id: 1,
  outcomes: [],
  takes: { index: 1, count: 1 },
  created_at: T0,
};

const BRANCHES = {
  branches: [
    { id: 1, name: 'Main', name_code: 'branch.main', parent_branch_id: null, fork_depth: 0, tip_depth: 4, is_head: true, created_at: T0 },
    { id: 5, name: 'Branch 2', name_code: 'branch.numbered', name_params: { n: 2 }, parent_branch_id: 1, fork_depth: 2, tip_depth: 2, is_head: false, created_at: T0 },
    { id: 6, name: 'Into the crypt', parent_branch_id: 1, fork_depth: 1, tip_depth: 3, is_head: false, created_at: T0 },
  ],
};

describe('server-made text in zh-TW', () => {
  it('shows the branch names the server gave in Chinese and a renamed branch as named', async () => {
    localStorage.setItem('adventure-table.language', 'zh-TW');
    stubServer({
      'GET /api/adventures/7': () => json(200, { adventure: ADVENTURE, story: [OPENING], has_more: false }),
      'GET /api/adventures/7/branches': () => json(200, BRANCHES),
    });
    renderApp('/solo/adventures/7');
    const rows = await screen.findAllByTestId('branch');
    const names = rows.map((r) => r.querySelector('.branch-name')!.textContent);
    expect(names).toEqual([zhTW['solo.branches.main'], format(zhTW['solo.branches.numbered'], { n: 2 }), 'Into the crypt']);
    expect(names[1]).toBe('分支 2');
    expect(rows.map((r) => r.textContent).join(' ')).not.toMatch(/\bMain\b|Branch 2/);
  });

  it('shows script notices from their codes, with the script’s own words as written', async () => {
    localStorage.setItem('adventure-table.language', 'zh-TW');
    let ctrl!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({ start: (c) => void (ctrl = c) });
    stubServer({
      'GET /api/adventures/7': () => json(200, { adventure: ADVENTURE, story: [OPENING], has_more: false }),
      'GET /api/adventures/7/branches': () => json(200, BRANCHES),
      'POST /api/adventures/7/turns': () => new Response(body, { status: 200, headers: { 'Content-Type': 'text/event-stream' } }),
    });
    renderApp('/solo/adventures/7');
    await screen.findByText('The mill wheel creaks in the dark.');
    const box = screen.getByPlaceholderText(zhTW['solo.prompt.do']);
    fireEvent.change(box, { target: { value: '開門' } });
    fireEvent.click(screen.getByRole('button', { name: zhTW['solo.send'] }));
    await waitFor(() => expect(callsTo('POST', '/api/adventures/7/turns')).toHaveLength(1));
    const english = 'Script error in the output hook (timeout): interrupted — the turn continued without it.';
    const done = {
      type: 'done',
      action: { ...OPENING, id: 3, kind: 'narration', text: 'The door opens.', depth: 2 },
      adventure: { ...ADVENTURE, head_depth: 2 },
      notices: [
        { code: 'script.message', params: { text: 'You feel watched.' }, text: 'You feel watched.' },
        { code: 'script.error', params: { hook: 'output', kind: 'timeout', error: 'interrupted' }, text: english },
        { code: 'script.someday', params: {}, text: 'A notice this build does not know.' },
      ],
    };
    await act(async () => ctrl.enqueue(new TextEncoder().encode(`data: ${JSON.stringify(done)}\n\n`)));
    await act(async () => ctrl.close());
    const notices = await screen.findByTestId('script-notice');
    const texts = within(notices)
      .getAllByRole('listitem')
      .map((li) => li.querySelector('.notice-text')!.textContent);
    expect(texts).toEqual([
      'You feel watched.',
      format(zhTW['server.script.error'], {
        hook: zhTW['solo.scripts.tab.output'],
        kind: zhTW['server.script.kind.timeout'],
        error: 'interrupted',
      }),
      'A notice this build does not know.',
    ]);
    expect(texts[1]).not.toContain('Script error');
  });
});

describe('the script console in zh-TW', () => {
  it('shows a script failure the server wrote from its code, and a script’s own lines as written', async () => {
    localStorage.setItem('adventure-table.language', 'zh-TW');
    stubServer({
      'GET /api/adventures/7/console': () =>
        json(200, {
          entries: [
            { id: 1, action_id: 3, hook: 'output', level: 'log', text: 'hello from the script', created_at: T0 },
            {
              id: 2,
              action_id: 3,
              hook: 'output',
              level: 'error',
              text: 'Script error in the output hook (memory): out of memory — the turn continued without it.',
              code: 'script.error',
              params: { hook: 'output', kind: 'memory', error: 'out of memory' },
              created_at: T0,
            },
          ],
        }),
    });
    render(
      <I18nProvider>
        <ScriptConsole adventureId={7} version="1" onClose={() => {}} />
      </I18nProvider>,
    );
    await screen.findByTestId('console-entries');
    const texts = screen.getAllByTestId('console-text').map((c) => c.textContent);
    expect(texts).toEqual([
      'hello from the script',
      format(zhTW['server.script.error'], { hook: zhTW['solo.scripts.tab.output'], kind: zhTW['server.script.kind.memory'], error: 'out of memory' }),
    ]);
  });
});

describe('serverText', () => {
  const t = (lang: typeof en | typeof zhTW) => (k: keyof typeof en) => lang[k];
  it('writes each code in both languages and falls back to the server’s words', () => {
    expect(serverText(t(en), 'branch.main', null, 'Main')).toBe(en['solo.branches.main']);
    expect(serverText(t(zhTW), 'branch.numbered', { n: 3 }, 'Branch 3')).toBe('分支 3');
    expect(serverText(t(zhTW), 'script.error', { hook: 'input', kind: 'throw', error: 'x' }, '')).toContain(zhTW['solo.scripts.tab.input']);
    expect(serverText(t(zhTW), 'script.error', { hook: 'weird', kind: 'odd', error: 'x' }, '')).toContain('weird');
    expect(serverText(t(zhTW), 'no.such.code', {}, 'As sent')).toBe('As sent');
    expect(serverText(t(zhTW), undefined, {}, 'Literal')).toBe('Literal');
    expect(serverText(t(zhTW), 'toString', {}, 'Literal')).toBe('Literal');
  });
});
