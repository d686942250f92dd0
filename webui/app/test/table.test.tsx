import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AppShell, preloadPages } from '../src/App';
import errorsEn from '../src/i18n/errors.en.json';
import errorsZhTW from '../src/i18n/errors.zh-TW.json';
import { en } from '../src/i18n/en';
import { I18nProvider } from '../src/i18n/I18nProvider';
import type { Character, RoomView, Seat, SessionResume } from '../src/table/api';
import { characterView } from './fixtures';

// The pages' scripts are here before any test renders one, as in the app
// once a page has been seen (the operator's chart library needs a real browser).
await preloadPages(['/operator']);

// ---- a fake server at the fetch boundary ---------------------------------

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
const apiError = (status: number, code: string, fields?: Record<string, string>) =>
  json(status, { error: { code, message: `SERVER TEXT for ${code}`, ...(fields ? { fields } : {}) } });

interface Call {
  method: string;
  path: string;
  body: unknown;
}
type Handler = (body: unknown) => Response;

let calls: Call[] = [];

function stubServer(routes: Record<string, Handler>) {
  calls = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const path = typeof input === 'string' ? input : input instanceof URL ? input.pathname : input.url;
    const method = (init?.method ?? 'GET').toUpperCase();
    const body = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
    calls.push({ method, path, body });
    const route = routes[`${method} ${path}`];
    if (route) return route(body);
    // No fight is running unless a test says so.
    if (method === 'GET' && /^\/api\/sessions\/\d+\/encounter$/.test(path)) return json(200, { encounter: null });
    // The session page's long-poll: nothing happens until the page goes away.
    if (method === 'GET' && /^\/api\/sessions\/\d+\/events\/wait\?/.test(path)) {
      return new Promise<Response>((_, reject) =>
        init?.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))),
      );
    }
    return apiError(404, 'route_not_found');
  });
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

const callsTo = (method: string, path: string) => calls.filter((c) => c.method === method && c.path === path);

function LocationProbe() {
  const loc = useLocation();
  return <output data-testid="location">{loc.pathname}</output>;
}

function renderApp(path: string) {
  return render(
    <I18nProvider>
      <MemoryRouter initialEntries={[path]}>
        <AppShell />
        <Routes>
          <Route path="*" element={<LocationProbe />} />
        </Routes>
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

function roomFor(authority: 'owner' | 'dm' | 'member', over: Partial<RoomView> = {}): RoomView {
  const myAccess = { owner: 5, dm: 6, member: 6 }[authority];
  return {
    id: 2,
    name: 'Friday group',
    owner_user_id: 1,
    allow_self_claim: false,
    active_campaign_id: 4,
    ...(authority !== 'member' ? { invite_code: 'abc123' } : {}),
    my_access: { id: myAccess, authority, status: 'active' },
    members: [
      { access_id: 5, user_id: 1, display_name: 'Ann', authority: 'owner', status: 'active', joined_at: '2025-01-01T00:00:00Z' },
      { access_id: 6, user_id: 2, display_name: 'Bob', authority: authority === 'dm' ? 'dm' : 'member', status: 'active', joined_at: '2025-01-01T00:00:00Z' },
      { access_id: 7, user_id: 3, display_name: 'Cid', authority: 'member', status: 'revoked', joined_at: '2025-01-01T00:00:00Z' },
    ],
    campaigns: [
      {
        id: 4,
        name: 'Lost Mine',
        recap_style: 'brief',
        status: 'active',
        open_session: null,
        seats: [
          seat({ id: 8, role: 'dm', label: 'DM' }),
          seat({ id: 9, role: 'player', label: 'Player 1' }),
        ],
      },
    ],
    ...over,
  };
}

const MIRA: Character = characterView({
  skill_proficiencies: ['perception', 'stealth'],
  skill_expertise: ['stealth'],
  conditions: ['poisoned'],
  resources: [{ name: 'Spell slots (1st)', current: 2, max: 4 }],
  roleplay_guidance: 'Speaks softly.',
  derived: { ...characterView().derived, skills: { perception: 4, stealth: 8 } },
});

function resume(can: Partial<SessionResume['can']>, status: SessionResume['session']['status'] = 'lobby'): SessionResume {
  return {
    session: {
      id: 12,
      campaign_id: 4,
      room_id: 2,
      status,
      dm_seat_id: 8,
      created_at: '2025-01-01T00:00:00Z',
      started_at: null,
      ended_at: null,
    },
    room: { id: 2, name: 'Friday group' },
    campaign: { id: 4, name: 'Lost Mine', status: 'active' },
    seats: [
      seat({ id: 8, role: 'dm', label: 'DM', controller_kind: 'human', controller_access_id: 5, controller_display_name: 'Ann' }),
      seat({
        id: 9,
        label: 'Player 1',
        controller_kind: 'human',
        controller_access_id: 6,
        controller_display_name: 'Bob',
        character: { id: 3, name: 'Mira', level: 5 },
      }),
      seat({ id: 10, label: 'Player 2', controller_kind: 'ai' }),
    ],
    participants: [
      {
        id: 2,
        seat_id: 9,
        joined_at: '2025-01-01T00:00:00Z',
        late: false,
        controller_kind: 'human',
        controller_display_name: 'Bob',
        character: { id: 3, name: 'Mira', level: 5, hp: { max: 30, current: 25, temp: 0 }, conditions: ['poisoned'] },
      },
    ],
    me: { access_id: 5, authority: 'owner', seat_id: 8, role: 'dm', controller: 'human', take_back_seat_ids: [] },
    can: { start: false, late_join: false, end: false, abandon: false, ...can },
    stage: { text: '', image_id: null, image_url: null, revision: 0, updated_at: '2025-01-01T00:00:00Z' },
    recap: { status: 'none' },
    cursor: 0,
    recent_events: [],
  };
}

beforeEach(() => {
  localStorage.clear();
});

afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

const seatRow = (label: string) => {
  const row = screen.getAllByTestId('seat').find((r) => r.getAttribute('data-seat') === label);
  if (!row) throw new Error(`no seat row ${label}`);
  return row;
};

// ---- room page -----------------------------------------------------------

describe('room page', () => {
  it('owner: invite link, member and seat controls; assigning a seat posts the member', async () => {
    const assigned = roomFor('owner');
    assigned.campaigns[0]!.seats[1] = seat({
      id: 9,
      label: 'Player 1',
      controller_kind: 'human',
      controller_access_id: 6,
      controller_display_name: 'Bob',
    });
    stubServer({
      'GET /api/rooms/2': () => json(200, roomFor('owner')),
      'GET /api/characters': () => json(200, { characters: [] }),
      'POST /api/seats/9/assign': () => json(200, assigned),
    });
    renderApp('/rooms/2');

    expect((await screen.findByTestId('room-name')).textContent).toBe('Friday group');
    expect((screen.getByTestId('invite-link') as HTMLInputElement).value).toBe(`${window.location.origin}/join/abc123`);
    expect(screen.getByRole('button', { name: en['room.invite.copy'] })).toBeTruthy();
    expect(screen.getByRole('button', { name: en['room.invite.rotate'] })).toBeTruthy();
    expect(screen.getByRole('checkbox', { name: en['room.selfClaim'] })).toBeTruthy();

    // member controls: only for the active non-owner member
    const members = screen.getAllByTestId('member');
    const bob = members.find((m) => m.getAttribute('data-member') === 'Bob')!;
    expect(within(bob).getByRole('button', { name: en['room.members.revoke'] })).toBeTruthy();
    expect(within(bob).getByRole('button', { name: en['room.members.makeDm'] })).toBeTruthy();
    const ann = members.find((m) => m.getAttribute('data-member') === 'Ann')!;
    expect(within(ann).queryByRole('button')).toBeNull();
    expect(within(ann).getByText(en['authority.owner'])).toBeTruthy();

    // seat table: role, label, controller
    const p1 = seatRow('Player 1');
    expect(within(p1).getByText(en['seatRole.player'])).toBeTruthy();
    expect(within(p1).getByTestId('seat-controller').textContent).toBe(en['room.seat.unassigned']);
    const select = within(p1).getByLabelText(en['room.seat.assignTo']) as HTMLSelectElement;
    const options = Array.from(select.options).map((o) => o.textContent);
    expect(options).toEqual([en['room.seat.chooseMember'], 'Ann', 'Bob']); // revoked Cid is not offered
    expect(within(seatRow('DM')).getByLabelText(en['room.seat.assignTo'])).toBeTruthy();

    expect(screen.getByRole('button', { name: en['room.campaigns.create'] })).toBeTruthy();
    expect(screen.getByRole('button', { name: en['room.seats.add'] })).toBeTruthy();
    expect(screen.getByRole('button', { name: en['room.session.open'] })).toBeTruthy();

    fireEvent.change(select, { target: { value: '6' } });
    await act(async () => fireEvent.click(within(p1).getByRole('button', { name: en['room.seat.assign'] })));
    expect(callsTo('POST', '/api/seats/9/assign').map((c) => c.body)).toEqual([{ access_id: 6 }]);
    expect(within(seatRow('Player 1')).getByTestId('seat-controller').textContent).toBe('Bob');
    expect(within(seatRow('Player 1')).getByRole('button', { name: en['room.seat.unassign'] })).toBeTruthy();
  });

  it('member: no invite link and no owner/DM controls', async () => {
    stubServer({
      'GET /api/rooms/2': () => json(200, roomFor('member')),
      'GET /api/characters': () => json(200, { characters: [] }),
    });
    renderApp('/rooms/2');
    await screen.findByTestId('room-name');
    expect(screen.getByTestId('my-authority').textContent).toBe(en['authority.member']);
    expect(screen.queryByTestId('invite-link')).toBeNull();
    expect(screen.queryByRole('button', { name: en['room.invite.copy'] })).toBeNull();
    expect(screen.queryByRole('checkbox', { name: en['room.selfClaim'] })).toBeNull();
    expect(screen.queryByLabelText(en['room.seat.assignTo'])).toBeNull();
    expect(screen.queryByRole('button', { name: en['room.seat.assign'] })).toBeNull();
    expect(screen.queryByRole('button', { name: en['room.members.revoke'] })).toBeNull();
    expect(screen.queryByRole('button', { name: en['room.campaigns.create'] })).toBeNull();
    expect(screen.queryByRole('button', { name: en['room.seats.add'] })).toBeNull();
    expect(screen.queryByRole('button', { name: en['room.session.open'] })).toBeNull();
    // self-claim is off: no claim button either
    expect(screen.queryByRole('button', { name: en['room.seat.claim'] })).toBeNull();
  });

  it('DM-key holder: seat controls and the invite link, but no owner-only controls', async () => {
    stubServer({
      'GET /api/rooms/2': () => json(200, roomFor('dm')),
      'GET /api/characters': () => json(200, { characters: [] }),
    });
    renderApp('/rooms/2');
    await screen.findByTestId('room-name');
    expect(screen.getByTestId('invite-link')).toBeTruthy();
    expect(screen.queryByRole('button', { name: en['room.invite.rotate'] })).toBeNull();
    expect(screen.queryByRole('checkbox', { name: en['room.selfClaim'] })).toBeNull();
    expect(screen.queryByRole('button', { name: en['room.members.revoke'] })).toBeNull();
    expect(within(seatRow('Player 1')).getByLabelText(en['room.seat.assignTo'])).toBeTruthy();
    expect(screen.getByRole('button', { name: en['room.campaigns.create'] })).toBeTruthy();
  });

  it('member: claims a free player seat when self-claim is on, and shows a refusal translated', async () => {
    stubServer({
      'GET /api/rooms/2': () => json(200, roomFor('member', { allow_self_claim: true })),
      'GET /api/characters': () => json(200, { characters: [] }),
      'POST /api/seats/9/claim': () => apiError(409, 'seat_already_controlled'),
    });
    renderApp('/rooms/2');
    await screen.findByTestId('room-name');
    // the DM seat is never claimable
    expect(within(seatRow('DM')).queryByRole('button', { name: en['room.seat.claim'] })).toBeNull();
    await act(async () =>
      fireEvent.click(within(seatRow('Player 1')).getByRole('button', { name: en['room.seat.claim'] })),
    );
    expect(callsTo('POST', '/api/seats/9/claim')).toHaveLength(1);
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain(errorsEn.seat_already_controlled);
    expect(alert.textContent).not.toContain('SERVER TEXT');
    fireEvent.change(screen.getByLabelText('Language'), { target: { value: 'zh-TW' } });
    expect(screen.getByRole('alert').textContent).toContain(errorsZhTW.seat_already_controlled);
  });

  it('the controller of a seat picks one of his characters for it', async () => {
    const mine = roomFor('member');
    mine.campaigns[0]!.seats[1] = seat({
      id: 9,
      label: 'Player 1',
      controller_kind: 'human',
      controller_access_id: 6,
      controller_display_name: 'Bob',
    });
    const withChar = structuredClone(mine);
    withChar.campaigns[0]!.seats[1]!.character = { id: 3, name: 'Mira', level: 5 };
    stubServer({
      'GET /api/rooms/2': () => json(200, mine),
      'GET /api/characters': () => json(200, { characters: [MIRA] }),
      'PUT /api/seats/9/character': () => json(200, withChar),
    });
    renderApp('/rooms/2');
    await screen.findByTestId('room-name');
    // not on a seat I do not control
    expect(within(seatRow('DM')).queryByLabelText(en['room.seat.playAs'])).toBeNull();
    const pick = (await within(seatRow('Player 1')).findByRole('option', { name: /Mira/ })).closest('select')!;
    await act(async () => fireEvent.change(pick, { target: { value: '3' } }));
    expect(callsTo('PUT', '/api/seats/9/character').map((c) => c.body)).toEqual([{ character_id: 3 }]);
    expect(within(seatRow('Player 1')).getByTestId('seat-character').textContent).toContain('Mira');
  });

  it('links to an open session instead of offering to open one', async () => {
    const room = roomFor('owner');
    room.campaigns[0]!.open_session = { id: 12, status: 'active' };
    stubServer({
      'GET /api/rooms/2': () => json(200, room),
      'GET /api/characters': () => json(200, { characters: [] }),
    });
    renderApp('/rooms/2');
    const link = await screen.findByRole('link', { name: en['room.session.goActive'] });
    expect(link.getAttribute('href')).toBe('/sessions/12');
    expect(screen.queryByRole('button', { name: en['room.session.open'] })).toBeNull();
  });

  it('the DM seat controller (a plain member) may open the lobby and is taken there', async () => {
    const room = roomFor('member');
    room.campaigns[0]!.seats[0] = seat({
      id: 8,
      role: 'dm',
      label: 'DM',
      controller_kind: 'human',
      controller_access_id: 6,
      controller_display_name: 'Bob',
    });
    stubServer({
      'GET /api/rooms/2': () => json(200, room),
      'GET /api/characters': () => json(200, { characters: [] }),
      'POST /api/campaigns/4/sessions': () => json(201, resume({})),
      'GET /api/sessions/12': () => json(200, resume({})),
    });
    renderApp('/rooms/2');
    const open = await screen.findByRole('button', { name: en['room.session.open'] });
    await act(async () => fireEvent.click(open));
    expect(callsTo('POST', '/api/campaigns/4/sessions')).toHaveLength(1);
    expect((await screen.findByTestId('location')).textContent).toBe('/sessions/12');
    expect((await screen.findByTestId('session-status')).textContent).toBe(en['sessionStatus.lobby']);
  });

  it('polls the room so other people’s changes appear', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    let n = 0;
    const later = roomFor('owner');
    later.members.push({
      access_id: 9,
      user_id: 9,
      display_name: 'Dee',
      authority: 'member',
      status: 'active',
      joined_at: '2025-01-01T00:00:00Z',
    });
    stubServer({
      'GET /api/rooms/2': () => json(200, ++n === 1 ? roomFor('owner') : later),
      'GET /api/characters': () => json(200, { characters: [] }),
    });
    renderApp('/rooms/2');
    await screen.findByTestId('room-name');
    const names = () => screen.getAllByTestId('member').map((m) => m.getAttribute('data-member'));
    expect(names()).toEqual(['Ann', 'Bob', 'Cid']);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(2000);
    });
    await vi.waitFor(() => expect(names()).toEqual(['Ann', 'Bob', 'Cid', 'Dee']));
    expect(callsTo('GET', '/api/rooms/2')).toHaveLength(2);
  });
});

// ---- join -----------------------------------------------------------------

describe('invite link', () => {
  const preview = (over: Record<string, unknown> = {}) => ({
    room_name: 'Friday group',
    campaign_name: 'Lost Mine',
    dm_name: 'Ann',
    free_seats: 1,
    self_claim: false,
    session: null,
    member: false,
    seat_id: null,
    revoked: false,
    ...over,
  });
  const invite = (over: Record<string, unknown> = {}) => ({
    'GET /api/invites/abc123': () => json(200, preview(over)),
    'GET /api/me': () => json(200, { id: 2, display_name: 'Bob' }),
    'GET /api/characters': () => json(200, { characters: [] }),
    'GET /api/characters/templates': () => json(200, { templates: [] }),
  });

  it('in a room where the DM assigns seats, joins and lands in the room', async () => {
    stubServer({
      ...invite(),
      'POST /api/rooms/join': () => json(200, roomFor('member')),
      'GET /api/rooms/2': () => json(200, roomFor('member')),
    });
    renderApp('/join/abc123');
    expect((await screen.findByTestId('room-name')).textContent).toBe('Friday group');
    expect(screen.getByTestId('location').textContent).toBe('/rooms/2');
    expect(callsTo('POST', '/api/rooms/join')[0]!.body).toEqual({ invite_code: 'abc123' });
  });

  it('shows invite_code_invalid translated', async () => {
    stubServer({ ...invite(), 'GET /api/invites/nope': () => apiError(404, 'invite_code_invalid') });
    renderApp('/join/nope');
    expect((await screen.findByRole('alert')).textContent).toContain(errorsEn.invite_code_invalid);
    fireEvent.change(screen.getByLabelText('Language'), { target: { value: 'zh-TW' } });
    expect(screen.getByRole('alert').textContent).toContain(errorsZhTW.invite_code_invalid);
  });

  it('shows room_access_revoked translated, and joins nothing', async () => {
    stubServer(invite({ member: true, revoked: true }));
    renderApp('/join/abc123');
    expect((await screen.findByRole('alert')).textContent).toContain(errorsEn.room_access_revoked);
    fireEvent.change(screen.getByLabelText('Language'), { target: { value: 'zh-TW' } });
    expect(screen.getByRole('alert').textContent).toContain(errorsZhTW.room_access_revoked);
    expect(calls.filter((c) => c.method !== 'GET')).toEqual([]);
  });
});

// ---- tables ---------------------------------------------------------------

describe('tables', () => {
  it('lists my rooms and creates a room', async () => {
    stubServer({
      'GET /api/rooms': () =>
        json(200, { rooms: [{ id: 2, name: 'Friday group', my_access: { id: 5, authority: 'owner', status: 'active' } }] }),
      'GET /api/meta/capabilities': () => json(200, {}),
      'POST /api/rooms': () => json(201, { ...roomFor('owner'), id: 3, name: 'New room' }),
      'GET /api/rooms/3': () => json(200, { ...roomFor('owner'), id: 3, name: 'New room' }),
      'GET /api/characters': () => json(200, { characters: [] }),
    });
    renderApp('/tables');
    const link = await screen.findByRole('link', { name: 'Friday group' });
    expect(link.getAttribute('href')).toBe('/rooms/2');
    expect(screen.queryByTestId('tables-empty')).toBeNull();

    fireEvent.change(screen.getByLabelText(en['tables.create.name']), { target: { value: ' New room ' } });
    await act(async () => fireEvent.click(screen.getByRole('button', { name: en['tables.create.submit'] })));
    expect(callsTo('POST', '/api/rooms')[0]!.body).toEqual({ name: 'New room' });
    expect((await screen.findByTestId('room-name')).textContent).toBe('New room');
  });

  it('shows room_name_invalid translated', async () => {
    stubServer({
      'GET /api/rooms': () => json(200, { rooms: [] }),
      'POST /api/rooms': () => apiError(422, 'room_name_invalid'),
    });
    renderApp('/tables');
    await screen.findByTestId('tables-empty');
    await act(async () => fireEvent.click(screen.getByRole('button', { name: en['tables.create.submit'] })));
    expect((await screen.findByText(errorsEn.room_name_invalid)).closest('[role="alert"]')).toBeTruthy();
  });
});

// ---- characters -----------------------------------------------------------

describe('character editor', () => {
  it('loads a character, shows the server proficiency bonus and saves the edited form', async () => {
    stubServer({
      'GET /api/characters/3': () => json(200, MIRA),
      'PUT /api/characters/3': (body) => json(200, { ...MIRA, ...(body as object), proficiency_bonus: 4 }),
    });
    renderApp('/characters/3');
    const name = (await screen.findByLabelText(en['character.name'])) as HTMLInputElement;
    expect(name.value).toBe('Mira');
    expect(screen.getByTestId('proficiency-bonus').textContent).toBe('+3');
    expect((screen.getByLabelText(`${en['skill.stealth']}: ${en['character.expertise']}`) as HTMLInputElement).checked).toBe(true);
    expect((screen.getByLabelText(en['condition.poisoned']) as HTMLInputElement).checked).toBe(true);
    expect((screen.getByLabelText(en['character.resource.name']) as HTMLInputElement).value).toBe('Spell slots (1st)');

    fireEvent.change(screen.getByLabelText(en['character.level']), { target: { value: '9' } });
    fireEvent.click(screen.getByLabelText(`${en['skill.arcana']}: ${en['character.proficient']}`));
    fireEvent.click(screen.getByLabelText(en['condition.poisoned']));
    fireEvent.change(screen.getByLabelText(en['ability.dex']), { target: { value: '16' } });
    fireEvent.click(screen.getByRole('button', { name: en['character.resource.add'] }));
    const resNames = screen.getAllByLabelText(en['character.resource.name']);
    fireEvent.change(resNames[1]!, { target: { value: 'Ki' } });
    fireEvent.change(screen.getAllByLabelText(en['character.resource.max'])[1]!, { target: { value: '3' } });
    fireEvent.click(screen.getAllByRole('button', { name: en['common.remove'] })[0]!);

    await act(async () => fireEvent.click(screen.getByRole('button', { name: en['character.save'] })));
    const sent = callsTo('PUT', '/api/characters/3')[0]!.body as Record<string, unknown>;
    expect(sent).toEqual({
      name: 'Mira',
      level: 9,
      abilities: { str: 10, dex: 16, con: 12, int: 8, wis: 13, cha: 15 },
      skill_proficiencies: ['arcana', 'perception', 'stealth'],
      skill_expertise: ['stealth'],
      hp: { max: 30, current: 25, temp: 0 },
      conditions: [],
      resources: [{ name: 'Ki', current: 0, max: 3 }],
      biography: 'Raised by wolves.',
      roleplay_guidance: 'Speaks softly.',
      class: 'Ranger',
      species: 'Elf',
      background: 'Outlander',
      save_proficiencies: [],
      armor: { body: '', shield: false, unarmored: '', bonus: 0 },
      speed: 30,
      hit_die: 8,
      initiative_advantage: false,
      defenses: { resistances: [], immunities: [], vulnerabilities: [] },
      attacks: [],
      spells: [],
      inventory: [],
      notes: '',
    });
    expect(screen.getByTestId('proficiency-bonus').textContent).toBe('+4');
    expect(screen.getByText(en['character.saved'])).toBeTruthy();
  });

  it('saves damage defenses: one choice per damage type, sent as the three lists', async () => {
    stubServer({
      'GET /api/characters/3': () => json(200, { ...MIRA, defenses: { resistances: ['fire'], immunities: [], vulnerabilities: [] } }),
      'PUT /api/characters/3': (body) => json(200, { ...MIRA, ...(body as object) }),
    });
    renderApp('/characters/3');
    const group = await screen.findByRole('group', { name: en['character.defenses'] });
    const fire = within(group).getByLabelText(en['damage.fire']) as HTMLSelectElement;
    expect(fire.value).toBe('resistances');
    fireEvent.change(within(group).getByLabelText(en['damage.cold']), { target: { value: 'vulnerabilities' } });
    fireEvent.change(within(group).getByLabelText(en['damage.poison']), { target: { value: 'immunities' } });
    fireEvent.change(fire, { target: { value: '' } });
    await act(async () => fireEvent.click(screen.getByRole('button', { name: en['character.save'] })));
    const sent = callsTo('PUT', '/api/characters/3')[0]!.body as Record<string, unknown>;
    expect(sent.defenses).toEqual({ resistances: [], immunities: ['poison'], vulnerabilities: ['cold'] });
  });

  it('shows the server-derived sheet and saves the armor, saves, speed and hit die', async () => {
    stubServer({
      'GET /api/characters/3': () => json(200, MIRA),
      'PUT /api/characters/3': (body) =>
        json(200, {
          ...MIRA,
          ...(body as object),
          derived: { ...MIRA.derived, ac: 18, stealth_disadvantage: true, speed: 20, hit_dice: '5d10', saves: { ...MIRA.derived.saves, con: 4 } },
        }),
    });
    renderApp('/characters/3');
    await screen.findByTestId('sheet-summary');
    const stat = (k: string) => screen.getByTestId(`stat-${k}`).querySelector('dd.derived')?.textContent;
    expect(stat('ac')).toBe('12');
    expect(stat('initiative')).toBe('+2');
    expect(stat('speed')).toBe('30 ft');
    expect(stat('passive-perception')).toBe('14');
    expect(stat('hit-dice')).toBe('5d8');
    expect(screen.getByTestId('mod-int').textContent).toBe('−1');
    expect(screen.getByTestId('save-dex').textContent).toBe('+2');
    expect(screen.getByTestId('skill-stealth').textContent).toBe('+8');
    expect(screen.getByTestId('skill-perception').textContent).toBe('+4');
    expect((screen.getByLabelText(en['character.class']) as HTMLInputElement).value).toBe('Ranger');

    fireEvent.change(screen.getByLabelText(en['character.armor.body']), { target: { value: 'chain_mail' } });
    fireEvent.click(screen.getByLabelText(en['character.armor.shield']));
    fireEvent.change(screen.getByLabelText(en['character.speed']), { target: { value: '25' } });
    fireEvent.change(screen.getByLabelText(en['character.hitDie']), { target: { value: '10' } });
    fireEvent.click(screen.getByLabelText(`${en['ability.con']} ${en['character.saves']}: ${en['character.proficient']}`));
    fireEvent.change(screen.getByLabelText(en['character.class']), { target: { value: ' Fighter 5 ' } });
    await act(async () => fireEvent.click(screen.getByRole('button', { name: en['character.save'] })));
    const sent = callsTo('PUT', '/api/characters/3')[0]!.body as Record<string, unknown>;
    expect(sent).toMatchObject({
      class: 'Fighter 5',
      save_proficiencies: ['con'],
      armor: { body: 'chain_mail', shield: true, unarmored: '', bonus: 0 },
      speed: 25,
      hit_die: 10,
    });
    // The numbers shown are the server's answer, not computed here.
    expect(stat('ac')).toBe('18');
    expect(within(screen.getByTestId('stat-ac')).getByText(en['character.stealthDisadvantage'])).toBeTruthy();
    expect(stat('hit-dice')).toBe('5d10');
    expect(screen.getByTestId('save-con').textContent).toBe('+4');
  });

  it('shows field errors from character_invalid next to the fields', async () => {
    stubServer({
      'GET /api/characters/3': () => json(200, MIRA),
      'PUT /api/characters/3': () =>
        apiError(422, 'character_invalid', { name: 'must be 1..80 characters', 'hp.current': 'exceeds max' }),
    });
    renderApp('/characters/3');
    const name = (await screen.findByLabelText(en['character.name'])) as HTMLInputElement;
    expect(name.getAttribute('aria-invalid')).toBeNull();
    fireEvent.change(name, { target: { value: '' } });
    await act(async () => fireEvent.click(screen.getByRole('button', { name: en['character.save'] })));

    expect(name.getAttribute('aria-invalid')).toBe('true');
    const nameErr = document.getElementById(name.getAttribute('aria-describedby')!)!;
    expect(nameErr.textContent).toBe(en['fieldError.name']);
    // the error sits with its field
    expect(name.closest('.field')!.contains(nameErr)).toBe(true);

    const current = screen.getByLabelText(en['character.hp.current']);
    expect(current.getAttribute('aria-invalid')).toBe('true');
    expect(document.getElementById(current.getAttribute('aria-describedby')!)!.textContent).toBe(en['fieldError.hp']);
    // fields without a problem stay unmarked
    expect(screen.getByLabelText(en['character.level']).getAttribute('aria-invalid')).toBeNull();
    expect(screen.queryByText(en['fieldError.level'])).toBeNull();

    const alert = screen.getByRole('alert');
    expect(alert.textContent).toContain(errorsEn.character_invalid);
    expect(document.body.textContent).not.toContain('exceeds max');
  });

  it('totals follow the typing: the draft goes to the server\'s sheet rules (preview) and its answer shows before any save', async () => {
    stubServer({
      'GET /api/characters/3': () => json(200, MIRA),
      'POST /api/characters/preview': (body) => {
        const dex = (body as { abilities: { dex: number } }).abilities.dex;
        const mod = Math.floor((dex - 10) / 2);
        return json(200, { ...MIRA.derived, modifiers: { ...MIRA.derived.modifiers, dex: mod } });
      },
    });
    renderApp('/characters/3');
    await screen.findByLabelText(en['character.name']);
    fireEvent.change(screen.getByLabelText(en['ability.dex']), { target: { value: '20' } });
    await vi.waitFor(() => expect(screen.getByTestId('mod-dex').textContent).toBe('+5'), { timeout: 3000 });
    const sent = callsTo('POST', '/api/characters/preview').at(-1)!.body as { abilities: { dex: number } };
    expect(sent.abilities.dex).toBe(20);
    expect(callsTo('PUT', '/api/characters/3')).toHaveLength(0);
  });

  it('creates a new character and goes to its page', async () => {
    stubServer({
      'POST /api/characters': (body) => json(201, { ...MIRA, ...(body as object), id: 7, proficiency_bonus: 2 }),
      'GET /api/characters/7': () => json(200, { ...MIRA, id: 7, name: 'Nox', level: 1, proficiency_bonus: 2 }),
    });
    renderApp('/characters/new');
    expect(screen.getByTestId('proficiency-bonus').textContent).toBe(en['character.proficiencyPending']);
    fireEvent.change(screen.getByLabelText(en['character.name']), { target: { value: 'Nox' } });
    await act(async () => fireEvent.click(screen.getByRole('button', { name: en['character.save'] })));
    const sent = callsTo('POST', '/api/characters')[0]!.body as Record<string, unknown>;
    expect(sent).toMatchObject({ name: 'Nox', level: 1, hp: { max: 10, current: 10, temp: 0 } });
    expect((await screen.findByTestId('location')).textContent).toBe('/characters/7');
    expect(await screen.findByText(en['character.saved'])).toBeTruthy();
    expect(screen.getByTestId('proficiency-bonus').textContent).toBe('+2');
  });

  it('lists my characters with an honest empty state', async () => {
    stubServer({ 'GET /api/characters': () => json(200, { characters: [] }) });
    renderApp('/characters');
    expect((await screen.findByTestId('characters-empty')).textContent).toContain(en['characters.empty']);
    expect(screen.getByRole('link', { name: en['characters.new'] }).getAttribute('href')).toBe('/characters/new');
  });
});

// ---- session --------------------------------------------------------------

// the session page is large and role queries are slow: the longer tests get more time
describe('session page', () => {
  it('shows only the controls that apply: Start and Abandon in the lobby; End, Abandon and late join once active', { timeout: 20_000 }, async () => {
    stubServer({
      'GET /api/sessions/12': () => json(200, resume({ start: true, abandon: true })),
      'POST /api/sessions/12/start': () => json(200, resume({ end: true, abandon: true, late_join: true }, 'active')),
    });
    renderApp('/sessions/12');
    const status = await screen.findByTestId('session-status');
    expect(status.textContent).toBe(en['sessionStatus.lobby']);
    expect(screen.getByTestId('my-role').textContent).toBe(en['role.dm']);
    const start = screen.getByRole('button', { name: en['session.start'] }) as HTMLButtonElement;
    expect(start.disabled).toBe(false);
    expect(start.getAttribute('data-testid')).toBe('session-start');
    expect((screen.getByTestId('session-abandon') as HTMLButtonElement).disabled).toBe(false);
    // End and late join do not apply in the lobby: not shown, not even disabled
    expect(screen.queryByRole('button', { name: en['session.end'] })).toBeNull();
    expect(screen.queryByTestId('session-end')).toBeNull();
    expect(screen.queryByRole('button', { name: en['session.lateJoin'] })).toBeNull();
    expect(screen.queryByLabelText(en['session.lateJoin.seat'])).toBeNull();
    // participants with their character summary
    const bob = screen.getAllByTestId('participant')[0]!;
    expect(bob.textContent).toContain('Bob');
    expect(bob.textContent).toContain('Mira');
    expect(bob.textContent).toContain('25/30');
    expect(bob.textContent).toContain(en['condition.poisoned']);

    await act(async () => fireEvent.click(start));
    expect(callsTo('POST', '/api/sessions/12/start')).toHaveLength(1);
    expect(screen.getByTestId('session-status').textContent).toBe(en['sessionStatus.active']);
    // Start is gone once started; End, Abandon and late join are there
    expect(screen.queryByRole('button', { name: en['session.start'] })).toBeNull();
    expect(screen.queryByTestId('session-start')).toBeNull();
    expect((screen.getByTestId('session-end') as HTMLButtonElement).disabled).toBe(false);
    expect(screen.getByRole('button', { name: en['session.end'] })).toBeTruthy();
    expect(screen.getByTestId('session-abandon')).toBeTruthy();
    expect(screen.getByLabelText(en['session.lateJoin.seat'])).toBeTruthy();
    expect(screen.getByRole('button', { name: en['session.lateJoin'] })).toBeTruthy();
  });

  it('shows the DM no controls bar when nothing applies (an ended session), and no late join without a free seat', { timeout: 20_000 }, async () => {
    stubServer({ 'GET /api/sessions/12': () => json(200, resume({}, 'ended')) });
    const { unmount } = renderApp('/sessions/12');
    await screen.findByTestId('session-status');
    expect(screen.getByTestId('my-role').textContent).toBe(en['role.dm']);
    expect(screen.queryByRole('region', { name: en['session.controls'] })).toBeNull();
    for (const key of ['session.start', 'session.end', 'session.abandon', 'session.lateJoin'] as const) {
      expect(screen.queryByRole('button', { name: en[key] }), key).toBeNull();
    }
    unmount();

    // active, every player seat already taking part: End and Abandon only
    const full = resume({ end: true, abandon: true, late_join: true }, 'active');
    full.participants.push({ ...full.participants[0]!, id: 3, seat_id: 10, controller_kind: 'ai', controller_display_name: null });
    stubServer({ 'GET /api/sessions/12': () => json(200, full) });
    renderApp('/sessions/12');
    await screen.findByTestId('session-status');
    expect(screen.getByRole('region', { name: en['session.controls'] })).toBeTruthy();
    expect(screen.getByTestId('session-end')).toBeTruthy();
    expect(screen.getByTestId('session-abandon')).toBeTruthy();
    expect(screen.queryByRole('button', { name: en['session.start'] })).toBeNull();
    expect(screen.queryByLabelText(en['session.lateJoin.seat'])).toBeNull();
    expect(screen.queryByRole('button', { name: en['session.lateJoin'] })).toBeNull();
  });

  it('shows a player without rights none of the DM controls (no disabled DM buttons)', { timeout: 20_000 }, async () => {
    const r = resume({}, 'active');
    r.me = { access_id: 6, authority: 'member', seat_id: 9, role: 'player', controller: 'human', take_back_seat_ids: [] };
    stubServer({ 'GET /api/sessions/12': () => json(200, r) });
    renderApp('/sessions/12');
    await screen.findByTestId('session-status');
    expect(screen.getByTestId('my-role').textContent).toBe(en['role.player']);
    for (const key of ['session.start', 'session.end', 'session.abandon', 'session.lateJoin', 'check.request', 'table.stage.edit'] as const) {
      expect(screen.queryByRole('button', { name: en[key] }), key).toBeNull();
    }
    expect(screen.queryByRole('button', { name: en['table.actAs'].replace('{name}', 'Mira') })).toBeNull();
    expect(screen.queryByLabelText(en['session.lateJoin.seat'])).toBeNull();
    expect(screen.queryByRole('region', { name: en['session.controls'] })).toBeNull();
    for (const id of ['session-start', 'session-end', 'session-abandon']) expect(screen.queryByTestId(id), id).toBeNull();
  });

  it('late join offers only seats not yet participating; errors are translated', async () => {
    stubServer({
      'GET /api/sessions/12': () => json(200, resume({ late_join: true, end: true }, 'active')),
      'POST /api/sessions/12/late-join': () => apiError(409, 'seat_not_ready'),
    });
    renderApp('/sessions/12');
    const select = (await screen.findByLabelText(en['session.lateJoin.seat'])) as HTMLSelectElement;
    expect(Array.from(select.options).map((o) => o.textContent)).toEqual([en['session.lateJoin.choose'], 'Player 2']);
    fireEvent.change(select, { target: { value: '10' } });
    await act(async () => fireEvent.click(screen.getByRole('button', { name: en['session.lateJoin'] })));
    expect(callsTo('POST', '/api/sessions/12/late-join')[0]!.body).toEqual({ seat_id: 10 });
    expect((await screen.findByRole('alert')).textContent).toContain(errorsEn.seat_not_ready);
  });

  it('shows the translated status in zh-TW', async () => {
    localStorage.setItem('adventure-table.language', 'zh-TW');
    stubServer({ 'GET /api/sessions/12': () => json(200, resume({}, 'ended')) });
    renderApp('/sessions/12');
    expect((await screen.findByTestId('session-status')).textContent).toBe('已結束');
  });
});

// ---- settings -------------------------------------------------------------

describe('settings: display name', () => {
  it('loads and saves the display name; refusals are translated', async () => {
    let name = 'Guest 4821';
    stubServer({
      'GET /api/me': () => json(200, { id: 1, display_name: name }),
      'GET /api/meta/capabilities': () => json(200, {}),
      'PATCH /api/me': (body) => {
        const n = (body as { display_name: string }).display_name;
        if (n === '') return apiError(422, 'display_name_invalid');
        name = n;
        return json(200, { id: 1, display_name: n });
      },
    });
    renderApp('/settings');
    const input = (await screen.findByLabelText(en['settings.displayName'])) as HTMLInputElement;
    await vi.waitFor(() => expect(input.value).toBe('Guest 4821'));
    fireEvent.change(input, { target: { value: 'Ann' } });
    await act(async () => fireEvent.click(screen.getByRole('button', { name: en['settings.displayName.save'] })));
    expect(callsTo('PATCH', '/api/me')[0]!.body).toEqual({ display_name: 'Ann' });
    expect(screen.getByText(en['common.saved'])).toBeTruthy();

    fireEvent.change(input, { target: { value: '  ' } });
    await act(async () => fireEvent.click(screen.getByRole('button', { name: en['settings.displayName.save'] })));
    expect((await screen.findByRole('alert')).textContent).toContain(errorsEn.display_name_invalid);
  });
});
