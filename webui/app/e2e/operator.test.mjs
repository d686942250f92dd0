// The operator's dashboard, in real browsers against the real binary (the
// only fake is the language model). A player's first solo turn fails (the
// default model address, where nothing listens), then, pointed at the fake
// model, a turn is narrated; the counters are flushed every second
// (AT_ANALYTICS_FLUSH=1s) and the person at this machine (local mode: a
// loopback address) reads them on /operator (linked from the settings) at
// 1366×768 and 390×844:
// visits, the failed turn under its code, the time to the first token,
// four charts drawn under the CSP (no <style> element, no refusal), no
// sideways scroll on the phone, no control under 24 px, no serious axe
// finding, and a CSV download of the days. On a hosted server a guest
// gets 403 operator_required, on the page and from the API.
// With AT_OPERATOR_SHOTS=<dir> it saves screenshots, light and dark.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { axeViolations, chromiumOrSkip, eventually, journey, skipLine, smallTargets, styleElements } from './harness.mjs';
import { soloJourney } from './solo-setup.mjs';
import { DESKTOP, PHONE, shootBothSchemes } from './table-setup.mjs';

const haveChromium = chromiumOrSkip();
const shotsDir = process.env.AT_OPERATOR_SHOTS;
// the servers these journeys start write their counters every second
process.env.AT_ANALYTICS_FLUSH = '1s';

const settle = (page) =>
  page.evaluate(() => document.fonts.ready.then(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))));

describe('the operator dashboard (local mode)', { skip: !haveChromium && skipLine() }, () => {
  const j = soloJourney();
  const { at, button, label, newPlayer, pageErrors } = j;

  test('a failed and a narrated turn reach the dashboard at desktop and phone sizes', async () => {
    // --- a player: a failed turn, then one the fake model narrates
    const player = await newPlayer(DESKTOP);
    await at(player, 'solo');
    await player.getByRole('button', { name: 'Start “The Clockwork Bazaar”', exact: true }).click();
    await player.waitForURL(/\/solo\/adventures\/\d+$/);
    const adventureUrl = player.url();
    await player.getByPlaceholder('What do you do?').fill('I ask the merchant about the key');
    await button(player, 'Send').click();
    await player.getByRole('link', { name: 'Open the model settings', exact: true }).waitFor();
    await at(player, 'solo#model-settings');
    const settings = player.getByTestId('provider-settings');
    await label(settings, 'Base URL').fill(j.model.url);
    await label(settings, 'Model').fill('fake');
    await button(settings, 'Save narrator settings').click();
    await settings.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await player.goto(adventureUrl);
    await player.getByTestId('awaiting-narration').waitFor();
    j.model.push({ text: 'The merchant smiles and turns the key in her palm.' });
    await button(player, 'Retry').click();
    await player.getByTestId('node-text').filter({ hasText: 'turns the key in her palm' }).waitFor();

    for (const viewport of [DESKTOP, PHONE]) {
      const page = await newPlayer(viewport);
      if (viewport === DESKTOP) {
        // found from the settings, where the person at this machine looks
        await at(page, 'settings');
        await page.getByRole('link', { name: 'Server dashboard', exact: true }).click();
        await page.waitForURL(/\/operator$/);
      } else {
        await at(page, 'operator');
      }
      const dashboard = page.getByTestId('operator-page');
      await dashboard.getByRole('heading', { name: 'Server dashboard' }).waitFor();
      // the counters arrive within a flush or two: reload until they do
      await eventually(
        async () => {
          await page.reload();
          await page.getByTestId('tile-turns').waitFor();
          assert.equal((await page.getByTestId('tile-turns').locator('dd').textContent()).trim(), '1');
          const failures = page.getByTestId('list-failures');
          assert.match(await failures.textContent(), /provider_\w+\s*solo turn\s*1/);
        },
        { timeout: 20_000, interval: 500 },
      );
      assert.equal((await page.getByTestId('tile-failed').locator('dd').textContent()).trim(), '50.0 %', 'one turn of two failed');
      assert.match(await page.getByTestId('tile-latency').locator('dd').textContent(), /^≤ \d+ (ms|s) \/ ≤ \d+ (ms|s)$/);
      assert.match(await page.getByTestId('list-pages').textContent(), /solo\s*\d+/);
      assert.match(await page.getByTestId('list-buckets').textContent(), /≤ \d+ (ms|s)\s*1/);
      const people = Number((await page.getByTestId('tile-people').locator('dd').textContent()).replace(/\D/g, ''));
      assert.ok(people >= 1 && people <= 3, `visitor-days ${people}: people, not page views`);
      // four charts, drawn on canvases: nothing inline the CSP refuses
      for (const chart of ['visits', 'funnel', 'latency', 'demo']) {
        await page.getByTestId(`chart-${chart}`).locator('canvas').first().waitFor();
      }
      assert.equal(await styleElements(page), 0, 'no <style> element');
      await settle(page);
      if (viewport === PHONE) {
        const w = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
        assert.ok(w.scroll <= w.inner, `the dashboard scrolls sideways on a phone: ${w.scroll} > ${w.inner}`);
      }
      assert.deepEqual(await smallTargets(page), [], 'controls under 24×24 px');
      assert.deepEqual(await axeViolations(page), [], 'serious or critical axe findings');
      await shootBothSchemes(page, shotsDir, 'operator');

      // the CSV of the days, as a spreadsheet opens it
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('operator-csv').click()]);
      const csv = readFileSync(await download.path(), 'utf8').trim().split('\n');
      assert.match(csv[0], /^day,visits,came,made,played,returned,solo_turns,turns_failed,/);
      assert.equal(csv.length, 31, 'a header and 30 days');
      const today = csv.at(-1).split(',');
      assert.equal(today[6], '1', `solo turns today: ${csv.at(-1)}`);
      assert.equal(today[7], '1', `failed turns today: ${csv.at(-1)}`);

      // a shorter period is a new report
      await page.getByTestId('operator-period').selectOption('7');
      await eventually(async () => assert.match(await page.getByTestId('operator-csv').getAttribute('href'), /days=7$/));
    }
    assert.deepEqual(pageErrors, []);
  });
});

describe('the operator dashboard (hosted mode)', { skip: !haveChromium && skipLine() }, () => {
  const { at, open, pageErrors } = journey({ hosted: true });

  test('a guest gets 403 operator_required', async () => {
    const { page } = await open('guest', { viewport: PHONE });
    await at(page, 'operator');
    await page.getByText("Only the server's operators see its dashboard.").waitFor();
    const status = await page.evaluate(async () => (await fetch('/api/operator/stats')).status);
    assert.equal(status, 403);
    const body = await page.evaluate(async () => (await fetch('/api/operator/stats.csv')).json());
    assert.equal(body.error.code, 'operator_required');
    assert.deepEqual(pageErrors, []);
  });
});
