// A two-round fight at the table, end to end, at desktop and at phone size:
// DM Dana and the players Ann (Aria) and Bob (Brom) in three browser
// contexts on the real server binary. Dana starts an encounter with both
// seats and a hidden goblin, the players enter their initiative d20s, Dana
// begins; the tracker highlights whose turn it is on every page, the player
// whose turn it is gets "Your turn" (and the page title says so); Ann hits
// the goblin, the goblin hits Brom (his card and the tracker show the damage),
// a one-round condition ends at the end of Brom's turn, and Dana ends the
// fight with its summary. Physical dice keep every roll known; the players'
// pages never show the goblin's AC or hit points.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chromiumOrSkip, skipLine } from './harness.mjs';
import { button, character, showPart, SIZES, sizeName, tableJourney, waitText } from './table-setup.mjs';

const haveChromium = chromiumOrSkip();

// The goblin's hidden numbers: none of these may reach a player's page.
const GOBLIN_SECRETS = ['AC 13', 'HP 12/12', 'HP 8/12', '12 → 8', '8/12'];

for (const viewport of SIZES) {
  describe(`combat journey at ${sizeName(viewport)}`, { skip: !haveChromium && skipLine() }, () => {
    const { at, person, api, setUpTable, pageErrors } = tableJourney({ viewport });
    const tablePart = (page) => showPart(page, 'At the table');
    const feedPart = (page) => showPart(page, 'Chat');

    const tracker = (page) => page.getByTestId('encounter');
    const row = (page, name) => tracker(page).getByTestId('combatant').filter({ has: page.getByTestId('combatant-name').filter({ hasText: name }) });
    const prompt = (page) => page.getByTestId('encounter-prompt');
    // current: the tracker shows name as the one whose turn it is (the only one)
    async function current(page, name) {
      await tablePart(page);
      await row(page, name).and(page.locator('[data-current="true"]')).waitFor();
      assert.equal(await tracker(page).locator('[data-testid="combatant"][data-current="true"]').count(), 1, 'one current actor');
    }
    const turnCard = (page, round, name) =>
      page.getByTestId('encounter-card').filter({ hasText: `Round ${round}: ${name}’s turn` });
    // noSecrets: the goblin's AC and HP are nowhere in a player's page
    async function noSecrets(page, who) {
      const html = await page.content();
      for (const s of GOBLIN_SECRETS) assert.ok(!html.includes(s), `${who}'s page shows the goblin's "${s}"`);
    }
    async function endTurn(page) {
      await button(prompt(page), 'End my turn').click();
    }

    test(`Dana, Ann and Bob fight two rounds at ${sizeName(viewport)}`, async () => {
      const dana = await person('Dana');
      const ann = await person('Ann');
      const bob = await person('Bob');
      const { sessionId } = await setUpTable({
        dm: { page: dana, name: 'Dana' },
        players: [
          {
            page: ann,
            name: 'Ann',
            seat: 'Seat A',
            // Dex +2, proficient at level 3 (+2): to hit +4, damage 1d6+2
            character: character('Aria', {
              attacks: [{ name: 'Shortsword', ability: 'dex', proficient: true, bonus: 0, damage: '1d6', damage_type: 'piercing', add_modifier: true }],
            }),
          },
          { page: bob, name: 'Bob', seat: 'Seat B', character: character('Brom') },
        ],
        room: 'Combat room',
        campaign: 'Goblin Woods',
        start: true,
      });
      const players = [ann, bob];
      const everyone = [dana, ann, bob];
      for (const page of everyone) {
        await at(page, `sessions/${sessionId}`);
        await waitText(page.getByTestId('session-status'), 'Active');
      }

      // --- Dana starts: both seats (chosen by default) and a hidden goblin with a known initiative
      await tablePart(dana);
      await button(tracker(dana), 'Start an encounter').click();
      const start = dana.getByTestId('encounter-start');
      await start.getByLabel('Name', { exact: true }).fill('Goblin ambush');
      await button(start, 'Add NPC').click();
      await start.getByLabel('NPC name').fill('Goblin');
      await start.getByLabel('AC', { exact: true }).fill('13');
      await start.getByLabel('HP', { exact: true }).fill('12');
      await start.getByLabel('Initiative', { exact: true }).fill('5');
      await button(start, 'Start encounter').click();
      // the DM sees the goblin's numbers, marked hidden
      await row(dana, 'Goblin').getByTestId('combatant-ac').filter({ hasText: 'AC 13' }).waitFor();
      await waitText(row(dana, 'Goblin').getByTestId('combatant-hp'), 'HP 12/12');

      // --- the players roll initiative with their own d20s (Dex +2): Aria 15+2, Brom 10+2
      for (const [page, face] of [
        [ann, '15'],
        [bob, '10'],
      ]) {
        await prompt(page).getByText('Roll for initiative:').waitFor();
        await prompt(page).getByLabel('or my d20').fill(face);
        await button(prompt(page), 'Enter').click();
        await prompt(page).waitFor({ state: 'detached' });
      }
      for (const page of everyone) {
        await tablePart(page);
        await waitText(row(page, 'Aria').getByTestId('combatant-initiative'), '17');
        await waitText(row(page, 'Brom').getByTestId('combatant-initiative'), '12');
        await waitText(row(page, 'Goblin').getByTestId('combatant-initiative'), '5');
      }
      for (const [page, who] of [
        [ann, 'Ann'],
        [bob, 'Bob'],
      ]) {
        assert.equal(await row(page, 'Goblin').getByTestId('combatant-hp').count(), 0, `${who} sees no goblin HP`);
        assert.equal(await row(page, 'Goblin').getByTestId('combatant-ac').count(), 0, `${who} sees no goblin AC`);
        await noSecrets(page, who);
      }

      // --- Dana begins: round 1, Aria first; Ann is told it is her turn
      await tablePart(dana);
      await button(tracker(dana), 'Begin fight').click();
      for (const page of everyone) {
        await waitText(tracker(page).getByTestId('encounter-round'), 'Round 1');
        await current(page, 'Aria');
      }
      await waitText(ann.getByTestId('turn-notice'), 'Your turn! (round 1)');
      assert.match(await ann.title(), /^Your turn · Goblin Woods/);
      assert.equal(await bob.getByTestId('turn-notice').count(), 0, 'not Bob’s turn');

      // --- Ann attacks the goblin with her sheet's Shortsword and her own dice: 15 + 4 = 19 hits AC 13; 1d6+2 with a 2 deals 4
      await tablePart(ann);
      await button(tracker(ann), 'Attack').click();
      const annAttack = ann.getByTestId('attack-form');
      await annAttack.getByLabel('Target').selectOption({ label: 'Goblin' });
      await annAttack.getByLabel('Sheet attack').selectOption({ label: 'Shortsword' });
      await waitText(annAttack.getByTestId('sheet-attack'), 'To hit +4, damage 1d6+2 piercing');
      await annAttack.getByLabel('My d20').fill('15');
      await annAttack.getByLabel('My damage dice').fill('2');
      await button(annAttack, 'Roll attack').click();
      for (const page of everyone) {
        await feedPart(page);
        const card = page.getByTestId('attack-card').filter({ hasText: 'Shortsword' });
        await card.waitFor();
        assert.equal(await card.getAttribute('data-hit'), 'true');
        await waitText(card.getByTestId('attack-total'), '19');
        await waitText(card.getByTestId('attack-outcome'), 'HIT');
        await waitText(card.getByTestId('damage-amount'), '4');
      }
      // the DM's card carries the AC and the goblin's hit points; the players' do not
      const danaCard = dana.getByTestId('attack-card').filter({ hasText: 'Shortsword' });
      await danaCard.getByTestId('dm-detail').filter({ hasText: 'AC 13' }).waitFor();
      await danaCard.getByTestId('dm-detail').filter({ hasText: 'HP 12 → 8/12' }).waitFor();
      for (const [page, who] of [
        [ann, 'Ann'],
        [bob, 'Bob'],
      ]) {
        assert.equal(await page.getByTestId('attack-card').getByTestId('dm-detail').count(), 0, `${who} sees no DM detail`);
        await noSecrets(page, who);
      }
      await tablePart(dana);
      await waitText(row(dana, 'Goblin').getByTestId('combatant-hp'), 'HP 8/12');

      // --- Dana poisons Brom for one round (it ends at the end of his next turn)
      await button(tracker(dana), 'Change combatant').click();
      const change = dana.getByTestId('change-form');
      await change.getByLabel('Combatant').selectOption({ label: 'Brom' });
      await change.getByLabel('Change', { exact: true }).selectOption({ label: 'Add condition' });
      await change.getByLabel('Condition').selectOption({ label: 'Poisoned' });
      await change.getByLabel('Rounds').fill('1');
      await button(change, 'Apply').click();
      for (const page of everyone) {
        await tablePart(page);
        await waitText(row(page, 'Brom').getByTestId('combatant-condition'), 'Poisoned (1)');
      }
      await button(tracker(dana), 'Change combatant').click();

      // --- Ann ends her turn: Brom's; Bob ends his: the poison ends, the goblin's turn
      await endTurn(ann);
      await waitText(bob.getByTestId('turn-notice'), 'Your turn! (round 1)');
      await ann.getByTestId('turn-notice').waitFor({ state: 'detached' });
      for (const page of everyone) await current(page, 'Brom');
      await endTurn(bob);
      for (const page of everyone) {
        await current(page, 'Goblin');
        assert.equal(await row(page, 'Brom').getByTestId('combatant-condition').count(), 0, 'the poison is gone');
        await feedPart(page);
        await waitText(turnCard(page, 1, 'Goblin').getByTestId('expired'), 'Poisoned ended on Brom.');
      }
      // the DM is told the goblin acts now; players are not
      await waitText(dana.getByTestId('npc-turn').getByRole('status'), 'Goblin acts now (round 1): attack with it or pass the turn.');
      for (const page of players) assert.equal(await page.getByTestId('npc-turn').count(), 0, 'no NPC-turn notice for players');

      // --- the goblin (Dana) attacks Brom: 16 + 4 = 20 hits AC 12; 1d6+2 with a 4 deals 6: Brom 24 → 18
      await tablePart(dana);
      await button(tracker(dana), 'Attack').click();
      const danaAttack = dana.getByTestId('attack-form');
      await danaAttack.getByLabel('Attacker').selectOption({ label: 'Goblin' });
      await danaAttack.getByLabel('Target').selectOption({ label: 'Brom' });
      await danaAttack.getByLabel('Weapon').fill('Scimitar');
      await danaAttack.getByLabel('To-hit bonus').fill('4');
      await danaAttack.getByLabel('Damage dice', { exact: true }).fill('1d6+2');
      await danaAttack.getByLabel('Damage type').fill('slashing');
      await danaAttack.getByLabel('My d20').fill('16');
      await danaAttack.getByLabel('My damage dice').fill('4');
      await button(danaAttack, 'Roll attack').click();
      for (const page of everyone) {
        await feedPart(page);
        const card = page.getByTestId('attack-card').filter({ hasText: 'Scimitar' });
        await waitText(card.getByTestId('attack-outcome'), 'HIT');
        await waitText(card.getByTestId('damage-amount'), '6');
        await waitText(card.getByTestId('attack-hp'), 'HP 24 → 18/24');
        await tablePart(page);
        await waitText(row(page, 'Brom').getByTestId('combatant-hp'), 'HP 18/24');
        await page.getByTestId('participant').filter({ hasText: 'Brom' }).getByTestId('card-hp').filter({ hasText: 'HP 18/24' }).waitFor();
      }
      await button(tracker(dana), 'Attack').click();

      // --- round 2: Dana moves on; Aria, Brom, then the goblin
      await tablePart(dana);
      await button(tracker(dana), 'Next turn').click();
      for (const page of everyone) {
        await waitText(tracker(page).getByTestId('encounter-round'), 'Round 2');
        await current(page, 'Aria');
      }
      await waitText(ann.getByTestId('turn-notice'), 'Your turn! (round 2)');
      await endTurn(ann);
      await waitText(bob.getByTestId('turn-notice'), 'Your turn! (round 2)');
      await endTurn(bob);
      for (const page of everyone) await current(page, 'Goblin');

      // --- Dana ends the fight: its summary in every feed, the tracker gone from the players' pages
      await tablePart(dana);
      await tracker(dana).getByTestId('encounter-end').click();
      await button(tracker(dana).getByRole('alertdialog'), 'Yes, end it').click();
      for (const page of everyone) {
        await feedPart(page);
        const summary = page.getByTestId('encounter-summary');
        await summary.filter({ hasText: 'The fight is over: Goblin ambush, 2 rounds' }).waitFor();
        const aria = summary.getByTestId('summary-row').filter({ hasText: 'Aria' });
        assert.deepEqual(await aria.locator('td').allTextContents(), ['1', '0', '4', '0'], 'Aria: 1 hit, 4 dealt');
        const brom = summary.getByTestId('summary-row').filter({ hasText: 'Brom' });
        assert.deepEqual(await brom.locator('td').allTextContents(), ['0', '0', '0', '6'], 'Brom: 6 taken');
      }
      for (const [page, who] of [
        [ann, 'Ann'],
        [bob, 'Bob'],
      ]) {
        await tracker(page).waitFor({ state: 'detached' });
        await noSecrets(page, who);
      }
      // the players' reads of the fight never carried the goblin's numbers either
      const events = await api(bob, 'GET', `/api/sessions/${sessionId}/events?after=0`);
      assert.ok(!events.events.some((e) => e.kind === 'encounter.secret'), 'no DM-only event reaches Bob');
      for (const e of events.events.filter((x) => x.kind.startsWith('encounter.') && x.payload.encounter)) {
        const goblin = e.payload.encounter.combatants.find((c) => c.name === 'Goblin');
        assert.ok(goblin && goblin.ac == null && goblin.hp == null, `${e.kind} shows Bob no goblin numbers`);
      }
      for (const page of players) assert.doesNotMatch(await page.title(), /^Your turn/);
      assert.deepEqual(pageErrors, [], 'uncaught errors in the pages');
    });
  });
}
