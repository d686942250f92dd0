import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AppShell, preloadPages } from '../src/App';
import errorsEn from '../src/i18n/errors.en.json';
import { en } from '../src/i18n/en';
import { I18nProvider } from '../src/i18n/I18nProvider';
import { AI_ONLINE_MS, aiPresence } from '../src/table/ai';
import type { MintedGrant, RoomView, Seat, SessionResume } from '../src/table/api';

// The pages' scripts are here before any test renders one, as in the app
// once a page has been seen (the operator's chart library needs a real browser).
await preloadPages(['/operator']);

// ---- a fake server at the fetch boundary ---------------------------------

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
const apiError = (status: number, code: string) =>
  json(status, { error: { code, message: `SERVER TEXT for ${code}` } });

interface Call {
  method: string;
  path: string;
  body: unknown;
}
let calls: Call[] = [];

function stubServer(routes: Record<string, (body: unknown) => Response>) {
  calls = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const path = typeof input === 'string' ? input : input instanceof URL ? input.pathname : input.url;
      const method = (init?.method ?? 'GET').toUpperCase();
      const body = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
      calls.push({ method, path, body });
      const route = routes[`${method} ${path}`];
      if (route) return route(body);
      if (method === 'GET' && /^\/api\/sessions\/\d+\/events\/wait\?/.test(path)) {
        return new Promise<Response>((_, reject) =>
          init?.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))),
        );
      }
      return apiError(404, 'route_not_found');
    }),
  );
}
const callsTo = (method: string, path: string) => calls.filter((c) => c.method === method && c.path === path);

function renderApp(path: string) {
  return render(
    <I18nProvider>
      <MemoryRouter initialEntries={[path]}>
        <AppShell />
      </MemoryRouter>
    </I18nProvider>,
  );
}

// ---- fixtures ------------------------------------------------------------

const seat = (over: Partial<Seat>): Seat => ({
  id: 0,
  campaign_id: 4,
  role: 'player',
  label: '',
  controller_kind: 'none',
  controller_access_id: null,
  controller_display_name: null,
  controller_epoch: 0,
  character: null,
  ai_last_seen_at: null,
  ...over,
});

function ownerRoom(dm: Partial<Seat> = {}): RoomView {
  return {
    id: 2,
    name: 'Friday group',
    owner_user_id: 1,
    allow_self_claim: false,
    active_campaign_id: 4,
    invite_code: 'abc123',
    my_access: { id: 5, authority: 'owner', status: 'active' },
    members: [{ access_id: 5, user_id: 1, display_name: 'Ann', authority: 'owner', status: 'active', joined_at: '2025-01-01T00:00:00Z' }],
    campaigns: [
      {
        id: 4,
        name: 'Lost Mine',
        recap_style: 'brief',
        status: 'active',
        open_session: null,
        seats: [seat({ id: 8, role: 'dm', label: 'DM', ...dm }), seat({ id: 9, label: 'Player 1' })],
      },
    ],
  };
}

const minted = (token: string, over: Partial<MintedGrant['grant']> = {}): MintedGrant => ({
  token,
  grant: {
    id: 3,
    display_prefix: token.slice(0, 12),
    seat_id: 8,
    role: 'dm',
    session_id: null,
    status: 'active',
    pre_session_expires_at: new Date(Date.now() + 12 * 3600 * 1000).toISOString(),
    created_at: new Date().toISOString(),
    last_seen_at: null,
    ...over,
  },
});

function resume(player: Partial<Seat>, me: Partial<SessionResume['me']> = {}): SessionResume {
  return {
    session: {
      id: 12,
      campaign_id: 4,
      room_id: 2,
      status: 'active',
      dm_seat_id: 8,
      created_at: '2025-01-01T00:00:00Z',
      started_at: '2025-01-01T00:00:00Z',
      ended_at: null,
    },
    room: { id: 2, name: 'Friday group' },
    campaign: { id: 4, name: 'Lost Mine', status: 'active' },
    seats: [
      seat({ id: 8, role: 'dm', label: 'DM', controller_kind: 'human', controller_access_id: 5, controller_display_name: 'Ann' }),
      seat({ id: 9, label: 'Player 1', character: { id: 3, name: 'Mira', level: 5 }, ...player }),
    ],
    participants: [
      {
        id: 2,
        seat_id: 9,
        joined_at: '2025-01-01T00:00:00Z',
        late: false,
        controller_kind: 'human',
        controller_display_name: 'Bob',
        character: { id: 3, name: 'Mira', level: 5, hp: { max: 30, current: 25, temp: 0 }, conditions: [] },
      },
    ],
    me: { access_id: 6, authority: 'member', seat_id: 9, role: 'player', controller: 'human', take_back_seat_ids: [], ...me },
    can: { start: false, late_join: false, end: false, abandon: false },
    stage: { text: '', image_id: null, image_url: null, revision: 0, updated_at: '2025-01-01T00:00:00Z' },
    recap: { status: 'none' },
    cursor: 0,
    recent_events: [],
  };
}

const bobSeat: Partial<Seat> = { controller_kind: 'human', controller_access_id: 6, controller_display_name: 'Bob' };
const aiSeat = (lastSeen: string | null): Partial<Seat> => ({ controller_kind: 'ai', ai_last_seen_at: lastSeen });

beforeEach(() => localStorage.clear());
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

// ---- the one-time token dialog (room page, owner) -----------------------------

describe('AI DM on the room page', () => {
  it('shows the token once with the MCP URL, snippets and expiry; closing forgets it; rotate and revoke', async () => {
    let n = 0;
    stubServer({
      'GET /api/rooms/2': () => json(200, ownerRoom(n > 0 ? { controller_kind: 'ai' } : {})),
      'GET /api/characters': () => json(200, { characters: [] }),
      'POST /api/campaigns/4/dm-ai': () => json(201, minted(`at_ai_${++n}_secretvalue${n}`)),
      'POST /api/seats/8/unassign': () => json(200, ownerRoom()),
    });
    renderApp('/rooms/2');
    const set = await screen.findByRole('button', { name: en['ai.dm.set'] });
    await act(async () => fireEvent.click(set));

    const dialog = await screen.findByTestId('token-dialog');
    expect(within(dialog).getByText(en['ai.token.once'])).toBeTruthy();
    expect((within(dialog).getByTestId('ai-token') as HTMLInputElement).value).toBe('at_ai_1_secretvalue1');
    const url = `${window.location.origin}/mcp`;
    expect((within(dialog).getByTestId('mcp-url') as HTMLInputElement).value).toBe(url);
    const claude = JSON.parse((within(dialog).getByTestId('config-claude') as HTMLTextAreaElement).value);
    expect(claude).toEqual({
      mcpServers: { 'adventure-table': { type: 'http', url, headers: { Authorization: 'Bearer at_ai_1_secretvalue1' } } },
    });
    const sdk = (within(dialog).getByTestId('config-sdk') as HTMLTextAreaElement).value;
    expect(sdk).toContain("new Client({ name: 'my-agent', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })");
    expect(sdk).toContain('new StreamableHTTPClientTransport(new URL(mcpUrl)');
    expect(sdk).toContain("Authorization: 'Bearer ' + token");
    expect(within(dialog).getByTestId('token-expiry').textContent).toMatch(/within 1[12]:\d\d:\d\d/);
    expect(within(dialog).getByRole('button', { name: `Copy ${en['ai.token.token']}` })).toBeTruthy();

    // Rotate: the same POST again, a new token
    await act(async () => fireEvent.click(within(dialog).getByRole('button', { name: en['ai.dm.rotate'] })));
    expect(callsTo('POST', '/api/campaigns/4/dm-ai')).toHaveLength(2);
    expect((screen.getByTestId('ai-token') as HTMLInputElement).value).toBe('at_ai_2_secretvalue2');

    // Closing forgets it: nowhere in the page or in storage
    await act(async () => fireEvent.click(screen.getByRole('button', { name: en['ai.token.close'] })));
    expect(screen.queryByTestId('token-dialog')).toBeNull();
    expect(document.body.innerHTML).not.toContain('secretvalue');
    expect(JSON.stringify({ ...localStorage })).not.toContain('secretvalue');

    // Revoke = unassign the DM seat
    const revoke = await screen.findByRole('button', { name: en['ai.dm.revoke'] });
    await act(async () => fireEvent.click(revoke));
    expect(callsTo('POST', '/api/seats/8/unassign')).toHaveLength(1);
  });
});

// ---- handoff and take-back (session page, player) ------------------------------

describe('AI handoff on the session page', () => {
  it('sends the temporary instruction and shows the token once, without an expiry', async () => {
    let handed = false;
    stubServer({
      'GET /api/sessions/12': () =>
        json(200, handed ? resume(aiSeat(null), { seat_id: null, role: 'spectator' }) : resume(bobSeat)),
      'POST /api/seats/9/handoff': () => {
        handed = true;
        return json(201, minted('at_ai_7_playersecret', { seat_id: 9, role: 'player', session_id: 12, pre_session_expires_at: null }));
      },
    });
    renderApp('/sessions/12');
    const card = (await screen.findAllByTestId('participant'))[0]!;
    await act(async () => fireEvent.click(within(card).getByRole('button', { name: en['ai.handoff.open'] })));
    fireEvent.change(within(card).getByLabelText(en['ai.handoff.instruction']), { target: { value: 'Stay quiet.' } });
    await act(async () => fireEvent.click(within(card).getByRole('button', { name: en['ai.handoff.submit'] })));
    expect(callsTo('POST', '/api/seats/9/handoff').map((c) => c.body)).toEqual([{ temporary_instruction: 'Stay quiet.' }]);

    const dialog = await screen.findByTestId('token-dialog');
    expect((within(dialog).getByTestId('ai-token') as HTMLInputElement).value).toBe('at_ai_7_playersecret');
    expect(within(dialog).getByText(en['ai.token.noExpiry'])).toBeTruthy();
    expect(within(dialog).queryByTestId('token-expiry')).toBeNull();
    await act(async () => fireEvent.click(within(dialog).getByRole('button', { name: en['ai.token.close'] })));
    expect(document.body.innerHTML).not.toContain('playersecret');

    // the refreshed card shows the AI and offers to take the seat back
    const after = await screen.findByRole('button', { name: en['ai.takeBack'] });
    expect(after).toBeTruthy();
    expect(screen.getAllByTestId('participant')[0]!.querySelector('[data-testid="controller"]')!.getAttribute('data-kind')).toBe('ai');
  });

  it('take-back refused: take_back_origin_required is shown translated', async () => {
    localStorage.setItem('adventure-table.handoffs', JSON.stringify([9]));
    stubServer({
      'GET /api/sessions/12': () => json(200, resume(aiSeat(null), { seat_id: null, role: 'spectator' })),
      'POST /api/seats/9/take-back': () => apiError(403, 'take_back_origin_required'),
    });
    renderApp('/sessions/12');
    const take = await screen.findByRole('button', { name: en['ai.takeBack'] });
    await act(async () => fireEvent.click(take));
    expect(callsTo('POST', '/api/seats/9/take-back')).toHaveLength(1);
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toBe(errorsEn.take_back_origin_required);
    expect(alert.textContent).not.toContain('SERVER TEXT');
  });

  it('a seat handed over elsewhere offers no take-back, and no handoff to others', async () => {
    stubServer({ 'GET /api/sessions/12': () => json(200, resume(aiSeat(null), { seat_id: null, role: 'spectator' })) });
    renderApp('/sessions/12');
    await screen.findAllByTestId('participant');
    expect(screen.queryByRole('button', { name: en['ai.takeBack'] })).toBeNull();
    expect(screen.queryByRole('button', { name: en['ai.handoff.open'] })).toBeNull();
  });
});

// ---- presence -------------------------------------------------------------------

describe('AI presence', () => {
  it('online within two minutes of ai_last_seen_at, else offline; never called = not connected yet', () => {
    const now = Date.parse('2025-06-01T12:00:00Z');
    expect(aiPresence(null, now)).toBe('never');
    expect(aiPresence(undefined, now)).toBe('never');
    expect(aiPresence('2025-06-01T11:59:00Z', now)).toBe('online');
    expect(aiPresence(new Date(now - AI_ONLINE_MS).toISOString(), now)).toBe('online');
    expect(aiPresence(new Date(now - AI_ONLINE_MS - 1000).toISOString(), now)).toBe('offline');
  });

  for (const [label, lastSeen, text] of [
    ['recent', () => new Date(Date.now() - 30_000).toISOString(), en['ai.presence.online']],
    ['old', () => new Date(Date.now() - 10 * 60_000).toISOString(), en['ai.presence.offline']],
    ['never', () => null, en['ai.presence.never']],
  ] as const) {
    it(`the player card and the room seat list label an AI seat (${label})`, async () => {
      const room = ownerRoom();
      room.campaigns[0]!.seats[1] = seat({ id: 9, label: 'Player 1', ...aiSeat(lastSeen()) });
      stubServer({
        'GET /api/sessions/12': () => json(200, resume(aiSeat(lastSeen()), { seat_id: null, role: 'spectator' })),
        'GET /api/rooms/2': () => json(200, room),
        'GET /api/characters': () => json(200, { characters: [] }),
      });
      const view = renderApp('/sessions/12');
      const card = (await screen.findAllByTestId('participant'))[0]!;
      const controller = within(card).getByTestId('controller');
      expect(controller.textContent).toContain(`${en['table.card.controller']}: ${en['room.seat.ai']}`);
      expect(within(controller).getByTestId('ai-presence').textContent).toBe(text);
      view.unmount();

      renderApp('/rooms/2');
      await screen.findByTestId('room-name');
      const row = screen.getAllByTestId('seat').find((r) => r.getAttribute('data-seat') === 'Player 1')!;
      expect(within(row).getByTestId('ai-presence').textContent).toBe(text);
    });
  }
});
