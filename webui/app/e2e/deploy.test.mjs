// A table behind the production deployment (README "Running in
// production"): Caddy with deploy/Caddyfile and its own CA in front of two
// server processes on one PostgreSQL, requests round-robin with no
// stickiness. Dana (the DM) and Ben play on phones (390×844): the session
// starts, chat lines and a roll go both ways and reach the other phone
// live, though each person's requests (their event stream too) land on
// either process; both processes serve. Needs AT_TEST_POSTGRES_DSN and
// Caddy; required when AT_TEST_REQUIRE contains "proxy".
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { deploymentMissing, deploymentRequired } from './deployment.mjs';
import { chromiumOrSkip, skipLine } from './harness.mjs';
import { character, chatLine, PHONE, showPart, tableJourney, waitText } from './table-setup.mjs';

const haveChromium = chromiumOrSkip();
const missing = deploymentMissing();
if (missing && deploymentRequired()) throw new Error(`the deployment journey is required (AT_TEST_REQUIRE contains proxy) but ${missing}`);
const skip = (!haveChromium && skipLine()) || (missing ? `SKIPPED: the deployment journey: ${missing}` : false);
if (missing && haveChromium) console.log(skip);

describe('a table behind Caddy on two processes, at 390×844', { skip }, () => {
  const { at, person, setUpTable, pageErrors, server } = tableJourney({ viewport: PHONE, behindProxy: true });
  const message = (page) => page.getByLabel('Message', { exact: true });
  const button = (page, name) => page.getByRole('button', { name, exact: true });
  async function say(page, text) {
    await message(page).fill(text);
    await button(page, 'Send').click();
    await page.waitForFunction(() => document.querySelector('textarea.message-input')?.value === '');
  }

  test('Dana and Ben chat and roll live, served by both processes', async () => {
    const dana = await person('Dana');
    const ben = await person('Ben');
    assert.match(dana.url(), /^https:\/\/localhost:\d+\//);
    const { sessionId } = await setUpTable({
      dm: { page: dana, name: 'Dana' },
      players: [{ page: ben, name: 'Ben', seat: 'Seat A', character: character('Brom') }],
      room: 'Behind the proxy',
      campaign: 'Two Lamps',
      start: true,
    });
    for (const page of [dana, ben]) {
      await at(page, `sessions/${sessionId}`);
      await waitText(page.getByTestId('session-status'), 'Active');
      await showPart(page, 'Chat');
    }
    // lines both ways: each reaches the other phone through its own stream
    for (let i = 1; i <= 4; i++) {
      const [from, to, who] = i % 2 ? [ben, dana, 'Brom'] : [dana, ben, 'DM']; // the DM's line is narration
      const text = `Lamp ${i} is lit.`;
      await say(from, text);
      await waitText(chatLine(to, text).getByTestId('speaker'), who);
    }
    await say(ben, '/r 1d20+2');
    const roll = (page) => page.getByTestId('chat').locator('[data-testid="log-line"][data-kind="roll.quick"]');
    await roll(dana).first().waitFor();
    assert.equal(await roll(dana).getByTestId('feed-roll-total').textContent(), await roll(ben).getByTestId('feed-roll-total').textContent());

    const served = server().servers.map((s) => (s.output().match(/msg="http request"/g) ?? []).length);
    assert.ok(served.every((n) => n >= 5), `requests served by each process: ${served}`);
    assert.deepEqual(pageErrors, []);
  });
});
