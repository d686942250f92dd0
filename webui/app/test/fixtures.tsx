// Shared by the session-page tests (live.test.tsx, rolls.test.tsx): a fake
// server at the fetch boundary whose long-poll the test answers (or fails) by
// hand, the app render, the per-test reset, and resume / seat / event fixtures.
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, expect, vi } from 'vitest';
import { AppShell, preloadPages } from '../src/App';
import { en } from '../src/i18n/en';
import { I18nProvider } from '../src/i18n/I18nProvider';
import { resetIdentity } from '../src/identity';
import type { ActionView, AdventureView, ProviderSettingsView, ScenarioView } from '../src/solo/api';
import type { Character, CharacterDerived, EventView, Participant, RollRequestView, RollResultView, Seat, SessionResume } from '../src/table/api';

// The pages' scripts are here before any test renders one, as in the app
// once a page has been seen (the operator's chart library needs a real browser).
await preloadPages(['/operator']);

// pickMore presses an item of the play screen's overflow menu (MoreMenu):
// it opens the menu, then picks the item by its name.
export function pickMore(name: string) {
  fireEvent.click(screen.getByRole('button', { name: en['reader.more'] }));
  fireEvent.click(screen.getByRole('menuitem', { name }));
}

// ---- a fake server -------------------------------------------------------

export const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
export const apiError = (status: number, code: string, details?: Record<string, unknown>) =>
  json(status, { error: { code, message: `SERVER TEXT ${code}`, ...(details ? { details } : {}) } });

export interface Call {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
  signal?: AbortSignal | null;
}
export type Handler = (body: unknown, call: Call) => Response | Promise<Response>;

export interface PendingWait {
  after: number;
  signal: AbortSignal | null | undefined;
  answer: (page: { events: EventView[]; cursor: number; has_more?: boolean }) => void;
  failNetwork: () => void;
}

export let calls: Call[] = [];
export let waits: PendingWait[] = [];

// What GETs answer unless routes say otherwise: /api/me is Ann; the roll
// history is empty; no fight is running.
const DEFAULT_GETS: [RegExp, Handler][] = [
  [/^\/api\/me$/, () => json(200, { id: 1, display_name: 'Ann' })],
  [/^\/api\/sessions\/\d+\/roll-results$/, () => json(200, { results: [], before: 0, has_more: false })],
  [/^\/api\/sessions\/\d+\/encounter$/, () => json(200, { encounter: null })],
  // the solo page's starter stories (test/starters.test.tsx gives some)
  [/^\/api\/solo\/starters$/, () => json(200, { starters: [] })],
];

// stubServer answers fetch from routes ("METHOD /path"), else DEFAULT_GETS;
// every long-poll waits for the test.
export function stubServer(routes: Record<string, Handler>) {
  calls = [];
  waits = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url, 'http://x');
    const method = (init?.method ?? 'GET').toUpperCase();
    const body = typeof init?.body === 'string' ? JSON.parse(init.body) : init?.body;
    const call: Call = { method, path: url.pathname, query: url.searchParams, body, signal: init?.signal };
    calls.push(call);
    if (method === 'GET' && /^\/api\/sessions\/\d+\/events\/wait$/.test(url.pathname)) {
      return new Promise<Response>((resolve, reject) => {
        const w: PendingWait = {
          after: Number(url.searchParams.get('after')),
          signal: init?.signal,
          answer: (page) => resolve(json(200, { has_more: false, ...page })),
          failNetwork: () => reject(new TypeError('Failed to fetch')),
        };
        waits.push(w);
        init?.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
      });
    }
    const route = routes[`${method} ${url.pathname}`] ?? (method === 'GET' ? DEFAULT_GETS.find(([re]) => re.test(url.pathname))?.[1] : undefined);
    return route ? route(body, call) : apiError(404, 'route_not_found');
  });
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

export const callsTo = (method: string, path: string) => calls.filter((c) => c.method === method && c.path === path);
export const waitCalls = () => calls.filter((c) => c.path.endsWith('/events/wait'));

// nextWait resolves with the newest long-poll once the page has sent it.
export async function nextWait(count: number): Promise<PendingWait> {
  await vi.waitFor(() => expect(waits.length).toBeGreaterThanOrEqual(count), { timeout: 3000 });
  return waits[count - 1]!;
}

export function renderApp(path = '/sessions/12') {
  return render(
    <I18nProvider>
      <MemoryRouter initialEntries={[path]}>
        <AppShell />
      </MemoryRouter>
    </I18nProvider>,
  );
}

// resetEachTest, called at a test file's top level: each test starts with an
// empty localStorage and no identity, and ends unmounted, on real timers,
// with fetch (and any other stubbed global) restored.
export function resetEachTest() {
  beforeEach(() => {
    localStorage.clear();
    resetIdentity();
  });
  afterEach(() => {
    cleanup();
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });
}

// ---- fixtures ------------------------------------------------------------

export const T0 = '2025-01-01T10:00:00Z';

export const seat = (over: Partial<Seat>): Seat => ({
  id: 0,
  campaign_id: 4,
  role: 'player',
  label: '',
  controller_kind: 'human',
  controller_access_id: null,
  controller_display_name: null,
  controller_epoch: 0,
  character: null,
  ai_last_seen_at: null,
  ...over,
});

export function ev(seq: number, kind: string, over: Partial<EventView> = {}): EventView {
  return {
    seq,
    kind,
    created_at: T0,
    acting_seat_id: null,
    subject_seat_id: null,
    subject_character_id: null,
    execution_mode: 'system',
    visibility: 'public',
    payload: { version: 1 },
    ...over,
  };
}

// msg: a chat line by Mira (seat 9, character 3) unless over says otherwise.
export function msg(seq: number, text: string, payload: Record<string, unknown> = {}, over: Partial<EventView> = {}): EventView {
  return ev(seq, 'message.posted', {
    acting_seat_id: 9,
    subject_seat_id: 9,
    subject_character_id: 3,
    execution_mode: 'self',
    payload: { version: 1, message_id: seq, kind: 'character_dialogue', intent: '', check: '', text, recipient_seat_ids: [], ...payload },
    ...over,
  });
}

export const participant = (id: number, seatId: number, who: string, charId: number, name: string) => ({
  id,
  seat_id: seatId,
  joined_at: T0,
  late: false,
  controller_kind: 'human' as const,
  controller_display_name: who,
  character: { id: charId, name, level: 3, hp: { max: 20, current: 14, temp: 0 }, conditions: ['prone'] },
});

// withSheet gives a participant's character the derived sheet the resume carries.
export const withSheet = (p: Participant, d: CharacterDerived): Participant => ({ ...p, character: { ...p.character!, derived: d } });

// rollResult: a roll as the server answers it: Mira's (seat 9) public quick
// roll of one d20 showing face, plus mod, written "d20 + mod"; over changes
// any field.
export function rollResult(id: number, face: number, mod = 0, over: Partial<RollResultView> = {}): RollResultView {
  return {
    id,
    roll_request_id: null,
    acting_seat_id: 9,
    subject_seat_id: 9,
    subject_character_id: 3,
    execution_mode: 'self',
    source: 'quick',
    formula: `d20 + ${mod}`,
    audit: {
      formula: mod === 0 ? '1d20' : `1d20+${mod}`,
      normalized: `d20 + ${mod}`,
      groups: [{ notation: 'd20', sides: 20, dice: [{ value: face, kept: true, dropped: false }], subtotal: face }],
      total: face + mod,
      min: 1 + mod,
      max: 20 + mod,
    },
    raw_dice: [face],
    kept_dice: [face],
    base_modifier: mod,
    flat_adjustment: 0,
    total: face + mod,
    visibility: 'public',
    created_at: T0,
    ...over,
  };
}

// checkRequest: a check asked of Mira (seat 9): Perception, one d20,
// pending, as the server answers it; over changes any field.
export const checkRequest = (over: Partial<RollRequestView> = {}): RollRequestView => ({
  id: 31,
  group_id: 4,
  label: 'Perception',
  target_seat_id: 9,
  target_character_id: 3,
  request_type: 'skill',
  ability: 'wis',
  skill: 'perception',
  mode: 'normal',
  flat_adjustment: 0,
  reveal_outcome: false,
  visibility: 'public',
  status: 'pending',
  dice_needed: 1,
  dc: null,
  created_at: T0,
  resolved_at: null,
  result: null,
  ...over,
});

// resume: session 12 in room 2 / campaign 4, active; DM Dana (seat 8), Bob
// playing Mira (seat 9), Cid playing Nox (seat 10). The page belongs to the
// DM or to Bob. The feed holds the start and one chat line (cursor 2).
export function resume(role: 'dm' | 'player', over: Partial<SessionResume> = {}): SessionResume {
  return {
    session: { id: 12, campaign_id: 4, room_id: 2, status: 'active', dm_seat_id: 8, created_at: T0, started_at: T0, ended_at: null },
    room: { id: 2, name: 'Friday group' },
    campaign: { id: 4, name: 'Lost Mine', status: 'active' },
    seats: [
      seat({ id: 8, role: 'dm', label: 'DM', controller_access_id: 5, controller_display_name: 'Dana' }),
      seat({ id: 9, label: 'Seat A', controller_access_id: 6, controller_display_name: 'Bob', character: { id: 3, name: 'Mira', level: 3 } }),
      seat({ id: 10, label: 'Seat B', controller_access_id: 7, controller_display_name: 'Cid', character: { id: 4, name: 'Nox', level: 3 } }),
    ],
    participants: [participant(1, 9, 'Bob', 3, 'Mira'), participant(2, 10, 'Cid', 4, 'Nox')],
    me:
      role === 'dm'
        ? { access_id: 5, authority: 'owner', seat_id: 8, role: 'dm', controller: 'human', take_back_seat_ids: [] }
        : { access_id: 6, authority: 'member', seat_id: 9, role: 'player', controller: 'human', take_back_seat_ids: [] },
    can: role === 'dm' ? { start: false, late_join: false, end: true, abandon: true } : { start: false, late_join: false, end: false, abandon: false },
    stage: { text: 'A dark cave.', image_id: null, image_url: null, revision: 4, updated_at: T0 },
    recap: { status: 'none' },
    cursor: 2,
    recent_events: [ev(1, 'session.started', { acting_seat_id: 8 }), msg(2, 'Hello there')],
    ...over,
  };
}

// resumeAtStart: resume with only the session's start in the feed (cursor 1).
export const resumeAtStart = (role: 'dm' | 'player', over: Partial<SessionResume> = {}): SessionResume =>
  resume(role, { cursor: 1, recent_events: [ev(1, 'session.started', { acting_seat_id: 8 })], ...over });

// storyNode is one node of a solo story as the server answers it: a single
// take, no outcomes, narration finished with stop; over changes any field.
export function storyNode(id: number, kind: ActionView['kind'], text: string, over: Partial<ActionView> = {}): ActionView {
  return {
    id,
    kind,
    mode: kind === 'player' ? 'do' : '',
    text,
    depth: 0,
    branch_id: 1,
    takes: { index: 1, count: 1, ids: [id] },
    outcomes: [],
    truncated: false,
    stopped: false,
    finish_reason: kind === 'narration' ? 'stop' : '',
    has_prompt: kind === 'narration',
    created_at: T0,
    ...over,
  };
}

// lendDownloads records what the page downloads: jsdom has no object URLs
// and does not follow a download link, so the test lends both.
export function lendDownloads() {
  const blobs: Blob[] = [];
  const revoked: string[] = [];
  const downloads: string[] = [];
  const lent = URL as unknown as { createObjectURL?: (b: Blob) => string; revokeObjectURL?: (u: string) => void };
  lent.createObjectURL = (b: Blob) => {
    blobs.push(b);
    return 'blob:mira';
  };
  lent.revokeObjectURL = (u: string) => revoked.push(u);
  const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
    downloads.push(`${this.download} ${this.href}`);
  });
  return {
    blobs,
    revoked,
    downloads,
    restore: () => {
      click.mockRestore();
      delete lent.createObjectURL;
      delete lent.revokeObjectURL;
    },
  };
}

// narratorSettings is the narrator settings of a local model with the
// default memory settings, as GET /api/solo/settings answers them; over
// replaces fields.
export function narratorSettings(over: Partial<ProviderSettingsView> = {}): ProviderSettingsView {
  return {
    base_url: 'http://127.0.0.1:11434/v1',
    model: 'llama3',
    api_key_set: false,
    context_budget: 8000,
    max_output_tokens: 600,
    temperature: 0.8,
    top_p: 0.95,
    token_ratio: 1,
    embedding_model: '',
    memory_top_k: 5,
    memory_capacity: 200,
    reasoning_effort: '',
    ...over,
  };
}

// adventureView is a solo adventure as the play page gets it: Mara at the
// Gilded Goose, no stats, standing on branch 1; over replaces fields.
export function adventureView(over: Partial<AdventureView> = {}): AdventureView {
  return {
    id: 7,
    scenario_id: 5,
    title: 'The Gilded Goose',
    authors_note: '',
    persona_name: 'Mara',
    persona_pronouns: '',
    persona_desc: '',
    stat_schema: {},
    world_state: {},
    state_line: '',
    head_branch_id: 1,
    head_depth: 2,
    turn_in_progress: false,
    created_at: T0,
    updated_at: T0,
    ...over,
  };
}

// scenarioView is a stored scenario as GET /api/scenarios/{id} answers it:
// The Old Mill (id 5), every text empty, no stats, no cards, no scripts;
// over replaces fields.
export function scenarioView(over: Partial<ScenarioView> = {}): ScenarioView {
  return {
    id: 5,
    title: 'The Old Mill',
    premise: '',
    plot_essentials: '',
    ai_instructions: '',
    authors_note: '',
    opening: '',
    stat_schema: {},
    cards: [],
    scripts: { library: '', input: '', context: '', output: '' },
    created_at: T0,
    updated_at: T0,
    ...over,
  };
}

// characterView: a stored character as the character routes return it
// (Mira, a level 5 elf ranger), fields on top; derived replaces the whole.
export function characterView(over: Partial<Character> = {}): Character {
  return {
    id: 3,
    name: 'Mira',
    level: 5,
    proficiency_bonus: 3,
    abilities: { str: 10, dex: 14, con: 12, int: 8, wis: 13, cha: 15 },
    skill_proficiencies: ['perception'],
    skill_expertise: [],
    hp: { max: 30, current: 25, temp: 0 },
    conditions: [],
    resources: [],
    biography: 'Raised by wolves.',
    roleplay_guidance: '',
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
    derived: {
      modifiers: { str: 0, dex: 2, con: 1, int: -1, wis: 1, cha: 2 },
      skills: { perception: 4 },
      passive_perception: 14,
      initiative: 2,
      initiative_advantage: false,
      saves: { str: 0, dex: 2, con: 1, int: -1, wis: 1, cha: 2 },
      ac: 12,
      stealth_disadvantage: false,
      speed: 30,
      hit_dice: '5d8',
      attacks: [],
    },
    updated_at: '2025-01-01T00:00:00Z',
    ...over,
  };
}
