// Shared setup for the multi-person table journeys (live-table, checks,
// ai-handoff, layout): the server and browser around a describe block, one
// browser context per person, API calls with that person's cookies, a table
// (room, campaign, seats, characters, session) made through the API, and
// screenshots of everyone's page when a test fails (shotsOnFailure).
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { journey } from './harness.mjs';

// The two screen sizes the table journeys run at.
export const DESKTOP = { width: 1366, height: 768 };
export const PHONE = { width: 390, height: 844 };
export const SIZES = [DESKTOP, PHONE];
// sizeName: "1366×768", for test names
export const sizeName = ({ width, height }) => `${width}×${height}`;

export const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// waitText waits (locator polling, no sleeps) until the first matching
// element's whole text is text; visible, or with { state: 'attached' } in
// the page though folded away (a phone's hidden parts).
export const waitText = (locator, text, { state = 'visible' } = {}) =>
  locator.filter({ hasText: new RegExp(`^\\s*${escapeRe(text)}\\s*$`) }).first().waitFor({ state });
export const chatLine = (page, text) =>
  page.getByTestId('chat-line').filter({ has: page.getByTestId('chat-text').filter({ hasText: new RegExp(`^${escapeRe(text)}$`) }) });
export const button = (scope, name) => scope.getByRole('button', { name, exact: true });

// showPart shows a part of the session page: on a phone one part fills the
// screen, chosen by its tab ('Chat', 'At the table', 'Dice', 'Actions'); on
// a wide screen the feed and the table always show (their tabs are hidden)
// and the tabs choose the tools only.
export async function showPart(page, name) {
  const tab = page.getByRole('tab', { name, exact: true });
  if (await tab.isVisible()) await tab.click();
}

// character is a level-3 sheet; over replaces whole top-level fields.
export const character = (name, over = {}) => ({
  name,
  level: 3,
  abilities: { str: 12, dex: 14, con: 13, int: 10, wis: 11, cha: 9 },
  skill_proficiencies: ['perception'],
  skill_expertise: [],
  hp: { max: 24, current: 24, temp: 0 },
  conditions: [],
  resources: [],
  biography: '',
  roleplay_guidance: '',
  ...over,
});

// tableJourney, called inside a describe block, starts the server and the
// browser before its tests and stops them after (the server must exit 0 on
// SIGTERM). It returns helpers bound to that server; pageErrors collects the
// uncaught errors, CSP refusals and 404s (files, not API answers) of every
// person's page. Each person's page is shot when the test that opened it
// fails.
export function tableJourney({ viewport = { width: 1400, height: 1000 }, behindProxy = false } = {}) {
  const { url, at, open, pageErrors, server } = journey({ behindProxy });

  // person opens a fresh browser context (its own cookie jar) and visits the
  // app, which makes its guest; API calls then go out with that cookie.
  // options: further browser context options (a touch screen: hasTouch, isMobile).
  async function person(name, options = {}) {
    const { page } = await open(name, { viewport, ...options });
    // a page or file (not an API answer) that is not found fails the journey: the favicon among them
    page.on('response', (r) => r.status() === 404 && !new URL(r.url()).pathname.startsWith('/api/') && pageErrors.push(`${name}: 404 ${r.url()}`));
    await at(page, 'tables');
    await page.getByTestId('tables-empty').waitFor();
    return page;
  }

  // api calls the server with the page's own cookies (page.request shares the context's jar).
  async function api(page, method, path, data) {
    const res = await page.request.fetch(url(path), { method, ...(data !== undefined ? { data } : {}) });
    const text = await res.text();
    assert.ok(res.ok(), `${method} ${path} -> ${res.status()} ${text}`);
    return text ? JSON.parse(text) : null;
  }

  // setUpTable, through the API with each person's cookies: display names
  // (DM first, then the players), a room with a campaign, one seat per
  // player, the players join with the invite code, the DM takes the DM seat
  // and gives each player theirs, each player makes a character and puts it
  // on their seat, and the DM opens a session, started when start is true.
  // dm: { page, name }; players: [{ page, name, seat, character }].
  async function setUpTable({ dm, players, room: roomName, campaign, start }) {
    const me = [];
    for (const { page, name } of [dm, ...players]) {
      me.push(await api(page, 'PATCH', '/api/me', { display_name: name }));
    }
    let room = await api(dm.page, 'POST', '/api/rooms', { name: roomName });
    room = await api(dm.page, 'POST', `/api/rooms/${room.id}/campaigns`, { name: campaign });
    const campaignId = room.campaigns[0].id;
    for (const p of players) {
      room = await api(dm.page, 'POST', `/api/campaigns/${campaignId}/seats`, { label: p.seat });
    }
    const seats = Object.fromEntries(room.campaigns[0].seats.map((s) => [s.label, s.id]));
    const joined = [];
    for (const p of players) {
      joined.push(await api(p.page, 'POST', '/api/rooms/join', { invite_code: room.invite_code }));
    }
    await api(dm.page, 'POST', `/api/seats/${seats.DM}/assign`, { access_id: room.my_access.id });
    for (const [i, p] of players.entries()) {
      await api(dm.page, 'POST', `/api/seats/${seats[p.seat]}/assign`, { access_id: joined[i].my_access.id });
    }
    for (const p of players) {
      const made = await api(p.page, 'POST', '/api/characters', p.character);
      await api(p.page, 'PUT', `/api/seats/${seats[p.seat]}/character`, { character_id: made.id });
    }
    const lobby = await api(dm.page, 'POST', `/api/campaigns/${campaignId}/sessions`);
    const sessionId = lobby.session.id;
    if (start) await api(dm.page, 'POST', `/api/sessions/${sessionId}/start`);
    return { me, room, campaignId, seats, sessionId };
  }

  return { url, at, open, person, api, setUpTable, pageErrors, server };
}

// shootBothSchemes saves the page as it looks now, light and dark, as
// <dir>/<name>-<width>x<height>-<scheme>.png; nothing without a dir.
export async function shootBothSchemes(page, dir, name) {
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  const size = page.viewportSize();
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.screenshot({ path: join(dir, `${name}-${size.width}x${size.height}-${scheme}.png`) });
  }
  await page.emulateMedia({ colorScheme: null });
}
