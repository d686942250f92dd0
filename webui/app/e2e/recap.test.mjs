// The "Previously on…" recap, in real browsers: Dana (the DM) and Ben (a
// player) play a first session in which the innkeeper is named, end it and
// start the next. The memory job remembers the first session (without a
// model: the memories are the events condensed) and drafts the recap; only
// Dana sees the draft, above her table. She edits it and posts it; Ben's
// feed shows her edited text as the recap card, and nothing of the draft
// reaches his page or his API answers. Played with Dana at a desk and Ben
// on a phone, then the other way round.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { chromiumOrSkip, skipLine } from './harness.mjs';
import { button, character, DESKTOP, PHONE, shootBothSchemes, sizeName, tableJourney } from './table-setup.mjs';

const haveChromium = chromiumOrSkip();
const shotsDir = process.env.AT_RECAP_SHOTS;

const INNKEEPER = 'The innkeeper Bertha Stonebrew slides two mugs across the bar and whispers of a map.';
// words of the draft that Dana's edit leaves out: they must never reach Ben
const DRAFT_ONLY = 'slides two mugs';
const EDITED = 'Last time, Bertha Stonebrew of the Drowned Lantern promised you a map. EDIT-7731';

for (const [danaSize, benSize] of [
  [DESKTOP, PHONE],
  [PHONE, DESKTOP],
]) {
  describe(`recap, Dana at ${sizeName(danaSize)}, Ben at ${sizeName(benSize)}`, { skip: !haveChromium && skipLine() }, () => {
    const { at, person, api, setUpTable, pageErrors } = tableJourney({ viewport: DESKTOP });

    test('the DM edits the drafted recap and posts it; the player sees the edited text only', async () => {
      const dana = await person('Dana', { viewport: danaSize });
      const ben = await person('Ben', { viewport: benSize });
      const { campaignId, sessionId: first } = await setUpTable({
        dm: { page: dana, name: 'Dana' },
        players: [{ page: ben, name: 'Ben', seat: 'Seat A', character: character('Brom') }],
        room: 'Friday group',
        campaign: 'The Drowned Lantern',
        start: true,
      });
      await api(dana, 'POST', `/api/sessions/${first}/messages`, { kind: 'narration', text: INNKEEPER, idempotency_key: randomUUID() });
      await api(ben, 'POST', `/api/sessions/${first}/messages`, {
        kind: 'character_dialogue',
        text: 'Brom raises his mug to Bertha.',
        idempotency_key: randomUUID(),
      });
      await api(dana, 'POST', `/api/sessions/${first}/end`);

      const lobby = await api(dana, 'POST', `/api/campaigns/${campaignId}/sessions`);
      const second = lobby.session.id;
      const started = await api(dana, 'POST', `/api/sessions/${second}/start`);
      assert.ok(['drafting', 'draft'].includes(started.recap.status), `a session after another opens with a recap: ${started.recap.status}`);

      // Dana's draft, written from what the table remembers of the first session
      await at(dana, `sessions/${second}`);
      const panel = dana.getByTestId('recap-panel');
      await panel.and(dana.locator('[data-status="draft"]')).waitFor({ timeout: 30_000 });
      const box = panel.getByTestId('recap-text');
      const draft = await box.inputValue();
      assert.match(draft, /Bertha Stonebrew/, 'the draft recalls the innkeeper of the first session');
      assert.ok(draft.includes(DRAFT_ONLY), `the draft holds the first session's words: ${draft}`);
      await shoot(dana, 'recap-draft');

      // Ben sees no draft: not on his page, not in his API answer
      await at(ben, `sessions/${second}`);
      await ben.getByTestId('chat').waitFor();
      assert.equal(await ben.getByTestId('recap-panel').count(), 0, 'a player has no recap panel');
      const benView = await api(ben, 'GET', `/api/sessions/${second}`);
      assert.equal(benView.recap.text, undefined, 'a player reads no draft text');
      assert.ok(!JSON.stringify(benView).includes(DRAFT_ONLY), 'nothing of the draft is in the player\'s resume');

      await box.fill(EDITED);
      await button(panel, 'Post to the table').click();
      await panel.waitFor({ state: 'detached' });

      // both feeds show the posted recap, with Dana's words
      for (const page of [dana, ben]) {
        const card = page.getByTestId('recap-card');
        await card.filter({ hasText: 'EDIT-7731' }).waitFor();
        assert.match(await card.innerText(), /Previously on/);
        assert.ok(!(await page.locator('body').innerText()).includes(DRAFT_ONLY), 'the unedited draft is nowhere on the page');
        const width = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(width <= 0, `no sideways scroll: ${width}px`);
      }
      await shoot(ben, 'recap-posted');
      const events = await api(ben, 'GET', `/api/sessions/${second}/events?after=0`);
      assert.ok(!JSON.stringify(events).includes(DRAFT_ONLY), 'the feed\'s events hold the edited text only');

      // posting twice is refused with its code, and changes nothing
      const again = await dana.request.fetch(new URL(`/api/sessions/${second}/recap/post`, dana.url()).toString(), { method: 'POST', data: { text: 'again' } });
      assert.equal(again.status(), 409);
      assert.equal((await again.json()).error.code, 'recap_not_open');
      assert.deepEqual(pageErrors, []);
    });
  });
}

const shoot = (page, name) => shootBothSchemes(page, shotsDir, name);
