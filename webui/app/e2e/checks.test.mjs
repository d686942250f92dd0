// Checks, rolls, pending actions and character state, end to end: the DM
// and two players (three browser contexts, three guests) on the real server
// binary. The DM asks both players for a hidden Perception check with
// advantage at DC 15; Ann lets the server roll, Bob enters his own dice; both
// see their totals, only the DM sees the DC and pass / fail; the players see
// the DC's commitment until both have rolled, then the DC, checked against
// it by their own browsers. Then a roll
// by the DM for a player, a player's /check turned into a request and
// cancelled, HP, conditions, resources, action windows, declared actions
// (with an illegal move refused) and quick rolls, all live
// (long-poll), with no reloads and no fixed sleeps.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { chromiumOrSkip, skipLine } from './harness.mjs';
import { button, character as sheet, DESKTOP, PHONE, showPart, sizeName, tableJourney, waitText } from './table-setup.mjs';

const haveChromium = chromiumOrSkip();
// AT_CHECK_SHOTS=<dir> keeps a player's check card, sealed and then verified,
// at both sizes, light and dark.
const shotsDir = process.env.AT_CHECK_SHOTS;

// shootCard saves page, scrolled to card, at each size and theme as
// <dir>/check-<what>-<size>-<scheme>.png, then restores the desktop light view.
async function shootCard(page, card, what) {
  if (!shotsDir) return;
  for (const size of [DESKTOP, PHONE]) {
    await page.setViewportSize(size);
    await showPart(page, 'Chat');
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      await card.scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${shotsDir}/check-${what}-${sizeName(size)}-${scheme}.png` });
    }
  }
  await page.setViewportSize(DESKTOP);
  await page.emulateMedia({ colorScheme: null });
}

// dcFree removes from a page's HTML what carries numbers that are not game
// values: scripts and stylesheets (hashed asset names), icons (the
// coordinates of their drawings), <time> elements and
// datetime attributes (clock times), event sequence numbers (data-seq) and
// React's generated element ids (id / for / aria-* references), and a DC
// commitment's hash (hex digits, not a number of the game). What is left is
// everything the page shows or keeps in its DOM about the game.
function dcFree(html) {
  return html
    .replace(/<(script|style|svg)\b[\s\S]*?<\/\1>/g, '')
    .replace(/<code class="dc-hash"[\s\S]*?<\/code>/g, '')
    .replace(/<link\b[^>]*>/g, '')
    .replace(/<time\b[\s\S]*?<\/time>/g, '')
    .replace(/\s(id|for|aria-labelledby|aria-controls|aria-describedby|data-seq|datetime)="[^"]*"/g, '');
}

// commitmentOf is the hex SHA-256 commitment to a DC and its salt, as the
// server defines it (gameplay/table/commitment.go).
const commitmentOf = (dc, salt) => createHash('sha256').update(`adventure-table-dc-v1:${dc}:${salt}`).digest('hex');

// hasDcKey finds a "dc" key anywhere in a JSON value.
function hasDcKey(value) {
  if (Array.isArray(value)) return value.some(hasDcKey);
  if (value && typeof value === 'object') {
    return Object.entries(value).some(([k, v]) => k === 'dc' || hasDcKey(v));
  }
  return false;
}

describe('checks journey', { skip: !haveChromium && skipLine() }, () => {
  const { at, person, api, setUpTable, pageErrors } = tableJourney();

  // Brom: Wisdom 10 and no Perception proficiency → modifier 0, so his
  // entered dice (7 and 18, advantage) total 18: no 15 anywhere on his page.
  const character = (name, wis, perception) =>
    sheet(name, {
      abilities: { str: 12, dex: 14, con: 13, int: 10, wis, cha: 9 },
      skill_proficiencies: perception ? ['perception'] : [],
      resources: [{ name: 'Ki', current: 2, max: 2 }],
      attacks: [{ name: 'Longsword', ability: 'str', proficient: true, bonus: 0, damage: '1d8', damage_type: 'slashing', add_modifier: true }],
    });

  const tab = (page, name) => page.getByRole('tab', { name, exact: true }).click();
  const card = (page, name) => page.getByTestId('participant').filter({ has: page.getByRole('heading', { name }) });
  // a check in the reader's feed: its card, where its player answers it (Roll /
  // Enter my dice, on the card); it resolves in place
  const checkCard = (page, who, what) => page.getByTestId('feed-check').filter({ hasText: who }).filter({ hasText: what });

  test('the DM asks for a hidden Perception check; Ann rolls, Bob enters dice; only the DM sees the outcome, the players the DC only once both rolled, verified against its commitment', async () => {
    const dana = await person('Dana');
    const ann = await person('Ann');
    const bob = await person('Bob');

    // --- names, room, campaign, seats, characters and a running session, through the API
    const { seats, sessionId } = await setUpTable({
      dm: { page: dana, name: 'Dana' },
      players: [
        { page: ann, name: 'Ann', seat: 'Seat A', character: character('Aria', 14, true) },
        { page: bob, name: 'Bob', seat: 'Seat B', character: character('Brom', 10, false) },
      ],
      room: 'Dice room',
      campaign: 'Tomb of Echoes',
      start: true,
    });

    for (const page of [dana, ann, bob]) {
      await at(page, `sessions/${sessionId}`);
      await waitText(page.getByTestId('session-status'), 'Active');
      await card(page, 'Brom').getByTestId('card-hp').filter({ hasText: 'HP 24/24' }).waitFor();
    }

    // --- the DM's "Request check": both players, Perception, DC 15, advantage, hidden
    await tab(dana, 'Dice');
    await button(dana, 'Request check').click();
    const dialog = dana.getByRole('dialog');
    await dialog.getByLabel('Everyone at the table').uncheck();
    await dialog.getByLabel('Aria', { exact: true }).check();
    await dialog.getByLabel('Brom', { exact: true }).check();
    await dialog.getByLabel('Skill, ability or save').selectOption('skill:perception');
    await dialog.getByLabel('DC (optional)').fill('15');
    await dialog.getByLabel('Advantage', { exact: true }).check();
    assert.equal(await dialog.getByLabel('Reveal pass / fail to the players').isChecked(), false);
    await button(dialog, 'Request check').click();
    await dialog.waitFor({ state: 'detached' });
    for (const name of ['Aria', 'Brom']) {
      const row = dana.locator(`[data-testid="dm-request"][data-target="${name}"]`);
      await row.filter({ hasText: 'Perception' }).waitFor();
      await waitText(row.getByTestId('request-dc'), 'DC 15');
      assert.equal(await row.getAttribute('data-status'), 'pending');
    }

    // --- both players get the check card in their feed, live, with no DC,
    // answered on the card (the prompt bar does not repeat it)
    for (const [page, who] of [
      [ann, 'Aria'],
      [bob, 'Brom'],
    ]) {
      const req = checkCard(page, who, 'Perception');
      await req.filter({ hasText: 'Advantage' }).waitFor();
      assert.equal(await req.getAttribute('data-status'), 'pending');
      await button(req.getByTestId('check-answer'), 'Roll').waitFor();
      await button(req.getByTestId('check-answer'), 'Enter my dice').waitFor();
      assert.equal(await page.getByTestId('request-dc').count(), 0);
      assert.equal(await page.locator('.dc').count(), 0);
      assert.equal(await page.getByTestId('prompt-bar').count(), 0, 'the check shows once: its feed card');
      // the DC's commitment instead: the hash the server gives this player
      const seat = seats[who === 'Aria' ? 'Seat A' : 'Seat B'];
      const mine = (await api(page, 'GET', `/api/sessions/${sessionId}/rolls`)).requests.find((r) => r.target_seat_id === seat);
      assert.equal(mine.dc, undefined, 'no DC while pending');
      assert.equal(mine.dc_salt, undefined, 'no salt while pending');
      assert.match(mine.dc_commitment, /^[0-9a-f]{64}$/);
      const seal = req.getByTestId('dc-commitment');
      await seal.filter({ hasText: 'DC committed' }).waitFor();
      await waitText(seal.getByTestId('dc-hash'), mine.dc_commitment.slice(0, 8));
      assert.equal(await seal.getByTestId('dc-hash').getAttribute('title'), mine.dc_commitment);
    }

    await shootCard(bob, checkCard(bob, 'Brom', 'Perception'), 'sealed');

    // --- Bob enters his own dice: 7 and 18 (advantage keeps 18; modifier 0)
    const bobReq = checkCard(bob, 'Brom', 'Perception');
    await button(bobReq, 'Enter my dice').click();
    assert.equal(await bobReq.getByRole('spinbutton').count(), 2, 'dice_needed = 2 inputs');
    await bobReq.getByLabel('Die 1').fill('7');
    await bobReq.getByLabel('Die 2').fill('18');
    await button(bobReq, 'Submit dice').click();
    await waitText(bobReq.getByTestId('feed-check-total'), '18');
    assert.equal(await bobReq.getAttribute('data-status'), 'resolved');
    // the dice: 7 struck through, 18 kept
    await bobReq.locator('[data-testid="die"][data-dropped="true"] s').filter({ hasText: /^7$/ }).waitFor();
    await bobReq.locator('[data-testid="die"][data-kept="true"] strong').filter({ hasText: /^18$/ }).waitFor();
    // hidden outcome: no pass / fail for Bob
    assert.equal(await bob.getByTestId('check-outcome').count(), 0, 'a hidden outcome shows no pass / fail to the player');

    // the DM sees Bob pass (18 ≥ 15), live
    const bromRow = dana.locator('[data-testid="dm-request"][data-target="Brom"]');
    await waitText(bromRow.getByTestId('request-total'), '18');
    await waitText(bromRow.getByTestId('check-outcome'), 'Pass');
    await waitText(bromRow.getByTestId('request-dc'), 'DC 15');

    // --- Ann has not rolled: the group's one DC is nowhere in Bob's page, not
    // as text, not in any attribute; his card still shows the commitment
    await bobReq.getByTestId('dc-commitment').waitFor();
    {
      const html = await bob.content();
      assert.doesNotMatch(html, /\bDC\s*\d/, 'no DC value on a player page');
      assert.equal(await bob.getByText(/DC\s*15/).count(), 0);
      const cleaned = dcFree(html);
      assert.ok(cleaned.includes('feed-check-total'), 'the resolved check card is in what is inspected');
      assert.doesNotMatch(cleaned, /(?<!\d)15(?!\d)/, `"15" appears in B's page:\n${(cleaned.match(/.{0,80}(?<!\d)15(?!\d).{0,80}/g) ?? []).join('\n')}`);
      assert.match(cleaned, /(?<!\d)18(?!\d)/, 'B’s total is in the page');
    }

    // --- Ann lets the server roll
    const annReq = checkCard(ann, 'Aria', 'Perception');
    await button(annReq, 'Roll').click();
    await annReq.getByTestId('feed-check-total').waitFor();
    const annTotal = Number(await annReq.getByTestId('feed-check-total').textContent());
    const annBoard = await api(ann, 'GET', `/api/sessions/${sessionId}/rolls`);
    const annResult = annBoard.requests.find((r) => r.target_seat_id === seats['Seat A']).result;
    assert.equal(annResult.total, annTotal, 'Ann sees her own total');
    assert.equal(annResult.source, 'server');
    assert.equal(annResult.audit.groups[0].dice.length, 2, 'advantage rolls two d20s');
    assert.equal(await ann.getByTestId('check-outcome').count(), 0, 'a hidden outcome shows no pass / fail to Ann');
    assert.equal(await ann.getByTestId('request-dc').count(), 0);

    // --- both have rolled: each player's card reveals DC 15, and their own
    // browser finds it matches the commitment it showed
    for (const [page, req] of [
      [ann, annReq],
      [bob, bobReq],
    ]) {
      const verify = req.getByTestId('dc-verify');
      await verify.and(page.locator('[data-verdict="match"]')).waitFor();
      await verify.filter({ hasText: 'DC 15' }).filter({ hasText: '✓ matches the commitment' }).waitFor();
      assert.equal(await req.getByTestId('dc-commitment').count(), 0);
    }
    await shootCard(bob, bobReq, 'verified');

    // the DM sees Ann's total and her pass / fail against DC 15
    const ariaRow = dana.locator('[data-testid="dm-request"][data-target="Aria"]');
    await waitText(ariaRow.getByTestId('request-total'), String(annTotal));
    await waitText(ariaRow.getByTestId('check-outcome'), annTotal >= 15 ? 'Pass' : 'Fail');
    // and the outcome lines in the DM's log
    await dana.getByTestId('log-outcome').filter({ hasText: 'Brom — Perception against DC 15' }).filter({ hasText: 'Pass' }).waitFor();
    await dana.getByTestId('log-outcome').filter({ hasText: 'Aria — Perception against DC 15' }).waitFor();

    // --- what the players can read from the server carries no DC and no outcome
    // Aria's roll is a card in Bob's feed (her check card, resolved in place, or her roll card)
    await bob
      .getByTestId('chat')
      .locator('[data-testid="roll-card"], [data-testid="feed-check"][data-status="resolved"]')
      .filter({ hasText: 'Aria' })
      .first()
      .waitFor();
    for (const [page, who] of [
      [ann, 'Ann'],
      [bob, 'Bob'],
    ]) {
      const rolls = await api(page, 'GET', `/api/sessions/${sessionId}/rolls`);
      const events = await api(page, 'GET', `/api/sessions/${sessionId}/events?after=0`);
      assert.ok(rolls.requests.length >= 1, `${who} sees their request`);
      // the DC only as revealed: with the salt that opens its commitment
      for (const r of rolls.requests) {
        assert.equal(r.dc, 15, `${who} reads the revealed DC`);
        assert.equal(commitmentOf(r.dc, r.dc_salt), r.dc_commitment, `${who}'s revealed DC opens its commitment`);
      }
      const revealed = events.events.filter((e) => e.kind === 'roll.revealed');
      assert.ok(revealed.length >= 1, `${who} gets roll.revealed`);
      for (const e of revealed) assert.equal(commitmentOf(e.payload.dc, e.payload.dc_salt), e.payload.dc_commitment);
      assert.ok(!hasDcKey(events.events.filter((e) => e.kind !== 'roll.revealed')), `${who}'s other events have no "dc" key`);
      assert.ok(!JSON.stringify(rolls).includes('"success"'), `${who}'s results carry no hidden outcome`);
      assert.ok(!events.events.some((e) => e.kind === 'roll.outcome'), `${who} gets no roll.outcome`);
    }
    const danaRolls = await api(dana, 'GET', `/api/sessions/${sessionId}/rolls`);
    assert.ok(danaRolls.requests.every((r) => r.dc === 15), 'the DM reads the DC');

    // both players see each other's result in the dice history (public, not private)
    await tab(bob, 'Dice');
    await bob.getByTestId('roll-history').getByTestId('roll-result').filter({ hasText: 'Aria' }).waitFor();
    await bob.getByTestId('roll-history').getByTestId('roll-result').filter({ hasText: 'Brom' }).waitFor();

    // --- the DM rolls for Ann: "DM for Aria"
    await button(dana, 'Request check').click();
    await dana.getByRole('dialog').getByLabel('Everyone at the table').uncheck();
    await dana.getByRole('dialog').getByLabel('Aria', { exact: true }).check();
    await dana.getByRole('dialog').getByLabel('Skill, ability or save').selectOption('ability:str');
    await button(dana.getByRole('dialog'), 'Request check').click();
    await dana.getByRole('dialog').waitFor({ state: 'detached' });
    await button(dana, 'Roll for Aria').click();
    await tab(ann, 'Dice');
    const proxied = ann.getByTestId('roll-history').getByTestId('roll-result').filter({ hasText: 'Strength' });
    await waitText(proxied.getByTestId('roll-who'), 'DM for Aria');

    // --- Bob asks for a check with /check: the DM's shortcut pre-fills the dialog; then the DM cancels it
    await bob.getByLabel('Message', { exact: true }).fill('/check stealth sneaking past');
    await bob.getByLabel('Message', { exact: true }).press('Enter');
    // the feed is always in view on a wide screen: no Chat tab to open
    const intent = dana.getByTestId('chat-line').filter({ hasText: 'sneaking past' });
    await button(intent, 'Request this check').click();
    const pre = dana.getByRole('dialog');
    assert.equal(await pre.getByLabel('Everyone at the table').isChecked(), false);
    assert.equal(await pre.getByLabel('Brom', { exact: true }).isChecked(), true);
    assert.equal(await pre.getByLabel('Aria', { exact: true }).isChecked(), false);
    assert.equal(await pre.getByLabel('Skill, ability or save').inputValue(), 'skill:stealth');
    await button(pre, 'Request check').click();
    await pre.waitFor({ state: 'detached' });
    await checkCard(bob, 'Brom', 'Stealth').getByTestId('check-answer').waitFor();
    await tab(dana, 'Dice');
    const stealthRow = dana.locator('[data-testid="dm-request"][data-target="Brom"][data-status="pending"]').filter({ hasText: 'Stealth' });
    await button(stealthRow, 'Cancel request').click();
    // the check card in Bob's feed says it was cancelled, in place, and takes no answer
    await bob.locator('[data-testid="feed-check"][data-status="cancelled"]').filter({ hasText: 'Stealth' }).waitFor();
    await checkCard(bob, 'Brom', 'Stealth').getByTestId('check-answer').waitFor({ state: 'detached' });
    await dana.locator('[data-testid="dm-request"][data-target="Brom"][data-status="cancelled"]').filter({ hasText: 'Stealth' }).waitFor();

    // --- character state: the DM damages Brom and poisons him; everyone sees it live
    await card(dana, 'Brom').getByLabel('Amount for Brom').fill('5');
    await button(card(dana, 'Brom'), 'Damage').click();
    for (const page of [dana, ann, bob]) {
      await waitText(card(page, 'Brom').getByTestId('card-hp'), 'HP 19/24');
      assert.equal(await card(page, 'Brom').getByTestId('hp-bar').getAttribute('aria-valuenow'), '19');
    }
    await card(dana, 'Brom').getByLabel('Condition for Brom').selectOption('poisoned');
    await button(card(dana, 'Brom'), 'Add').click();
    await card(bob, 'Brom').getByTestId('condition').filter({ hasText: 'Poisoned' }).waitFor();
    await bob.getByTestId('log-line').filter({ hasText: 'Brom is now Poisoned' }).waitFor();
    // a player has no damage or condition controls, and none on others' cards
    assert.equal(await button(card(bob, 'Brom'), 'Damage').count(), 0);
    assert.equal(await card(bob, 'Aria').getByTestId('card-controls').count(), 0);
    // Bob heals himself and takes temporary HP
    await card(bob, 'Brom').getByLabel('Amount for Brom').fill('3');
    await button(card(bob, 'Brom'), 'Heal').click();
    await waitText(card(ann, 'Brom').getByTestId('card-hp'), 'HP 22/24');
    await card(bob, 'Brom').getByLabel('Amount for Brom').fill('4');
    await button(card(bob, 'Brom'), 'Temp HP').click();
    await waitText(card(dana, 'Brom').getByTestId('card-temp'), 'Temp HP 4');
    // spends a resource on his own card
    await card(bob, 'Brom').locator('summary').filter({ hasText: 'Resources' }).click();
    const ki = card(bob, 'Brom').getByTestId('resource').filter({ hasText: 'Ki' });
    await ki.filter({ hasText: 'Ki 2/2' }).waitFor();
    await ki.getByRole('button', { name: 'Spend one Ki' }).click();
    await ki.filter({ hasText: 'Ki 1/2' }).waitFor();
    // rolls an attack of his sheet by name: the server adds Str +1 and proficiency +2
    await card(bob, 'Brom').locator('summary').filter({ hasText: 'Attacks' }).click();
    const sword = card(bob, 'Brom').getByTestId('card-attack').filter({ hasText: 'Longsword' });
    await sword.filter({ hasText: 'To hit +3' }).filter({ hasText: 'Damage 1d8+1 slashing' }).waitFor();
    await sword.getByRole('button', { name: 'Roll Longsword to hit' }).click();
    await card(bob, 'Brom').getByTestId('card-attack-result').filter({ hasText: 'd20 + 3 =' }).waitFor();
    await dana.getByTestId('roll-card').filter({ hasText: 'Longsword: to hit' }).filter({ hasText: 'd20 + 3' }).waitFor();
    await sword.getByRole('button', { name: 'Roll Longsword damage' }).click();
    await ann.getByTestId('roll-card').filter({ hasText: 'Longsword: damage (slashing)' }).filter({ hasText: 'd8 + 1' }).waitFor();
    // the DM rolls Brom's attack from his card, for his seat: the server takes Brom's sheet
    await card(dana, 'Brom').locator('summary').filter({ hasText: 'Attacks' }).click();
    const dmSword = card(dana, 'Brom').getByTestId('card-attack').filter({ hasText: 'Longsword' });
    await dmSword.getByRole('button', { name: 'Roll Longsword to hit' }).click();
    await card(dana, 'Brom').getByTestId('card-attack-result').filter({ hasText: 'd20 + 3 =' }).waitFor();
    await bob.waitForFunction(
      () => [...document.querySelectorAll('[data-testid="roll-card"]')].filter((c) => c.textContent.includes('Longsword: to hit')).length === 2,
    );
    // the DM takes the poison away
    await card(dana, 'Brom').getByRole('button', { name: 'Remove Poisoned' }).click();
    await card(ann, 'Brom').getByTestId('card-conditions').filter({ hasText: 'none' }).waitFor();

    // --- "What does everyone do?": a window, declared actions, the DM adjudicates
    await tab(dana, 'Actions');
    await button(dana, 'What does everyone do?').click();
    for (const page of [ann, bob]) {
      await page.getByTestId('prompt-bar').getByTestId('window-prompt').filter({ hasText: 'What does everyone do?' }).waitFor();
    }
    await bob.getByLabel('Message', { exact: true }).fill('I search the altar');
    await button(bob, 'Declare action').click();
    await bob.waitForFunction(() => document.querySelector('textarea.message-input')?.value === '');
    const action = dana.getByTestId('pending-action').filter({ hasText: 'I search the altar' });
    await action.filter({ hasText: 'Answer to: What does everyone do?' }).waitFor();
    await waitText(action.getByTestId('action-status'), 'Pending');
    // pending → resolved is not a legal move: the server refuses, the page says why
    await button(action, 'Mark resolved').click();
    await action.getByRole('alert').filter({ hasText: 'The action cannot move to that state from where it is now.' }).waitFor();
    await button(action, 'Take it up').click();
    await waitText(action.getByTestId('action-status'), 'DM is on it');
    await tab(bob, 'Actions');
    await waitText(bob.getByTestId('pending-action').filter({ hasText: 'I search the altar' }).getByTestId('action-status'), 'DM is on it');
    // "Request check" from the action: the action waits for the roll, then goes back to the DM
    await button(action, 'Request check').click();
    await dana.getByRole('dialog').getByLabel('Brom', { exact: true }).isChecked().then((on) => assert.ok(on, 'the action’s seat is chosen'));
    await dana.getByRole('dialog').getByLabel('Skill, ability or save').selectOption('skill:investigation');
    await button(dana.getByRole('dialog'), 'Request check').click();
    await waitText(action.getByTestId('action-status'), 'Waiting for a roll');
    const inv = checkCard(bob, 'Brom', 'Investigation');
    await button(inv, 'Roll').click();
    await inv.getByTestId('feed-check-total').waitFor();
    await waitText(action.getByTestId('action-status'), 'DM is on it');
    await button(action, 'Mark resolved').click();
    await waitText(action.getByTestId('action-status'), 'Resolved');
    await waitText(bob.getByTestId('pending-action').filter({ hasText: 'I search the altar' }).getByTestId('action-status'), 'Resolved');
    await button(dana, 'Close the question').click();
    await bob.getByTestId('window-prompt').waitFor({ state: 'detached' });

    // --- a quick roll: 4d6 drop the lowest; one die struck through; everyone sees it
    await tab(ann, 'Dice');
    await ann.getByLabel('Dice formula').fill('4d6dl1');
    await button(ann, 'Roll dice').click();
    await tab(dana, 'Dice');
    for (const page of [ann, dana]) {
      const line = page.getByTestId('roll-history').getByTestId('roll-result').filter({ hasText: 'Quick roll' }).first();
      await waitText(line.getByTestId('roll-formula'), '4d6dl1');
      assert.equal(await line.getByTestId('die').count(), 4);
      assert.equal(await line.locator('[data-testid="die"][data-dropped="true"] s').count(), 1);
    }
    // a bad formula: the translated error
    await ann.getByLabel('Dice formula').fill('4d6x');
    await button(ann, 'Roll dice').click();
    await ann.getByTestId('dice-panel').getByRole('alert').filter({ hasText: 'That dice formula cannot be read.' }).waitFor();

    // --- a saving throw: the DM types /check dex save 12; Bob enters a 10
    // (Dex 14, +2, no save proficiency: 12, a pass only the DM sees)
    await dana.getByLabel('Message', { exact: true }).fill('/check dex save 12');
    await dana.getByLabel('Message', { exact: true }).press('Enter');
    const bobSave = checkCard(bob, 'Brom', 'Dexterity save');
    await button(bobSave, 'Enter my dice').click();
    await bobSave.getByLabel('Die 1').fill('10');
    await button(bobSave, 'Submit dice').click();
    await waitText(bobSave.getByTestId('feed-check-total'), '12');
    assert.equal(await bobSave.getByTestId('check-outcome').count(), 0, 'a hidden outcome shows no pass / fail to the player');
    // the /check asked everyone: Aria has not rolled her save, so its DC
    // stays sealed on Bob's card
    await bobSave.getByTestId('dc-commitment').waitFor();
    assert.equal(await bobSave.getByTestId('dc-verify').count(), 0);
    const bromSave = dana.locator('[data-testid="dm-request"][data-target="Brom"]').filter({ hasText: 'Dexterity save' });
    await waitText(bromSave.getByTestId('request-total'), '12');
    await waitText(bromSave.getByTestId('check-outcome'), 'Pass');
    await waitText(bromSave.getByTestId('request-dc'), 'DC 12');

    // --- the sheet on the cards: everyone reads Aria's totals; Ann rolls her
    // Dexterity save from her own card, the server adds the sheet's +2
    for (const page of [ann, bob, dana]) {
      await waitText(card(page, 'Aria').getByTestId('card-totals').locator('[data-stat="ac"]'), 'AC12');
    }
    const rolls = card(ann, 'Aria').getByTestId('card-rolls');
    await rolls.locator('summary').click();
    await button(rolls, 'Roll Dexterity save (+2)').click();
    await rolls.getByTestId('card-roll-result').filter({ hasText: /^Dexterity save: d20 \+ 2 = \d+$/ }).waitFor();
    assert.equal(await card(ann, 'Brom').getByTestId('card-rolls').count(), 0, 'a player rolls from their own card only');
    // the feed names the roll too
    await ann.getByTestId('roll-card').filter({ hasText: 'Dexterity save' }).filter({ hasText: 'Aria' }).first().waitFor();

    // --- an attack from the dice panel: the history names it for everyone
    await ann.getByTestId('dice-attack').getByLabel('Attack to roll').selectOption('Longsword');
    await button(ann.getByTestId('dice-attack'), 'Roll to hit').click();
    for (const page of [ann, dana]) {
      await page.getByTestId('roll-history').getByTestId('roll-result').filter({ hasText: 'Longsword: to hit' }).first().waitFor();
    }

    assert.deepEqual(pageErrors, [], 'uncaught errors in the pages');
  });
});
