// The character sheet as a sheet: a seated player opens their sheet from
// their own card at the table, clicks a skill, and the roll — rolled by the
// server with the stored sheet's modifier — appears with its label and
// total on the sheet and in the DM's feed. Away from a table the sheet only
// reads; "Edit" goes to the editor. At 1366×768 and 390×844, in the light
// and the dark theme: no horizontal scroll on the phone, no target under
// 24 px, no serious or critical axe violation.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { artifactsDir, axeViolations, chromiumOrSkip, eventually, skipLine, smallTargets } from './harness.mjs';
import { character, DESKTOP, PHONE, showPart, sizeName, tableJourney } from './table-setup.mjs';

const haveChromium = chromiumOrSkip();
// AT_SHEET_SHOTS=<dir> keeps the sheet in each theme and size (the
// journey's artifacts otherwise).
const shotsDir = process.env.AT_SHEET_SHOTS || join(artifactsDir, 'sheet');

const aria = character('Aria', {
  abilities: { str: 10, dex: 16, con: 12, int: 10, wis: 13, cha: 8 },
  skill_proficiencies: ['perception', 'stealth', 'acrobatics'],
  skill_expertise: ['stealth'],
  save_proficiencies: ['dex', 'int'],
  class: 'Rogue 3',
  species: 'Elf',
  background: 'Urchin',
  speed: 30,
  hit_die: 8,
  hp: { max: 24, current: 17, temp: 3 },
  attacks: [
    { name: 'Rapier', ability: 'dex', proficient: true, bonus: 0, damage: '1d8', damage_type: 'piercing', add_modifier: true },
    { name: 'Shortbow', ability: 'dex', proficient: true, bonus: 0, damage: '1d6', damage_type: 'piercing', add_modifier: true },
  ],
  inventory: [{ name: "Thieves' tools", quantity: 1, notes: '' }],
});

for (const viewport of [DESKTOP, PHONE]) {
  describe(`character sheet at ${sizeName(viewport)}`, { skip: !haveChromium && skipLine() }, () => {
    const { at, person, api, setUpTable, pageErrors } = tableJourney({ viewport });

    test('a seated player rolls Stealth from their sheet and the DM sees it in the feed; away from a table the sheet only reads', async () => {
      const dana = await person('Dana');
      const ann = await person('Ann');
      const { sessionId } = await setUpTable({
        dm: { page: dana, name: 'Dana' },
        players: [{ page: ann, name: 'Ann', seat: 'Seat A', character: aria }],
        room: 'Sheet room',
        campaign: 'Moonlit Roads',
        start: true,
      });

      // From the own card at the table to the sheet.
      await at(ann, `sessions/${sessionId}`);
      await ann.getByTestId('player-cards').waitFor({ state: 'attached' });
      await showPart(ann, 'At the table');
      await ann.getByTestId('card-sheet').waitFor();
      mkdirSync(shotsDir, { recursive: true });
      await ann.screenshot({ path: join(shotsDir, `card-${viewport.width}x${viewport.height}.png`) });
      await ann.getByTestId('card-sheet').click();
      const sheet = ann.getByTestId('character-sheet');
      await sheet.waitFor();
      assert.match(await ann.getByTestId('sheet-where').innerText(), /Moonlit Roads/);
      const id = Number(new URL(ann.url()).pathname.split('/')[2]);
      const { character: c } = await api(ann, 'GET', `/api/characters/${id}/sheet`);
      const stealth = c.derived.skills.stealth;
      // Level 3 (+2) with expertise, Dex 16 (+3): +7, as the sheet shows it.
      assert.equal(stealth, 7);
      assert.equal((await ann.getByTestId('sheet-skill-stealth').locator('.sheet-row-mod').innerText()).trim(), '+7');
      assert.equal((await ann.getByTestId('sheet-ability-dex').locator('.sheet-ability-mod').innerText()).trim(), '+3');

      // Click Stealth: the server rolls 1d20 + 7 as Ann's seat.
      await ann.getByRole('button', { name: /^Roll Stealth check\b/ }).click();
      const toast = ann.getByTestId('sheet-roll-result');
      await toast.getByTestId('sheet-roll-total').waitFor();
      const total = Number(await toast.getByTestId('sheet-roll-total').innerText());
      const toastText = await toast.innerText();
      assert.match(toastText, /Stealth/);
      assert.match(toastText, /\bd20 \+ 7\b/);
      assert.ok(total >= 8 && total <= 27, `1d20 + 7 gave ${total}`);

      // The DM reads it in the feed: Ann's Stealth roll with that total.
      await at(dana, `sessions/${sessionId}`);
      await dana.getByTestId('player-cards').waitFor({ state: 'attached' });
      await showPart(dana, 'Chat');
      const card = dana.getByTestId('roll-card').filter({ has: dana.locator('.roll-what', { hasText: /^Stealth$/ }) });
      await card.first().waitFor();
      assert.equal(Number(await card.first().getByTestId('feed-roll-total').innerText()), total);
      assert.match(await card.first().innerText(), /Aria|Ann/);

      // An attack's damage from the sheet: the dice and the Dex modifier.
      await ann.getByRole('button', { name: /^Roll Rapier\s*Damage/ }).click();
      await eventually(async () => assert.match(await toast.innerText(), /\bd8 \+ 3\b/));

      // Phone: nothing scrolls sideways. Everywhere: no target under 24 px.
      const overflow = await ann.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 0, `the sheet scrolls sideways by ${overflow} px`);
      assert.deepEqual(await smallTargets(ann), []);

      // Both themes: no serious or critical violation; keep a picture of each.
      const found = [];
      for (const scheme of ['light', 'dark']) {
        await ann.emulateMedia({ colorScheme: scheme });
        for (const v of await axeViolations(ann)) found.push(`${scheme}: ${v}`);
        await ann.screenshot({ path: join(shotsDir, `sheet-${viewport.width}x${viewport.height}-${scheme}.png`), fullPage: true });
        await ann.evaluate(() => window.scrollTo(0, 0));
        await ann.screenshot({ path: join(shotsDir, `sheet-${viewport.width}x${viewport.height}-${scheme}-top.png`) });
      }
      assert.deepEqual(found, []);
      await ann.emulateMedia({ colorScheme: 'light' });

      // On a touch screen (a coarse pointer) every target of the sheet is a
      // finger wide: 44 px high, buttons 44 px wide too (a link inside a
      // sentence is exempt).
      if (viewport === PHONE) {
        const touch = await ann
          .context()
          .browser()
          .newContext({ viewport, hasTouch: true, isMobile: true, locale: 'en-US', storageState: await ann.context().storageState() });
        try {
          const tp = await touch.newPage();
          await tp.goto(ann.url());
          await tp.getByTestId('sheet-skill-stealth').waitFor();
          assert.ok(await tp.evaluate(() => matchMedia('(pointer: coarse)').matches), 'the touch context has a coarse pointer');
          const small = await tp.evaluate(() => {
            const out = [];
            for (const el of document.querySelectorAll('[data-testid="character-sheet"] :is(a[href], button)')) {
              const inline = el.matches('a') && getComputedStyle(el).display === 'inline' && el.parentElement.textContent.trim() !== el.textContent.trim();
              const r = el.getBoundingClientRect();
              if (!inline && (r.height < 44 || (el.matches('button') && r.width < 44))) out.push(`${el.textContent.trim().slice(0, 30)} ${Math.round(r.width)}×${Math.round(r.height)}`);
            }
            return out;
          });
          assert.deepEqual(small, [], 'sheet targets under 44 px on a touch screen');
        } finally {
          await touch.close();
        }
      }

      // A character at no table: reached from the list, it reads but rolls nothing; Edit opens the editor.
      await api(ann, 'POST', '/api/characters', character('Benched'));
      await at(ann, 'characters');
      await ann.getByRole('link', { name: 'Open the sheet of Benched' }).click();
      await sheet.waitFor();
      assert.match(await ann.getByTestId('sheet-where').innerText(), /Not at a running table/);
      assert.equal(await ann.getByRole('button', { name: /^Roll / }).count(), 0);
      assert.equal((await ann.getByTestId('sheet-skill-perception').locator('.sheet-row-mod').innerText()).trim(), '+2');
      assert.deepEqual(await axeViolations(ann), []);
      // In Traditional Chinese the sheet reads the same way.
      await ann.getByLabel('Language').selectOption('zh-TW');
      await eventually(async () => assert.match(await ann.getByTestId('sheet-where').innerText(), /目前不在進行中的遊戲桌上/));
      await ann.screenshot({ path: join(shotsDir, `sheet-${viewport.width}x${viewport.height}-zh-TW.png`) });
      await ann.getByLabel(/Language/).selectOption('en');
      await ann.getByTestId('sheet-edit').click();
      await ann.getByRole('heading', { name: 'Benched' }).waitFor();
      assert.match(new URL(ann.url()).pathname, /^\/characters\/\d+$/);

      assert.deepEqual(pageErrors, []);
    });
  });
}
