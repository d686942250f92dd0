// The table's ground, end to end, at desktop and at phone size: two people
// (two browser contexts, two guest identities) meet in a room, take seats and
// play a session lifecycle against the real server binary; a third joins as
// a guest. Titles per page, the favicon, End and Abandon asking first, no DM
// controls for a player, and the page in zh-TW with the server's words
// (a guest's name) translated.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chromiumOrSkip, journey, skipLine } from './harness.mjs';
import { showPart, SIZES, sizeName } from './table-setup.mjs';

const haveChromium = chromiumOrSkip();

for (const viewport of SIZES) {
  describe(`table journey at ${sizeName(viewport)}`, { skip: !haveChromium && skipLine() }, () => {
    const j = journey();
    const { url, at, pageErrors } = j;
    // pages and files (not API answers) that came back 404: the favicon among them
    const notFound = [];

    // person opens a fresh browser context: its own cookie jar, so its own guest.
    async function person(name) {
      const { context, page } = await j.open(name, { viewport });
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(url('')).origin });
      page.on('response', (r) => r.status() === 404 && !new URL(r.url()).pathname.startsWith('/api/') && notFound.push(`${name}: ${r.url()}`));
      return page;
    }

    async function setDisplayName(page, name) {
      await at(page, 'settings');
      await page.getByLabel('Display name').fill(name);
      await page.getByRole('button', { name: 'Save name' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    }

    // title waits until the browser tab shows the page's own title
    const title = (page, text) => page.waitForFunction((want) => document.title === want, text);

    const seat = (page, label) => page.locator(`[data-testid="seat"][data-seat="${label}"]`);
    // waitText waits (locator polling, no sleeps) until the element's whole text is text.
    const waitText = (locator, text, { state = 'visible' } = {}) =>
      locator.filter({ hasText: new RegExp(`^\\s*${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`) }).waitFor({ state });
    // myRole: the reader's role, in the page's facts (folded away on a phone)
    const myRole = (page, text) => waitText(page.getByTestId('my-role'), text, { state: 'attached' });

    test(`A and B meet in a room, take seats and play a session from lobby to end (${sizeName(viewport)})`, async () => {
      // --- A: name, room, campaign, player seat
      const a = await person('A');
      await setDisplayName(a, 'Ann');

      await at(a, 'tables');
      await a.getByTestId('tables-empty').waitFor();
      await title(a, 'Tables — Adventure Table');
      // the icon the page links is served (no favicon 404)
      const icon = await a.locator('link[rel="icon"]').getAttribute('href');
      assert.equal(icon, '/favicon.svg');
      const iconAnswer = await a.request.get(url(icon));
      assert.equal(iconAnswer.status(), 200, 'the favicon is in the build');
      assert.match(iconAnswer.headers()['content-type'] ?? '', /^image\/svg\+xml/);
      await a.getByLabel('Room name').fill('Friday group');
      await a.getByRole('button', { name: 'Create room' }).click();
      await a.waitForURL(/\/rooms\/\d+$/);
      const roomURL = a.url();
      await waitText(a.getByTestId('room-name'), 'Friday group');
      await waitText(a.getByTestId('my-authority'), 'Owner');
      await title(a, 'Room · Friday group — Adventure Table');

      await a.getByLabel('Campaign name').fill('Lost Mine');
      await a.getByRole('button', { name: 'Create campaign' }).click();
      await a.locator('[data-testid="campaign"][data-campaign="Lost Mine"]').waitFor();
      await waitText(seat(a, 'DM').getByTestId('seat-controller'), 'unassigned');
      await a.getByLabel('Label of the new player seat').fill('Player 1');
      await a.getByRole('button', { name: 'Add player seat' }).click();
      await waitText(seat(a, 'Player 1').getByTestId('seat-controller'), 'unassigned');

      // --- A: the invite link, copied to the clipboard
      const invite = await a.getByTestId('invite-link').inputValue();
      assert.match(invite, new RegExp(`^${new URL(url('')).origin}/join/[^/\\s]+$`));
      await a.getByRole('button', { name: 'Copy' }).click();
      await a.getByRole('status').filter({ hasText: 'Copied to the clipboard.' }).waitFor();
      assert.equal(await a.evaluate(() => navigator.clipboard.readText()), invite);

      // --- B: a wrong link is refused in words; the real one lands in the room
      const b = await person('B');
      await setDisplayName(b, 'Bob');
      await at(b, 'join/not-a-real-code');
      await b.getByRole('alert').filter({ hasText: 'This invite link is not valid.' }).waitFor();

      await b.goto(invite);
      await b.waitForURL(roomURL);
      await waitText(b.getByTestId('room-name'), 'Friday group');
      await waitText(b.getByTestId('my-authority'), 'Member');
      assert.equal(await b.getByTestId('invite-link').count(), 0, 'a member does not see the invite link');
      assert.equal(await b.getByLabel('Assign to').count(), 0, 'a member does not get assign controls');

      // --- C joins with the link and keeps the name the server gave (a guest's)
      const c = await person('C');
      await c.goto(invite);
      await c.waitForURL(roomURL);
      const guestNumber = (await (await c.request.get(url('api/me'))).json()).display_name.match(/\d{4}/)?.[0];
      assert.ok(guestNumber, 'a guest is named with four digits');

      // --- A: sees Bob appear (polling), gives him the player seat and takes the DM seat
      await a.locator('[data-testid="member"][data-member="Bob"]').waitFor();
      await seat(a, 'Player 1').getByLabel('Assign to').selectOption({ label: 'Bob' });
      await seat(a, 'Player 1').getByRole('button', { name: 'Assign', exact: true }).click();
      await waitText(seat(a, 'Player 1').getByTestId('seat-controller'), 'Bob');
      await seat(a, 'DM').getByLabel('Assign to').selectOption({ label: 'Ann' });
      await seat(a, 'DM').getByRole('button', { name: 'Assign', exact: true }).click();
      await waitText(seat(a, 'DM').getByTestId('seat-controller'), 'Ann (you)');

      // --- B: creates a character and picks it for his seat
      await at(b, 'characters');
      await b.getByTestId('characters-empty').waitFor();
      await b.getByRole('link', { name: 'New character' }).click();
      await b.getByLabel('Name', { exact: true }).fill('Mira');
      await b.getByLabel('Stealth: Proficient').check();
      await b.getByRole('button', { name: 'Save character' }).click();
      await b.waitForURL(/\/characters\/\d+$/);
      await b.getByRole('status').filter({ hasText: 'Character saved.' }).waitFor();
      await waitText(b.getByTestId('proficiency-bonus'), '+2');

      await b.goto(roomURL);
      await waitText(seat(b, 'Player 1').getByTestId('seat-controller'), 'Bob (you)');
      await seat(b, 'Player 1').getByLabel('Character in this seat').selectOption({ label: 'Mira (level 1)' });
      await waitText(seat(b, 'Player 1').getByTestId('seat-character'), 'Mira (level 1)');

      // --- A: sees the character, opens the lobby and starts
      await waitText(seat(a, 'Player 1').getByTestId('seat-character'), 'Mira (level 1)');
      await a.getByRole('button', { name: 'Open session lobby' }).click();
      await a.waitForURL(/\/sessions\/\d+$/);
      const sessionURL = a.url();
      await waitText(a.getByTestId('session-status'), 'Lobby — waiting to start');
      await myRole(a, 'DM');
      // the session controls sit with the table (on a phone: its tab)
      await showPart(a, 'At the table');
      const start = a.getByRole('button', { name: 'Start session' });
      assert.equal(await start.isEnabled(), true, 'the DM may start');
      // End waits for the session to start: not offered in the lobby (or not enabled)
      const endInLobby = a.getByRole('button', { name: 'End session' });
      assert.ok((await endInLobby.count()) === 0 || !(await endInLobby.isEnabled()), 'no End in the lobby');
      await start.click();
      await waitText(a.getByTestId('session-status'), 'Active');
      await a.getByTestId('participant').filter({ hasText: 'Mira' }).waitFor();
      await title(a, 'Session · Lost Mine — Adventure Table');

      // --- B: the room links to the running session; B sees it active
      await b.getByTestId('session-link').click();
      await b.waitForURL(sessionURL);
      await waitText(b.getByTestId('session-status'), 'Active');
      await myRole(b, 'Player');
      await showPart(b, 'At the table');
      await b.getByTestId('participant').filter({ hasText: 'Bob' }).filter({ hasText: 'Mira' }).waitFor();
      // a player sees none of the DM's controls (not even disabled ones)
      for (const name of ['Start session', 'End session', 'Abandon session']) {
        assert.equal(await b.getByRole('button', { name }).count(), 0, `${name} is not shown to B`);
      }

      // --- Abandon asks first too; Cancel sends nothing and gives the focus back
      await a.getByRole('button', { name: 'Abandon session' }).click();
      const confirmAbandon = a.getByRole('alertdialog', { name: 'Abandon this session for everyone? It cannot be started again.' });
      await confirmAbandon.getByRole('button', { name: 'Yes, abandon it' }).waitFor();
      await confirmAbandon.getByRole('button', { name: 'Cancel', exact: true }).click();
      await confirmAbandon.waitFor({ state: 'detached' });
      await a.waitForFunction(() => document.activeElement?.textContent?.trim() === 'Abandon session');
      await waitText(a.getByTestId('session-status'), 'Active');

      // --- A ends it; B's page follows live (event feed), in either language
      // End asks first; Escape cancels and nothing is sent
      await a.getByRole('button', { name: 'End session' }).click();
      const confirmEnd = a.getByRole('alertdialog', { name: 'End this session for everyone? It cannot be started again.' });
      await confirmEnd.waitFor();
      await a.keyboard.press('Escape');
      await confirmEnd.waitFor({ state: 'detached' });
      await waitText(a.getByTestId('session-status'), 'Active');
      await a.getByRole('button', { name: 'End session' }).click();
      await confirmEnd.getByRole('button', { name: 'Yes, end it' }).click();
      await waitText(a.getByTestId('session-status'), 'Ended');
      await waitText(b.getByTestId('session-status'), 'Ended');
      await b.getByLabel('Language').selectOption('zh-TW');
      await waitText(b.getByTestId('session-status'), '已結束');
      await title(b, '場次 · Lost Mine — Adventure Table');
      // the room in zh-TW: what the server named (the guest who never chose
      // a name, the DM seat's default label) travels as a code and reads in zh-TW
      await b.goto(roomURL);
      await title(b, '房間 · Friday group — Adventure Table');
      const guest = b.locator('[data-testid="member"]').filter({ hasText: guestNumber });
      await guest.waitFor();
      await guest.getByText(`訪客 ${guestNumber}`, { exact: true }).waitFor();
      assert.equal(await b.getByText(/\bGuest \d{4}\b/).count(), 0, 'no English guest name on the zh-TW page');
      await seat(b, 'DM').getByRole('cell', { name: 'DM 座位', exact: true }).waitFor();

      assert.deepEqual(pageErrors, [], 'uncaught errors in the pages');
      assert.deepEqual(notFound, [], 'pages or files that answered 404 (a favicon?)');
    });
  });
}
