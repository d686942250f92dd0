// The campaign journal, in real browsers: Dana (the DM, at a desk or on a
// phone) writes the innkeeper into the journal for Ben's seat alone and the
// inn for the whole table from the Journal tab beside the feed; Ben reads
// both on his table and proposes a clue; Cleo, the other player, never
// reads the innkeeper (not on her page, not in her API answers). Dana
// confirms Ben's clue on the campaign's journal page, reached from the
// room. Played with Dana at a desk and Ben on a phone, then the other way
// round. Then the campaign's story so far: the session with its fight,
// who fell and what it added to the journal, Cleo's without Ben's secret;
// her download holds none of it, Dana's holds all and imports into the
// room as a new campaign.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { chromiumOrSkip, eventually, skipLine } from './harness.mjs';
import { button, character, DESKTOP, PHONE, shootBothSchemes, sizeName, tableJourney } from './table-setup.mjs';

const haveChromium = chromiumOrSkip();
const shotsDir = process.env.AT_JOURNAL_SHOTS;
const SECRET = 'Bertha owes the river thieves forty silver. SENTINEL-5521';

for (const [danaSize, benSize] of [
  [DESKTOP, PHONE],
  [PHONE, DESKTOP],
]) {
  describe(`journal, Dana at ${sizeName(danaSize)}, Ben at ${sizeName(benSize)}`, { skip: !haveChromium && skipLine() }, () => {
    const { at, person, api, setUpTable, pageErrors } = tableJourney({ viewport: DESKTOP });

    test('the DM writes for one player and for the table; a player proposes; the DM confirms; the other player never reads the secret', async () => {
      const dana = await person('Dana', { viewport: danaSize });
      const ben = await person('Ben', { viewport: benSize });
      const cleo = await person('Cleo', { viewport: PHONE });
      const { campaignId, room, sessionId } = await setUpTable({
        dm: { page: dana, name: 'Dana' },
        players: [
          { page: ben, name: 'Ben', seat: 'Seat A', character: character('Brom') },
          { page: cleo, name: 'Cleo', seat: 'Seat B', character: character('Ilse') },
        ],
        room: 'Friday group',
        campaign: 'The Drowned Lantern',
        start: true,
      });

      // Dana writes two entries from the Journal tab of her table
      await at(dana, `sessions/${sessionId}`);
      await dana.getByRole('tab', { name: 'Journal' }).click();
      const journal = dana.getByTestId('journal');
      await write(journal, { kind: 'NPC', title: 'Bertha Stonebrew', text: SECRET, some: ['Brom'] });
      const bertha = journal.getByTestId('journal-entry').filter({ hasText: 'Bertha Stonebrew' });
      await bertha.getByText('Known to Brom').waitFor();
      await write(journal, { kind: 'Place', title: 'The Drowned Lantern', text: 'An inn on stilts above the river.' });
      await journal.getByTestId('journal-entry').filter({ hasText: 'An inn on stilts' }).getByText('The whole table').waitFor();
      await shoot(dana, 'journal-dm-tab');

      // Ben reads both on his table and proposes a clue
      await at(ben, `sessions/${sessionId}`);
      await ben.getByRole('tab', { name: 'Journal' }).click();
      const benJournal = ben.getByTestId('journal');
      await benJournal.getByText('SENTINEL-5521').waitFor();
      await benJournal.getByText('An inn on stilts above the river.').waitFor();
      await write(benJournal, { kind: 'Clue', title: 'Muddy boots by the door' });
      const clue = benJournal.getByTestId('journal-entry').filter({ hasText: 'Muddy boots' });
      await clue.getByText('Proposed').waitFor();
      await shoot(ben, 'journal-player-tab');

      // Cleo never reads the innkeeper's secret
      await at(cleo, `sessions/${sessionId}`);
      await cleo.getByRole('tab', { name: 'Journal' }).click();
      await cleo.getByTestId('journal').getByText('Muddy boots by the door').waitFor();
      assert.ok(!(await cleo.locator('body').innerText()).includes('SENTINEL-5521'), "Cleo's page shows an entry for Ben alone");
      const cleoView = await api(cleo, 'GET', `/api/campaigns/${campaignId}/journal`);
      assert.ok(!JSON.stringify(cleoView).includes('SENTINEL-5521') && !JSON.stringify(cleoView).includes('Bertha'), 'Cleo reads no entry for Ben alone');
      assert.equal(cleoView.entries.length, 2);

      // Dana confirms the clue on the campaign's journal page, from the room
      await at(dana, `rooms/${room.id}`);
      await dana.getByTestId('campaign-journal-link').click();
      await dana.getByRole('heading', { name: 'Journal — The Drowned Lantern' }).waitFor();
      const onPage = dana.getByTestId('journal-entry').filter({ hasText: 'Muddy boots' });
      await onPage.getByText('Proposed').waitFor();
      await shoot(dana, 'journal-page');
      await button(onPage, 'Confirm').click();
      await onPage.getByText('Proposed').waitFor({ state: 'detached' });
      const after = await api(ben, 'GET', `/api/campaigns/${campaignId}/journal?kind=clue`);
      assert.equal(after.entries.length, 1);
      assert.equal(after.entries[0].confirmed, true, 'the clue is confirmed for Ben too');
      assert.equal(after.entries[0].can_edit, false, 'a confirmed proposal is no longer Ben\'s to change');

      // the story so far: the fight, who fell, what the session added; Cleo's has no secret
      await api(dana, 'POST', `/api/sessions/${sessionId}/encounter`, { name: 'Cellar', npcs: [{ name: 'Ogre', ac: 17, hp: 9173 }] });
      await api(dana, 'POST', `/api/sessions/${sessionId}/encounter/change`, { combatant_id: 'npc:1', op: 'damage', amount: 9173 });
      await api(dana, 'POST', `/api/sessions/${sessionId}/encounter/end`);
      await at(dana, `rooms/${room.id}`);
      await dana.getByTestId('campaign-story-link').click();
      const first = dana.getByTestId('timeline-session').first();
      await first.getByText('Session 1').waitFor();
      await first.getByText('Cellar', { exact: true }).waitFor();
      await first.getByText('Ogre', { exact: true }).waitFor();
      for (const title of ['Bertha Stonebrew', 'The Drowned Lantern', 'Muddy boots by the door']) {
        await first.getByText(title).first().waitFor();
      }
      await shoot(dana, 'campaign-story');
      await at(cleo, `campaigns/${campaignId}`);
      await cleo.getByTestId('timeline-session').first().getByText('Muddy boots by the door').first().waitFor();
      const cleoStory = await cleo.locator('body').innerText();
      assert.ok(!cleoStory.includes('Bertha') && !cleoStory.includes('9173'), `Cleo's story so far holds no entry for Ben alone and no hidden HP: ${cleoStory}`);
      // Cleo's download of the campaign: her view, with the story in Markdown
      const [download] = await Promise.all([cleo.waitForEvent('download'), cleo.getByTestId('campaign-export').click()]);
      assert.equal(download.suggestedFilename(), 'The Drowned Lantern.campaign.json');
      const file = JSON.parse(readFileSync(await download.path(), 'utf8'));
      assert.equal(file.format, 'adventure-table.campaign');
      assert.equal(file.exported_as, 'player');
      assert.match(file.markdown, /^# The Drowned Lantern/);
      assert.match(file.markdown, /Muddy boots by the door/);
      assert.ok(!JSON.stringify(file).includes('SENTINEL-5521') && !JSON.stringify(file).includes('9173'), "Cleo's file holds no entry for Ben alone and no hidden HP");

      // Dana downloads the whole campaign and imports it into the room as a new campaign
      await at(dana, `campaigns/${campaignId}`);
      const [dmDownload] = await Promise.all([dana.waitForEvent('download'), dana.getByTestId('campaign-export').click()]);
      const dmFile = await dmDownload.path();
      assert.ok(readFileSync(dmFile, 'utf8').includes('SENTINEL-5521'), "the DM's file holds the entry for Ben");
      await at(dana, `rooms/${room.id}`);
      await dana.getByTestId('campaign-import-file').setInputFiles(dmFile);
      await eventually(async () => {
        const r = await api(dana, 'GET', `/api/rooms/${room.id}`);
        assert.equal(r.campaigns.filter((c) => c.name === 'The Drowned Lantern').length, 2, 'the imported campaign is in the room');
      });
      const rooms = await api(dana, 'GET', `/api/rooms/${room.id}`);
      const copy = rooms.campaigns.find((c) => c.name === 'The Drowned Lantern' && c.id !== campaignId);
      const copied = await api(dana, 'GET', `/api/campaigns/${copy.id}/journal`);
      assert.deepEqual(copied.entries.map((e) => [e.title, e.audience]).sort(), [
        ['Bertha Stonebrew', 'dm'],
        ['Muddy boots by the door', 'table'],
        ['The Drowned Lantern', 'table'],
      ]);
      await shoot(dana, 'room-after-import');

      for (const page of [dana, ben, cleo]) {
        const width = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(width <= 0, `no sideways scroll: ${width}px`);
      }
      assert.deepEqual(pageErrors, []);
    });
  });
}

// write fills the journal's form: kind, title, details, and, with some,
// the players who know it.
async function write(journal, { kind, title, text, some }) {
  await journal.getByTestId('journal-add').click();
  const form = journal.getByTestId('journal-form');
  await form.getByLabel('Kind').selectOption({ label: kind });
  await form.getByLabel('Name or title').fill(title);
  if (text) await form.getByLabel('Details').fill(text);
  if (some) {
    await form.getByLabel('Some players').check();
    for (const name of some) await form.getByLabel(name, { exact: true }).check();
  }
  await button(form, 'Save').click();
  await form.waitFor({ state: 'detached' });
  await journal.getByTestId('journal-entry').filter({ hasText: title }).waitFor();
}

const shoot = (page, name) => shootBothSchemes(page, shotsDir, name);
