// A newcomer's first solo story, at 1366×768 and at 390×844 (a phone), against
// the real server binary; the only fake is the language model. The solo page
// offers the starter stories first; one tap on Start opens a story of their
// own. The first turn goes to the default (Ollama) address, where nothing
// listens: its error links to the model settings, where the connection is
// tested and saved; back in the story, Retry narrates the waiting action.
// After a few turns a reload opens the story at its newest turn with the
// pinned input in view. The reading options (font, size) are remembered.
// Nothing scrolls sideways at 390 px, no control is under 24×24 px, and no
// page error or CSP refusal happens. With AT_SOLO_SHOTS=<dir> the journey
// also saves screenshots, light and dark, of the solo page and the reader.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { axeViolations, chromiumOrSkip, eventually, skipLine, smallTargets } from './harness.mjs';
import { soloJourney } from './solo-setup.mjs';

const haveChromium = chromiumOrSkip();

const DESKTOP = { width: 1366, height: 768 };
const PHONE = { width: 390, height: 844 };

// A reply of several paragraphs, long enough that a few of them fill more
// than a screen.
const longReply = (n) =>
  [
    `The clock hand shivers toward the next hour (reply ${n}). Lanterns sway on their brass arms, and the smell of hot oil and cinnamon drifts between the stalls while a crowd of masked buyers presses past you.`,
    `A merchant with mirrors for eyes leans across her counter and offers you a jar of bottled thunder, a map that redraws itself every time it is folded, and a small key that she swears opens any door exactly once.`,
    `Somewhere behind the Hall of Lost Names a bell rings twice. The paper tags that hang from its ceiling rustle although there is no wind, and one of them, you are almost certain, bears your sister's name in her careful hand.`,
  ].join('\n\n');

describe('solo first run', { skip: !haveChromium && skipLine() }, () => {
  const j = soloJourney();
  const { at, button, label, newPlayer, pageErrors } = j;
  const shotsDir = process.env.AT_SOLO_SHOTS;

  const settle = (page) =>
    page.evaluate(() => document.fonts.ready.then(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))));

  async function noSideScroll(page, what) {
    await settle(page);
    const w = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
    assert.ok(w.scroll <= w.inner, `${what} scrolls sideways: scrollWidth ${w.scroll} > ${w.inner}`);
  }

  async function noSmallTargets(page, what) {
    await settle(page);
    assert.deepEqual(await smallTargets(page), [], `${what}: controls under 24×24 px`);
  }

  async function shoot(page, name) {
    if (!shotsDir) return;
    mkdirSync(shotsDir, { recursive: true });
    const size = page.viewportSize();
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      await settle(page);
      await page.screenshot({ path: join(shotsDir, `${name}-${size.width}x${size.height}-${scheme}.png`) });
    }
    await page.emulateMedia({ colorScheme: 'light' });
  }

  // inView says where the newest turn and the action box are.
  const readerView = (page) =>
    page.evaluate(() => {
      const nodes = [...document.querySelectorAll('[data-testid="story-node"]')];
      const box = document.querySelector('[data-testid="turn-input"] textarea').getBoundingClientRect();
      const dock = document.querySelector('[data-testid="reader-dock"]').getBoundingClientRect();
      const first = nodes[0].getBoundingClientRect();
      const last = nodes[nodes.length - 1].getBoundingClientRect();
      return { vh: window.innerHeight, vw: window.innerWidth, box, dock: { top: dock.top }, first: { bottom: first.bottom }, last: { top: last.top, bottom: last.bottom } };
    });

  for (const [size, viewport] of [
    ['1366×768', DESKTOP],
    ['390×844', PHONE],
  ]) {
    test(`${size}: a newcomer starts a starter story, follows the error to the model settings, plays, and comes back to the newest turn`, async () => {
      const page = await newPlayer(viewport);
      const phone = viewport === PHONE;
      await at(page, 'solo');

      // --- the starter stories come first for a newcomer
      const starters = page.getByTestId('starters');
      // at least three (waiting for the third: a loaded machine may paint the list in more than one frame)
      await starters.getByTestId('starter').nth(2).waitFor();
      const order = await page.evaluate(() =>
        [...document.querySelectorAll('main h2')].map((h) => h.textContent),
      );
      assert.equal(order[0], 'Starter stories', `the first section a newcomer sees: ${order}`);
      await page.getByTestId('starter').filter({ hasText: 'The Clockwork Bazaar' }).getByText('Scripted').waitFor();
      if (phone) await noSideScroll(page, 'the solo page');
      await noSmallTargets(page, 'the solo page');
      await shoot(page, 'solo-newcomer');

      // --- one tap starts the story
      await page.getByRole('button', { name: 'Start “The Clockwork Bazaar”', exact: true }).click();
      await page.waitForURL(/\/solo\/adventures\/\d+$/);
      const adventureUrl = page.url();
      await page.getByTestId('node-text').filter({ hasText: 'The last light leaves the riverbed' }).waitFor();

      // --- the first turn meets the default address: the error links to the model settings
      const box = page.getByPlaceholder('What do you do?');
      await box.fill('I ask the kettle-faced merchant about my sister');
      await button(page, 'Send').click();
      const link = page.getByRole('link', { name: 'Open the model settings', exact: true });
      await link.waitFor();
      await link.click();
      await page.waitForURL(/\/solo#model-settings$/);
      const settings = page.getByTestId('provider-settings');
      await eventually(async () => assert.equal(await page.evaluate(() => document.activeElement?.id), 'model-settings'));
      // the basics up front, the rest under Advanced
      assert.equal(await label(settings, 'Top p').isVisible(), false, 'top p is tucked under Advanced');
      await label(settings, 'Base URL').fill(j.model.url);
      await label(settings, 'Model').fill('fake');
      // the connection test sends the model one tiny request
      j.model.push({ text: 'Ready.' });
      await button(settings, 'Test connection').click();
      await settings.getByTestId('probe-status').filter({ hasText: 'Connected: fake answered' }).waitFor();
      await button(settings, 'Save narrator settings').click();
      await settings.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();

      // --- back in the story: the action waits; Retry narrates it
      await page.goto(adventureUrl);
      await page.getByTestId('awaiting-narration').waitFor();
      j.model.push({ text: longReply(1) });
      await button(page, 'Retry').click();
      await page.getByTestId('node-text').filter({ hasText: 'reply 1' }).waitFor();
      // the scenario's scripts ran: the output script's chime is shown
      await page.getByText('The great clock chimes: hour 2 of 12.').waitFor();
      const prompt = JSON.stringify(j.model.requests.at(-1).messages);
      assert.match(prompt, /hour 2 of 12/, 'the context script told the narrator the hour');

      // --- a few more turns, so the story is longer than the screen
      for (let n = 2; n <= 4; n++) {
        j.model.push({ text: longReply(n) });
        await box.fill(`I walk on, turn ${n}`);
        await button(page, 'Send').click();
        await page.getByTestId('node-text').filter({ hasText: `reply ${n}` }).waitFor();
      }
      // who wrote what: the player's turns are marked "You"
      assert.equal(await page.getByTestId('story-node').filter({ hasText: 'I walk on, turn 2' }).getByTestId('author-mark').innerText(), phone ? 'YOU' : 'YOU');

      // --- the reading options: a hyperlegible font, large, remembered
      await page.getByRole('button', { name: 'Reading options', exact: true }).click();
      await page.getByTestId('reader-options').getByLabel('Hyperlegible', { exact: true }).check();
      await page.getByTestId('reader-options').getByLabel('Large', { exact: true }).check();
      await page.getByRole('button', { name: 'Reading options', exact: true }).click();

      // --- a reload opens at the newest turn, the input in view, even when
      // the reader had scrolled up (the browser must not restore that place)
      await page.evaluate(() => window.scrollTo({ top: document.scrollingElement.scrollHeight / 3 }));
      await page.reload();
      await page.getByTestId('node-text').filter({ hasText: 'reply 4' }).waitFor();
      await settle(page);
      const reader = page.getByTestId('solo-reader');
      assert.equal(await reader.getAttribute('data-font'), 'hyperlegible', 'the font choice is remembered');
      assert.equal(await reader.getAttribute('data-size'), 'l', 'the size choice is remembered');
      // (the story may still be growing in its first frames, the counter
      // under the box loading: it follows its end, so wait for it to rest there)
      await page
        .waitForFunction(
          () => {
            const nodes = document.querySelectorAll('[data-testid="story-node"]');
            const dock = document.querySelector('[data-testid="reader-dock"]');
            return nodes.length > 0 && nodes[nodes.length - 1].getBoundingClientRect().bottom <= dock.getBoundingClientRect().top + 2;
          },
          null,
          { timeout: 5000, polling: 'raf' },
        )
        .catch(() => {});
      const v = await readerView(page);
      assert.ok(v.box.top >= 0 && v.box.bottom <= v.vh && v.box.left >= 0 && v.box.right <= v.vw, `the action box is in the viewport: ${JSON.stringify(v.box)} in ${v.vw}×${v.vh}`);
      assert.ok(v.last.bottom > 0 && v.last.bottom <= v.dock.top + 2, `the newest turn ends just above the pinned input: ${JSON.stringify(v)}`);
      assert.ok(v.first.bottom < 0, `the story opened at its newest turn, not its first line: ${JSON.stringify(v)}`);

      // --- the reading column: 60–75 characters a line (serif, medium)
      await page.evaluate(() => localStorage.removeItem('adventure-table.reader'));
      await page.reload();
      await page.getByTestId('node-text').filter({ hasText: 'reply 4' }).waitFor();
      await settle(page);
      if (!phone) {
        const perLine = await page.evaluate(() => {
          const p = [...document.querySelectorAll('[data-testid="node-text"] p')].find((e) => e.textContent.includes('Hall of Lost Names'));
          const range = document.createRange();
          range.selectNodeContents(p);
          const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
          return p.textContent.length / (tops.size - 0.5);
        });
        console.log(`# ${Math.round(perLine)} characters a line`);
        assert.ok(perLine >= 58 && perLine <= 78, `about ${Math.round(perLine)} characters a line`);
      }
      // the turn's ⋯ does not cover its text
      const overlap = await page.evaluate(() => {
        const node = [...document.querySelectorAll('[data-testid="story-node"]')].at(-1);
        const t = node.querySelector('[data-testid="node-text"]').getBoundingClientRect();
        const b = node.querySelector('.turn-menu-toggle').getBoundingClientRect();
        return b.left < t.right && b.right > t.left && b.top < t.bottom && b.bottom > t.top;
      });
      assert.equal(overlap, false, 'the ⋯ button is clear of the text');
      if (phone) await noSideScroll(page, 'the reader');
      await noSmallTargets(page, 'the reader');
      await shoot(page, 'solo-reader');
      await page.getByRole('button', { name: 'More actions', exact: true }).click();
      await page.getByRole('menuitem', { name: 'Story cards', exact: true }).waitFor();
      // the menu opens above the dock, whole on screen, with its first item focused
      const menuBox = await page.getByRole('menu', { name: 'More actions' }).boundingBox();
      const dockTop = await page.evaluate(() => document.querySelector('[data-testid="reader-dock"]').getBoundingClientRect().top);
      assert.ok(menuBox.x >= 0 && menuBox.y >= 0 && menuBox.x + menuBox.width <= viewport.width, `the menu is on screen: ${JSON.stringify(menuBox)}`);
      assert.ok(menuBox.y + menuBox.height <= dockTop + 1, 'the menu opens above the dock');
      assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('role')), 'menuitem');
      await shoot(page, 'solo-reader-menu');
      await page.keyboard.press('Escape');
      assert.equal(await page.getByRole('menu').count(), 0, 'Escape closes the menu');
      assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'More actions', 'focus is back on the button');
      // the keyboard alone: ArrowUp opens at the last item, typing a name moves to it, Enter picks it
      await page.keyboard.press('ArrowUp');
      await page.getByRole('menu', { name: 'More actions' }).waitFor();
      assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Export adventure');
      await page.keyboard.type('mem');
      assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Memory');
      await page.keyboard.press('Enter');
      await page.getByRole('dialog').first().waitFor();
      await shoot(page, 'solo-reader-memory');
      await page.keyboard.press('Escape');
      await page.getByRole('dialog').first().waitFor({ state: 'detached' });
      // the reader and its drawers, light and dark: no serious or critical axe violation
      const found = [];
      for (const scheme of ['light', 'dark']) {
        await page.emulateMedia({ colorScheme: scheme });
        for (const v of await axeViolations(page)) found.push(`${scheme} reader: ${v}`);
        for (const drawer of ['Story cards', 'Memory']) {
          await page.getByRole('button', { name: 'More actions', exact: true }).click();
          await page.getByRole('menuitem', { name: drawer, exact: true }).click();
          await page.getByRole('dialog').first().waitFor();
          for (const v of await axeViolations(page)) found.push(`${scheme} ${drawer}: ${v}`);
          await page.keyboard.press('Escape');
          await page.getByRole('dialog').first().waitFor({ state: 'detached' });
        }
      }
      assert.deepEqual(found, [], `axe found:\n${found.join('\n')}`);
      assert.deepEqual(pageErrors, [], 'no page errors and no CSP violations');
    });
  }
});
