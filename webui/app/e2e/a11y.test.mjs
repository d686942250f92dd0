// Accessibility, measured by axe-core (the engine browsers' own audits use)
// on every page of the app and on the session page's tabs and drawers, as
// the DM and as a player, in the light and the dark theme, at 1366×768 and
// at 390×844: no serious or critical violation of WCAG 2.1 A/AA. The rules
// are axe's; the pages are the real binary's. (The solo reader and its
// drawers are audited by e2e/solo-firstrun.test.mjs.)
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { axeViolations as audit, chromiumOrSkip, eventually, skipLine, styleElements } from './harness.mjs';
import { character, DESKTOP, PHONE, showPart, sizeName, tableJourney } from './table-setup.mjs';

const haveChromium = chromiumOrSkip();
// AT_TABLE_SHOTS=<dir> keeps the DM's session page in each theme and size
// (make screenshots puts them beside README's other pictures).
const shotsDir = process.env.AT_TABLE_SHOTS;

for (const viewport of [DESKTOP, PHONE]) {
  describe(`accessibility at ${sizeName(viewport)}`, { skip: !haveChromium && skipLine() }, () => {
    const { at, person, api, setUpTable, pageErrors } = tableJourney({ viewport });

    test('every page and the session page\'s tabs, as DM and player, light and dark: no serious or critical axe violation', async () => {
      const dana = await person('Dana');
      const ann = await person('Ann');
      const { room, seats, sessionId, campaignId } = await setUpTable({
        dm: { page: dana, name: 'Dana' },
        players: [{ page: ann, name: 'Ann', seat: 'Seat A', character: character('Aria') }],
        room: 'Audit room',
        campaign: 'Quiet Halls',
        start: true,
      });
      // a feed long enough to scroll (it must take the keyboard), temporary
      // hit points and a condition on a card (their text must read)
      for (let i = 1; i <= 30; i++) {
        await api(i % 2 ? ann : dana, 'POST', `/api/sessions/${sessionId}/messages`, {
          kind: i % 2 ? 'character_dialogue' : 'narration',
          text: `Line ${i}: the halls are quiet.`,
          idempotency_key: randomUUID(),
        });
      }
      await api(dana, 'POST', `/api/sessions/${sessionId}/character-state`, { subject_seat_id: seats['Seat A'], op: 'set_temp_hp', amount: 5 });
      await api(dana, 'POST', `/api/sessions/${sessionId}/character-state`, { subject_seat_id: seats['Seat A'], op: 'add_condition', condition: 'poisoned' });
      await api(dana, 'POST', `/api/campaigns/${campaignId}/journal`, { kind: 'npc', title: 'Old Tom', text: 'Keeps the ferry.', audience: 'seats', seat_ids: [seats['Seat A']] });
      await api(ann, 'POST', `/api/campaigns/${campaignId}/journal`, { kind: 'clue', title: 'Wet footprints' });
      // the theme follows the system until one is chosen under Settings
      const background = (page) => page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
      const dark = (rgb) => {
        const [r, g, b] = rgb.match(/\d+/g).map(Number);
        return r + g + b < 200;
      };
      await ann.emulateMedia({ colorScheme: 'light' });
      await at(ann, 'settings');
      await ann.getByLabel('Theme').waitFor();
      assert.ok(!dark(await background(ann)), `light system, no choice: ${await background(ann)}`);
      await ann.getByLabel('Theme').selectOption('dark');
      assert.ok(dark(await background(ann)), `Dark chosen: ${await background(ann)}`);
      await ann.reload();
      await ann.getByLabel('Theme').waitFor();
      assert.ok(dark(await background(ann)), `Dark kept after a reload: ${await background(ann)}`);
      await ann.getByLabel('Theme').selectOption('system');
      assert.ok(!dark(await background(ann)), `back to the system's: ${await background(ann)}`);
      await ann.emulateMedia({ colorScheme: 'dark' });
      assert.ok(dark(await background(ann)), `dark system: ${await background(ann)}`);

      const found = [];
      const check = async (page, what) => {
        for (const v of await audit(page)) found.push(`${what}: ${v}`);
      };
      for (const scheme of ['light', 'dark']) {
        for (const page of [dana, ann]) await page.emulateMedia({ colorScheme: scheme });
        for (const [what, path] of [
          ['home', ''],
          ['tables', 'tables'],
          ['characters', 'characters'],
          ['solo', 'solo'],
          ['settings', 'settings'],
          ['operator dashboard', 'operator'],
        ]) {
          await at(ann, path);
          await ann.locator('h1').first().waitFor();
          // the dashboard is audited with its charts drawn
          if (path === 'operator') await ann.getByTestId('chart-demo').locator('canvas').first().waitFor();
          await check(ann, `${scheme} ${what}`);
        }
        await at(dana, `rooms/${room.id}`);
        await dana.locator('h1').first().waitFor();
        await check(dana, `${scheme} room (owner)`);
        for (const [what, path] of [
          ['campaign', `campaigns/${campaignId}`],
          ['journal', `campaigns/${campaignId}/journal`],
        ]) {
          await at(ann, path);
          await ann.getByTestId('journal-entry').first().waitFor();
          await check(ann, `${scheme} ${what}`);
        }
        for (const [who, page] of [
          ['DM', dana],
          ['player', ann],
        ]) {
          await at(page, `sessions/${sessionId}`);
          await page.getByTestId('chat').waitFor();
          await check(page, `${scheme} session (${who})`);
          if (shotsDir && who === 'DM') {
            mkdirSync(shotsDir, { recursive: true });
            await page.screenshot({ path: join(shotsDir, `table-session-${viewport.width}x${viewport.height}-${scheme}.png`) });
          }
          if (viewport === PHONE) {
            for (const tab of ['At the table', 'Dice', 'Actions', 'Journal', 'Chat']) {
              await page.getByRole('tab', { name: tab, exact: true }).click();
              await check(page, `${scheme} session (${who}), ${tab} tab`);
            }
          }
        }
      }
      // React Aria's tabs and its modal dialog (focus kept in, Escape,
      // focus back) add no <style> to the page: the CSP would refuse it
      await at(dana, `sessions/${sessionId}`);
      await dana.getByTestId('chat').waitFor();
      const styles = await styleElements(dana);
      assert.equal(styles, 0, 'no <style> on the page as it loads');
      await showPart(dana, 'Actions');
      await dana.getByTestId('actions-panel').waitFor();
      await showPart(dana, 'Dice');
      const request = dana.getByRole('button', { name: 'Request check', exact: true });
      await request.click();
      const dialog = dana.getByRole('dialog', { name: 'Request a check' });
      await dialog.waitFor();
      await check(dana, 'dark session (DM), check dialog');
      const inDialog = () => dialog.evaluate((el) => el.contains(document.activeElement));
      assert.equal(await inDialog(), true, 'focus moves into the dialog');
      for (const key of ['Shift+Tab', 'Shift+Tab', 'Tab']) {
        await dana.keyboard.press(key);
        assert.equal(await inDialog(), true, `focus stays in the dialog (${key})`);
      }
      await dana.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      await eventually(async () => assert.equal(await request.evaluate((el) => el === document.activeElement), true, 'focus back on Request check'));
      assert.equal(await styleElements(dana), styles, 'no <style> added by the tabs or the dialog');

      assert.deepEqual(found, [], `axe found:\n${found.join('\n')}`);
      assert.deepEqual(pageErrors, [], 'no page errors and no CSP violations');
    });
  });
}
