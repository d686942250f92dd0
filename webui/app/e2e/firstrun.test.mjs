// First runs that reach a game: a newcomer goes from the home page to
// playing with a friend — the owner in at most three steps (Play with
// friends, Create table, Start playing), the friend in at most three (Sit
// down, after typing a name; the quick character is chosen for them). A step
// is one screen's primary action; the test counts them. The friend's typed
// name shows in the DM's view and they sit at the table with a character.
// At 390×844 every page the journey visits fits without sideways scrolling
// and has no interactive element under 24×24 px. AT_FIRSTRUN_SHOTS=<dir>
// keeps screenshots of each page, light and dark.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { chromiumOrSkip, journey, skipLine, smallTargets } from './harness.mjs';
import { PHONE, showPart, SIZES, sizeName } from './table-setup.mjs';

const haveChromium = chromiumOrSkip();
const MAX_STEPS = 3;
const shotsDir = process.env.AT_FIRSTRUN_SHOTS;

describe('first runs reach a game', { skip: !haveChromium && skipLine() }, () => {
  const { url, at, open, pageErrors } = journey();

  for (const size of SIZES) {
    const phone = size.width === PHONE.width;
    test(`${sizeName(size)}: from the home page to playing with a friend, at most ${MAX_STEPS} steps each`, async () => {
      const owner = (await open('owner', { viewport: size })).page;
      const friend = (await open('friend', { viewport: size })).page;
      const steps = { owner: 0, friend: 0 };
      const step = (who) => steps[who]++;
      const checked = [];

      // look checks a page at the phone's size and keeps its screenshots.
      async function look(page, name) {
        await page.evaluate(() => document.fonts.ready);
        if (phone) {
          const w = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
          assert.ok(w.scroll <= w.inner, `${name} scrolls sideways at ${sizeName(size)}: scrollWidth ${w.scroll} > ${w.inner}`);
          assert.deepEqual(await smallTargets(page), [], `${name}: interactive elements under 24×24 px`);
          checked.push(name);
        }
        if (shotsDir) {
          mkdirSync(shotsDir, { recursive: true });
          for (const scheme of ['light', 'dark']) {
            await page.emulateMedia({ colorScheme: scheme });
            await page.screenshot({ path: join(shotsDir, `${name}-${size.width}x${size.height}-${scheme}.png`), fullPage: true });
          }
          await page.emulateMedia({ colorScheme: null });
        }
      }

      // --- the owner: home → Play with friends → Create table → Start playing
      await at(owner, '');
      const cta = owner.getByRole('link', { name: /Play with friends/ });
      await cta.waitFor();
      await owner.getByTestId('home-tables-empty').waitFor();
      await owner.getByTestId('status-schema').waitFor();
      await look(owner, 'home');
      await cta.click();
      step('owner');

      await owner.waitForURL(/\/tables\/new$/);
      await owner.getByLabel('Table name').fill('Friday Night');
      await owner.getByLabel('Your name (as the DM)').fill('Ann');
      await look(owner, 'new-table');
      await owner.getByRole('button', { name: 'Create table', exact: true }).click();
      step('owner');

      const ready = owner.getByTestId('table-ready');
      await ready.waitFor();
      const invite = await ready.getByTestId('invite-link').inputValue();
      assert.match(invite, new RegExp(`^${new URL(url('')).origin}/join/[^/\\s]+$`));
      await look(owner, 'table-ready');
      await ready.getByRole('button', { name: 'Start playing', exact: true }).click();
      step('owner');
      await owner.waitForURL(/\/sessions\/\d+$/);
      await owner.locator('[data-testid="session-status"][data-status="active"]').waitFor();

      // --- the friend: the link → a name (the quick character is chosen) → Sit down
      await friend.goto(invite);
      await friend.getByTestId('invite-title').filter({ hasText: 'Friday Night' }).waitFor();
      await friend.getByText('The game is on: you join it at once.').waitFor();
      await friend.getByText(/DM: Ann/).waitFor();
      assert.equal(await friend.getByLabel('Your name').inputValue(), '', 'a guest is asked for a name, not given "Guest 1234"');
      assert.equal(await friend.getByRole('radio', { name: /Fighter/ }).isChecked(), true, 'a quick character is chosen');
      await friend.getByLabel('Your name').fill('Bob');
      await look(friend, 'join');
      await friend.getByRole('button', { name: 'Sit down', exact: true }).click();
      step('friend');
      await friend.waitForURL(owner.url());
      await friend.locator('[data-testid="session-status"][data-status="active"]').waitFor();
      await friend.locator('[data-testid="my-role"]').filter({ hasText: 'Player' }).waitFor({ state: 'attached' });

      // --- the DM sees Bob arrive, seated with his character, named as he typed
      await showPart(owner, 'Chat');
      await owner.getByText('Brenna Stoutshield joined the table late.').first().waitFor();
      await showPart(owner, 'At the table');
      const card = owner.getByTestId('participant').filter({ hasText: 'Brenna Stoutshield' });
      await card.getByTestId('controller').filter({ hasText: 'Bob' }).waitFor();
      await showPart(friend, 'At the table');
      await friend.getByTestId('participant').filter({ hasText: 'Brenna Stoutshield' }).waitFor();
      await look(owner, 'session-dm');
      await look(friend, 'session-player');

      console.log(`# ${sizeName(size)}: owner ${steps.owner} steps, friend ${steps.friend} steps; checked at 390 px: ${checked.join(', ') || '-'}`);
      assert.ok(steps.owner <= MAX_STEPS, `the owner took ${steps.owner} steps`);
      assert.ok(steps.friend <= MAX_STEPS, `the friend took ${steps.friend} steps`);
      assert.deepEqual(pageErrors, [], 'page errors or CSP refusals');
    });
  }

  test('/account on a local server says there are no accounts and leads home', async () => {
    const { page } = await open('local', { viewport: PHONE });
    await at(page, 'account');
    await page.getByRole('heading', { level: 1, name: 'No accounts on this server' }).waitFor();
    assert.equal(await page.getByRole('heading', { name: 'Page not found' }).count(), 0);
    await page.getByRole('link', { name: 'Back to the home page' }).click();
    await page.getByRole('link', { name: /Play with friends/ }).waitFor();
    assert.deepEqual(pageErrors, [], 'page errors or CSP refusals');
  });
});
