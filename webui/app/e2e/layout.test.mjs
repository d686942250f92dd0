// The table screen people play on, measured in a real browser: at 1366×768
// the feed (chat, rolls, checks, log) is a full-height column showing at
// least 12 chat lines; at 390×844 (a phone) no page scrolls sideways, and a
// player reads the feed, rolls and answers a check. Checks resolve in place
// with natural 20 / 1 marks, and the Dice tab keeps the session's roll
// history at both sizes. On a touch screen (hasTouch, isMobile) no target on
// any page is under 44×44 px. The app header gets out of the way as a page
// scrolls down and comes back on scrolling up; the session's head compacts
// while the feed is read back. A failing step leaves screenshots in e2e/artifacts/
// (kept by CI; AT_E2E_SHOTS=1 always; see shotsOnFailure in harness.mjs).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { chromiumOrSkip, eventually, skipLine, smallTargets } from './harness.mjs';
import { button, character, DESKTOP, PHONE, tableJourney, waitText } from './table-setup.mjs';

const haveChromium = chromiumOrSkip();

describe('table layout at desktop and phone sizes', { skip: !haveChromium && skipLine() }, () => {
  const { at, url, person, api, setUpTable, pageErrors } = tableJourney({ viewport: DESKTOP });

  const noErrors = () => assert.deepEqual(pageErrors, [], 'no page errors and no CSP violations');

  // visibleChatLines counts the chat lines wholly inside the feed's visible box.
  const visibleChatLines = (page) =>
    page.evaluate(() => {
      const list = document.querySelector('[data-testid="chat"]');
      if (!list) return -1;
      const box = list.getBoundingClientRect();
      return [...list.querySelectorAll('[data-testid="chat-line"]')].filter((l) => {
        const r = l.getBoundingClientRect();
        return r.height > 0 && r.top >= box.top - 1 && r.bottom <= box.bottom + 1;
      }).length;
    });

  const widths = (page) =>
    page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth, path: location.pathname }));

  // sendInView: the chat box's text field and its Send button are wholly on
  // screen and side by side, and the field keeps a usable width (a select
  // beside it once squeezed it to 41 px and pushed Send off the screen).
  async function sendInView(page, what) {
    const vw = page.viewportSize();
    const send = await page.getByRole('button', { name: 'Send', exact: true }).boundingBox();
    const field = await page.getByLabel('Message', { exact: true }).boundingBox();
    assert.ok(send && field, `${what}: the chat box shows`);
    assert.ok(send.x >= 0 && send.y >= 0 && send.x + send.width <= vw.width && send.y + send.height <= vw.height, `${what}: Send is in view: ${JSON.stringify(send)} in ${vw.width}×${vw.height}`);
    assert.ok(field.width >= Math.min(240, vw.width * 0.5), `${what}: the text field is ${Math.round(field.width)} px wide`);
  }

  async function fitsPhone(page, what) {
    // let late layout (fonts, two frames) settle
    await page.evaluate(() => document.fonts.ready.then(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))));
    const w = await widths(page);
    assert.ok(w.scroll <= w.inner, `${what} (${w.path}) scrolls sideways at 390 px: scrollWidth ${w.scroll} > ${w.inner}`);
    assert.deepEqual(await smallTargets(page), [], `${what} (${w.path}): interactive elements under 24×24 px at 390 px`);
    return w;
  }

  // seatControlsInView: every control in every seat and member row lies wholly
  // within the phone's width and its own card (the seat table was once 575 px wide in a 324 px
  // box: Assign and the character picker sat off-screen), and each seat shows
  // the controls named in want (by their accessible names).
  async function seatControlsInView(page, what, want) {
    const rows = await page.evaluate(() =>
      [...document.querySelectorAll('[data-testid="seat"], [data-testid="member"]')].map((row) => ({
        row: row.getAttribute('data-seat') ?? row.getAttribute('data-member'),
        seat: row.matches('[data-testid="seat"]'),
        box: { left: Math.floor(row.getBoundingClientRect().left), right: Math.ceil(row.getBoundingClientRect().right) },
        controls: [...row.querySelectorAll('button, select, input, a')]
          .filter((el) => el.getClientRects().length > 0)
          .map((el) => {
            const r = el.getBoundingClientRect();
            const name = el.labels?.[0]?.textContent?.trim() || el.getAttribute('aria-label') || el.textContent.trim();
            return { name, left: Math.round(r.left), right: Math.round(r.right) };
          }),
      })),
    );
    const vw = page.viewportSize().width;
    const seats = rows.filter((r) => r.seat);
    assert.ok(seats.length >= 2, `${what}: the seats show (${seats.length})`);
    for (const r of rows) {
      for (const c of r.controls) {
        assert.ok(c.left >= 0 && c.right <= vw, `${what}: ${r.row}'s "${c.name}" lies outside the ${vw} px screen: ${c.left}–${c.right}`);
        assert.ok(c.left >= r.box.left && c.right <= r.box.right, `${what}: ${r.row}'s "${c.name}" spills out of its card ${r.box.left}–${r.box.right}: ${c.left}–${c.right}`);
      }
    }
    for (const [seat, names] of Object.entries(want)) {
      const row = seats.filter((r) => seat === '*' || r.row === seat);
      assert.ok(row.length > 0, `${what}: seat ${seat} shows`);
      for (const r of row) {
        for (const name of names) {
          assert.ok(r.controls.some((c) => c.name === name), `${what}: ${r.row} shows "${name}": ${JSON.stringify(r.controls.map((c) => c.name))}`);
        }
      }
    }
  }

  test('1366×768: the feed is a full-height column with ≥ 12 visible chat lines; cards with natural marks; roll history; players see no DM controls', async () => {
    const dana = await person('Dana');
    const ann = await person('Ann');
    const { sessionId } = await setUpTable({
      dm: { page: dana, name: 'Dana' },
      players: [{ page: ann, name: 'Ann', seat: 'Seat A', character: character('Aria') }],
      room: 'Layout room',
      campaign: 'Long Night',
      start: true,
    });
    // 31 older quick rolls: one more than the roll history's first page
    for (let i = 1; i <= 31; i++) {
      await api(ann, 'POST', `/api/sessions/${sessionId}/quick-roll`, { formula: `1d6+${i}`, idempotency_key: randomUUID() });
    }
    for (let i = 1; i <= 24; i++) {
      const page = i % 2 ? ann : dana;
      await api(page, 'POST', `/api/sessions/${sessionId}/messages`, {
        kind: i % 2 ? 'character_dialogue' : 'narration',
        text: `Line ${i}: the lanterns flicker.`,
        idempotency_key: randomUUID(),
      });
    }
    await api(dana, 'POST', `/api/sessions/${sessionId}/checks`, { skill: 'perception', mode: 'normal', flat_adjustment: 0 });

    for (const page of [dana, ann]) {
      await at(page, `sessions/${sessionId}`);
      await page.getByTestId('chat-line').filter({ hasText: 'Line 24:' }).waitFor();
    }
    // measured once the page has settled: the check asked of Ann is read (its
    // card in the feed, with her answer; the prompt bar does not repeat it)
    await ann.getByTestId('feed-check').filter({ hasText: 'Perception' }).getByTestId('check-answer').waitFor();
    assert.equal(await ann.getByTestId('prompt-bar').count(), 0, 'the check shows once: its feed card, no prompt bar');
    await ann.evaluate(() => document.fonts.ready.then(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))));
    await sendInView(dana, 'the DM at 1366×768');
    const lines = await visibleChatLines(ann);
    const feedBox = await ann.getByTestId('chat').boundingBox();
    console.log(`# 1366×768: ${lines} chat lines visible in a ${Math.round(feedBox.height)} px feed`);
    // (asserted last, so that the steps below run whatever it says)
    // the input sits at the foot of the feed column
    const input = await ann.getByLabel('Message', { exact: true }).boundingBox();
    assert.ok(input.y > feedBox.y + feedBox.height - 1, 'the input is below the feed');
    assert.ok(input.y + input.height <= DESKTOP.height, 'the input is in view');
    assert.equal((await widths(ann)).scroll <= DESKTOP.width, true);

    // the check is a card in the feed; it resolves in place when Ann enters
    // her die, a natural 20, marked as such on both pages
    const card = ann.getByTestId('feed-check');
    await card.filter({ hasText: 'Perception' }).waitFor();
    assert.equal(await card.getAttribute('data-status'), 'pending');
    const answer = card.getByTestId('check-answer');
    await button(answer, 'Enter my dice').click();
    await answer.getByLabel('Die 1').fill('20');
    await button(answer, 'Submit dice').click();
    await ann.locator('[data-testid="feed-check"][data-status="resolved"][data-natural="20"]').waitFor();
    const danaCard = dana.locator('[data-testid="feed-check"][data-status="resolved"][data-natural="20"]');
    await danaCard.locator('[data-testid="die"][data-kept="true"]').filter({ hasText: /^20$/ }).waitFor();
    assert.match(await danaCard.getAttribute('class'), /\bis-nat20\b/, 'the natural 20 is styled');
    assert.equal(await ann.getByTestId('feed-check').count(), 1, 'one card, resolved in place');

    // the arrow keys move between the tabs shown: on a wide screen the feed
    // and the table are always in view and their hidden tabs are skipped
    await ann.getByRole('tab', { name: 'Dice', exact: true }).click();
    await ann.keyboard.press('ArrowRight');
    await waitText(ann.locator('[role="tab"][aria-selected="true"]'), 'Actions');
    await ann.keyboard.press('ArrowRight');
    await waitText(ann.locator('[role="tab"][aria-selected="true"]'), 'Journal');
    await ann.keyboard.press('ArrowRight');
    await waitText(ann.locator('[role="tab"][aria-selected="true"]'), 'Dice');
    await ann.keyboard.press('ArrowLeft');
    await waitText(ann.locator('[role="tab"][aria-selected="true"]'), 'Journal');
    assert.equal(await ann.evaluate(() => document.activeElement?.textContent), 'Journal', 'focus stays on a tab in view');

    // a quick roll lands in the feed as a card with its dice
    await ann.getByRole('tab', { name: 'Dice', exact: true }).click();
    await ann.getByLabel('Dice formula').fill('4d6dl1');
    await button(ann, 'Roll dice').click();
    const roll = ann.getByTestId('roll-card').filter({ hasText: '4d6dl1' });
    await roll.waitFor();
    assert.equal(await roll.getByTestId('die').count(), 4);
    assert.equal(await roll.locator('[data-testid="die"][data-dropped="true"]').count(), 1);

    // the Dice tab keeps the session's roll history, newest first: the first
    // page (30), then the older ones on demand
    const history = ann.getByTestId('roll-history');
    const entries = history.getByTestId('roll-history-entry');
    await entries.first().filter({ hasText: '4d6dl1' }).waitFor();
    await history.locator('[data-testid="roll-history-entry"][data-natural="20"]').filter({ hasText: 'Perception' }).waitFor();
    // (the first page, and the two rolls made since it was read, if it was read first)
    await eventually(async () => assert.ok((await entries.count()) >= 30, `a page of the history: ${await entries.count()}`));
    await ann.getByTestId('roll-history-more').click();
    await eventually(async () => assert.equal(await entries.count(), 31 + 2, 'every roll of the session'));
    await waitText(entries.last().getByTestId('roll-formula'), 'd6 + 1');
    await ann.getByTestId('roll-history-more').waitFor({ state: 'detached' });

    // the player sees no DM controls, disabled or not
    for (const name of ['Start session', 'End session', 'Abandon session', 'Request check']) {
      assert.equal(await ann.getByRole('button', { name, exact: true }).count(), 0, `${name} is not shown to a player`);
    }
    await dana.getByRole('button', { name: 'Request check', exact: true }).waitFor();

    // the stage is a collapsible hero
    const hero = ann.getByTestId('stage-hero');
    await hero.locator('summary').click();
    assert.equal(await hero.evaluate((d) => d.open), false);
    noErrors();

    // the feed showed at least 12 chat lines (a pending check card at its foot)
    assert.ok(lines >= 12, `at least 12 chat lines visible at 1366×768, got ${lines}`);
  });

  // the sheet's lists, so the character editor and the card are measured with rows in them
  const SHEET_LISTS = {
    attacks: [{ name: 'Light crossbow of the long road', ability: 'dex', proficient: true, bonus: 1, damage: '1d8+1d6', damage_type: 'lightning', add_modifier: true }],
    spells: [{ name: 'Tasha’s hideous laughter', level: 1, prepared: true, notes: 'Wisdom save; concentration, up to 1 minute' }],
    inventory: [{ name: 'Hempen rope (50 feet)', quantity: 1, notes: 'a little frayed' }],
    notes: 'A very long line of notes without breaks: '.repeat(5),
  };

  test('390×844: every page fits without sideways scrolling; a player reads the full-height feed, rolls, answers a check (a natural 1) and reads the roll history', async () => {
    const dana = await person('Dana');
    const ann = await person('Ann');
    for (const p of [dana, ann]) await p.setViewportSize(PHONE);
    const { sessionId, room, campaignId } = await setUpTable({
      dm: { page: dana, name: 'Dana' },
      players: [{ page: ann, name: 'Ann', seat: 'Seat A', character: character('Aria Of The Very Long Name', SHEET_LISTS) }],
      room: 'A room with a rather long name for a small phone screen',
      campaign: 'Long Night',
      start: true,
    });
    for (let i = 1; i <= 6; i++) {
      await api(i % 2 ? ann : dana, 'POST', `/api/sessions/${sessionId}/messages`, {
        kind: i % 2 ? 'character_dialogue' : 'narration',
        text: `Phone line ${i}: https://example.com/a/very/long/link/that/should/wrap/somewhere/sensible/${i}`,
        idempotency_key: randomUUID(),
      });
    }
    const chars = await api(ann, 'GET', '/api/characters');
    const charId = (chars.characters ?? chars.items ?? chars)[0]?.id;
    const scenario = await api(ann, 'POST', '/api/scenarios', {
      title: 'The Old Mill',
      premise: 'An abandoned mill on a stormy night.',
      plot_essentials: '',
      ai_instructions: '',
      authors_note: '',
      opening: 'The mill wheel creaks in the dark.',
      stat_schema: {},
      cards: [],
      scripts: { library: '', input: '', context: '', output: '' },
    });
    const adventure = await api(ann, 'POST', `/api/scenarios/${scenario.id}/play`, {
      persona_name: 'Ann',
      persona_pronouns: 'she/her',
      persona_desc: '',
    });
    const adventureId = adventure.adventure?.id ?? adventure.id;

    const pages = [
      ['home', ''],
      ['tables', 'tables'],
      ['room', `rooms/${room.id}`],
      ['characters', 'characters'],
      ['character editor', `characters/${charId}`],
      ['character sheet', `characters/${charId}/sheet`],
      ['new character', 'characters/new'],
      ['solo', 'solo'],
      ['scenario editor', `solo/scenarios/${scenario.id}`],
      ['adventure', `solo/adventures/${adventureId}`],
      ['settings', 'settings'],
      ['account', 'account'],
      ['campaign', `campaigns/${campaignId}`],
      ['journal', `campaigns/${campaignId}/journal`],
      ['operator dashboard', 'operator'],
    ];
    const measured = [];
    for (const [what, path] of pages) {
      await at(ann, path);
      await ann.locator('h1').first().waitFor();
      measured.push(`${what} ${(await fitsPhone(ann, what)).scroll}`);
      if (what === 'room') await seatControlsInView(ann, 'room as player', { 'Seat A': ['Character in this seat', 'Leave this seat'] });
      if (what === 'character editor') {
        // the long sheet keeps Save on screen (it was 4,800 px down), and its
        // totals follow the typing before any save
        const save = await ann.getByRole('button', { name: 'Save character', exact: true }).boundingBox();
        assert.ok(save && save.y >= 0 && save.y + save.height <= 844, `the sheet's Save is in view at 390×844: ${JSON.stringify(save)}`);
        await ann.getByLabel('Dexterity', { exact: true }).fill('20');
        await waitText(ann.getByTestId('mod-dex'), '+5');
      }
    }
    await at(dana, `rooms/${room.id}`);
    await dana.getByTestId('room-name').waitFor();
    measured.push(`room as owner ${(await fitsPhone(dana, 'room (owner)')).scroll}`);
    await seatControlsInView(dana, 'room as owner', { '*': ['Assign to', 'Assign'] });

    // the session page, as the DM and as the player: the feed first
    for (const [who, page] of [
      ['DM', dana],
      ['player', ann],
    ]) {
      await at(page, `sessions/${sessionId}`);
      await page.getByTestId('chat-line').filter({ hasText: 'Phone line 6:' }).waitFor();
      measured.push(`session (${who}) ${(await fitsPhone(page, `session as ${who}`)).scroll}`);
      for (const tab of ['At the table', 'Dice', 'Actions', 'Journal', 'Chat']) {
        await page.getByRole('tab', { name: tab, exact: true }).click();
        await fitsPhone(page, `session as ${who}, ${tab} tab`);
      }
      await sendInView(page, `the ${who} at 390×844`);
    }
    // the sheet at the table on a phone: the card's saves and skills open, the dice panel's attack picker
    await ann.getByRole('tab', { name: 'At the table', exact: true }).click();
    const sheetRolls = ann.getByTestId('participant').getByTestId('card-rolls');
    await sheetRolls.locator('summary').click();
    await sheetRolls.getByRole('button', { name: /^Roll Sleight of Hand/ }).waitFor();
    await fitsPhone(ann, 'session as player, saves and skills open');
    await ann.getByRole('tab', { name: 'Dice', exact: true }).click();
    await ann.getByTestId('dice-attack').getByRole('button', { name: 'Roll damage' }).waitFor();
    await fitsPhone(ann, 'session as player, attack picker');
    await ann.getByRole('tab', { name: 'Chat', exact: true }).click();
    console.log(`# 390×844 scrollWidth: ${measured.join(', ')}`);
    // the chat takes most of a phone (it had 304 of 844 px under the headers)
    const chatBox = await ann.getByTestId('chat').boundingBox();
    console.log(`# 390×844: the player's chat is ${Math.round(chatBox.height)} px high`);
    assert.ok(chatBox.height >= 844 * 0.45, `the player's chat at 390×844 is ${Math.round(chatBox.height)} px high, want at least 45 % of the screen`);
    assert.ok(await ann.getByTestId('chat-line').first().isVisible(), 'the player reads the feed');
    // a player sees no DM controls, on any tab
    await ann.getByRole('tab', { name: 'At the table', exact: true }).click();
    await ann.getByTestId('participant').first().waitFor();
    for (const name of ['Start session', 'End session', 'Abandon session', 'Request check']) {
      assert.equal(await ann.getByRole('button', { name, exact: true }).count(), 0, `${name} is not shown to a player`);
    }
    await ann.getByRole('tab', { name: 'Chat', exact: true }).click();

    // the DM asks for a check: Ann answers it from the feed screen with her own die, a natural 1
    await api(dana, 'POST', `/api/sessions/${sessionId}/checks`, { skill: 'stealth', mode: 'normal', flat_adjustment: 0 });
    const answer = ann.getByTestId('feed-check').filter({ hasText: 'Stealth' }).getByTestId('check-answer');
    await button(answer, 'Enter my dice').click();
    await answer.getByLabel('Die 1').fill('1');
    await button(answer, 'Submit dice').click();
    await ann.getByTestId('feed-check').filter({ hasText: 'Stealth' }).getByTestId('feed-check-total').waitFor();
    assert.equal(await ann.getByTestId('prompt-bar').count(), 0, 'the check shows once: its feed card, no prompt bar');
    const stealth = ann.locator('[data-testid="feed-check"][data-status="resolved"][data-natural="1"]').filter({ hasText: 'Stealth' });
    await stealth.waitFor();
    assert.match(await stealth.getAttribute('class'), /\bis-nat1\b/, 'the natural 1 is styled');
    assert.equal(await ann.getByTestId('feed-check').filter({ hasText: 'Stealth' }).count(), 1, 'one card, resolved in place');
    await fitsPhone(ann, 'session after the check');

    // and rolls dice from the Dice tab; the result shows in the feed
    await ann.getByRole('tab', { name: 'Dice', exact: true }).click();
    await ann.getByLabel('Dice formula').fill('1d20+5');
    await button(ann, 'Roll dice').click();
    await ann.getByRole('tab', { name: 'Chat', exact: true }).click();
    const rolled = ann.getByTestId('roll-card').filter({ hasText: /d20 ?\+ ?5/ });
    await rolled.waitFor();
    // in view: the feed keeps to its foot, also after being hidden behind another tab
    await ann.waitForFunction(() => {
      const list = document.querySelector('[data-testid="chat"]');
      const cards = list?.querySelectorAll('[data-testid="roll-card"]');
      const card = cards?.[cards.length - 1];
      if (!list || !card) return false;
      const a = list.getBoundingClientRect();
      const b = card.getBoundingClientRect();
      return b.bottom <= a.bottom + 1 && b.top >= a.top - 1;
    });
    await fitsPhone(ann, 'session after a roll');

    // the roll history on the Dice tab: the roll, and the check with its natural 1
    await ann.getByRole('tab', { name: 'Dice', exact: true }).click();
    const history = ann.getByTestId('roll-history');
    await history.getByTestId('roll-history-entry').first().filter({ hasText: /d20 ?\+ ?5/ }).waitFor();
    await history.locator('[data-testid="roll-history-entry"][data-natural="1"]').filter({ hasText: 'Stealth' }).waitFor();
    await fitsPhone(ann, 'session, roll history');
    assert.ok(url('').length > 0);
    noErrors();

    // last (the steps above do not depend on it): the feed fills the phone's
    // screen below the session's head, with the input at its foot, in view
    await ann.getByRole('tab', { name: 'Chat', exact: true }).click();
    await ann.evaluate(() => window.scrollTo(0, 0));
    const col = await ann.getByTestId('feed-column').boundingBox();
    const input = await ann.getByLabel('Message', { exact: true }).boundingBox();
    console.log(`# 390×844: feed column ${Math.round(col.y)}–${Math.round(col.y + col.height)} px, input foot at ${Math.round(input.y + input.height)} px`);
    assert.ok(input.y + input.height <= PHONE.height, 'the input is in view');
    assert.ok(
      col.y + col.height >= PHONE.height - 24,
      `the feed column reaches the foot of the screen: it ends at ${Math.round(col.y + col.height)} px of ${PHONE.height}`,
    );
  });
  // A touch screen (hasTouch and isMobile: the page's `(pointer: coarse)`
  // matches, as on a phone): every page's targets are a finger wide, 44×44
  // px. The exemptions are the inline links of prose (WCAG 2.5.8's inline
  // exception, in smallTargets) and those listed in TOUCH_EXEMPT.
  const TOUCH = { hasTouch: true, isMobile: true };
  const TOUCH_EXEMPT = [
    // the feed's resize handle between the columns shows on wide screens only
    '[data-testid="divider"]',
  ];
  test('390×844 on a touch screen: no visible interactive element under 44×44 px on any page, as DM and as player, in a fight', async () => {
    const dana = await person('Dana', TOUCH);
    const ann = await person('Ann', TOUCH);
    for (const p of [dana, ann]) await p.setViewportSize(PHONE);
    assert.equal(await ann.evaluate(() => matchMedia('(pointer: coarse)').matches), true, 'the touch context has a coarse pointer');
    const { sessionId, room, seats, campaignId } = await setUpTable({
      dm: { page: dana, name: 'Dana' },
      players: [{ page: ann, name: 'Ann', seat: 'Seat A', character: character('Aria', SHEET_LISTS) }],
      room: 'Touch room',
      campaign: 'Fingers',
      start: true,
    });
    for (let i = 1; i <= 4; i++) {
      await api(i % 2 ? ann : dana, 'POST', `/api/sessions/${sessionId}/messages`, {
        kind: i % 2 ? 'character_dialogue' : 'narration',
        text: `Touch line ${i}: see https://example.com/${i} for the map.`,
        idempotency_key: randomUUID(),
      });
    }
    await api(ann, 'POST', `/api/sessions/${sessionId}/quick-roll`, { formula: '1d20+3', idempotency_key: randomUUID() });
    await api(dana, 'POST', `/api/sessions/${sessionId}/checks`, { skill: 'stealth', mode: 'normal', flat_adjustment: 0 });
    await api(dana, 'POST', `/api/campaigns/${campaignId}/journal`, { kind: 'npc', title: 'Old Tom', text: 'Keeps the ferry.' });
    await api(ann, 'POST', `/api/campaigns/${campaignId}/journal`, { kind: 'clue', title: 'Wet footprints' });
    const chars = await api(ann, 'GET', '/api/characters');
    const charId = (chars.characters ?? chars.items ?? chars)[0]?.id;
    const scenario = await api(ann, 'POST', '/api/scenarios', {
      title: 'The Old Mill',
      premise: 'An abandoned mill on a stormy night.',
      plot_essentials: '',
      ai_instructions: '',
      authors_note: '',
      opening: 'The mill wheel creaks in the dark.',
      stat_schema: {},
      cards: [],
      scripts: { library: '', input: '', context: '', output: '' },
    });
    const adventure = await api(ann, 'POST', `/api/scenarios/${scenario.id}/play`, { persona_name: 'Ann', persona_pronouns: 'she/her', persona_desc: '' });
    const adventureId = adventure.adventure?.id ?? adventure.id;

    const found = [];
    const measure = async (page, what) => {
      await page.evaluate(() => document.fonts.ready.then(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))));
      for (const x of await smallTargets(page, { min: 44, except: TOUCH_EXEMPT })) found.push(`${what}: ${x}`);
    };
    for (const [what, path] of [
      ['home', ''],
      ['tables', 'tables'],
      ['room (player)', `rooms/${room.id}`],
      ['characters', 'characters'],
      ['character editor', `characters/${charId}`],
      ['new character', 'characters/new'],
      ['solo', 'solo'],
      ['solo play', `solo/adventures/${adventureId}`],
      ['settings', 'settings'],
      ['account', 'account'],
      ['campaign', `campaigns/${campaignId}`],
      ['journal', `campaigns/${campaignId}/journal`],
      ['operator dashboard', 'operator'],
    ]) {
      await at(ann, path);
      await ann.locator('h1').first().waitFor();
      if (what === 'solo play') await ann.getByTestId('story-node').first().waitFor();
      await measure(ann, what);
    }
    await at(dana, `rooms/${room.id}`);
    await dana.getByTestId('room-name').waitFor();
    await measure(dana, 'room (owner)');

    const tabs = async (who, page, when) => {
      for (const tab of ['Chat', 'At the table', 'Dice', 'Actions', 'Journal']) {
        await page.getByRole('tab', { name: tab, exact: true }).click();
        if (tab === 'Journal') await page.getByTestId('journal-entry').first().waitFor();
        await measure(page, `session (${who}${when}), ${tab} tab`);
      }
      await page.getByRole('tab', { name: 'Chat', exact: true }).click();
    };
    for (const [who, page] of [
      ['DM', dana],
      ['player', ann],
    ]) {
      await at(page, `sessions/${sessionId}`);
      await page.getByTestId('chat-line').filter({ hasText: 'Touch line 4:' }).waitFor();
      await tabs(who, page, '');
    }
    // a fight: the tracker, the DM's controls and the player's turn with its attack form
    await api(dana, 'POST', `/api/sessions/${sessionId}/encounter`, {
      name: 'Ambush',
      seat_ids: [seats['Seat A']],
      npcs: [{ name: 'Goblin', ac: 13, hp: 12, initiative: 5 }],
    });
    await api(ann, 'POST', `/api/sessions/${sessionId}/encounter/initiative`, { combatant_id: `seat:${seats['Seat A']}`, faces: [15] });
    await api(dana, 'POST', `/api/sessions/${sessionId}/encounter/advance`);
    for (const [who, page] of [
      ['DM', dana],
      ['player', ann],
    ]) {
      await page.getByRole('tab', { name: 'At the table', exact: true }).click();
      await page.getByTestId('encounter-round').waitFor();
      await tabs(who, page, ', in a fight');
    }
    await ann.getByRole('tab', { name: 'At the table', exact: true }).click();
    await button(ann.getByTestId('encounter'), 'Attack').click();
    await ann.getByTestId('attack-form').waitFor();
    await measure(ann, 'session (player), the attack form');
    noErrors();
    console.log(`# 390×844 touch: ${found.length} targets under 44 px`);
    assert.equal(found.length, 0, `targets under 44×44 px on a touch screen:\n${found.join('\n')}`);
  });
  // visibleHeight: how much of the element's box is on the screen, in px.
  const visibleHeight = (page, selector) =>
    page.evaluate((sel) => {
      const el = document.querySelector(sel);
      if (!el) return 0;
      const r = el.getBoundingClientRect();
      return Math.max(0, Math.min(r.bottom, innerHeight) - Math.max(r.top, 0));
    }, selector);
  const HEADER = '[data-testid="app-header"]';

  test('headers get out of the way, at 1366×768 and 390×844: the app header hides as a page scrolls down and comes back on scrolling up (at once with reduced motion); the session head compacts while the feed is read back, its lines staying put', async () => {
    const dana = await person('Dana');
    const ann = await person('Ann');
    const { sessionId } = await setUpTable({
      dm: { page: dana, name: 'Dana' },
      players: [{ page: ann, name: 'Ann', seat: 'Seat A', character: character('Aria', SHEET_LISTS) }],
      room: 'Scroll room',
      campaign: 'Long Night',
      start: true,
    });
    for (let i = 1; i <= 50; i++) {
      await api(i % 2 ? ann : dana, 'POST', `/api/sessions/${sessionId}/messages`, {
        kind: i % 2 ? 'character_dialogue' : 'narration',
        text: `Scroll line ${i}: the wind comes through the shutters and the candles gutter low.`,
        idempotency_key: randomUUID(),
      });
    }
    const chars = await api(ann, 'GET', '/api/characters');
    const charId = (chars.characters ?? chars.items ?? chars)[0]?.id;

    for (const size of [DESKTOP, PHONE]) {
      const what = `${size.width}×${size.height}`;
      for (const p of [dana, ann]) await p.setViewportSize(size);
      // a page that scrolls: the character sheet
      await at(ann, `characters/${charId}`);
      await ann.locator('h1').first().waitFor();
      await ann.mouse.move(size.width / 2, size.height / 2);
      const full = await visibleHeight(ann, HEADER);
      assert.ok(full >= 40, `${what}: the header shows at the top (${full} px)`);
      assert.equal(await ann.evaluate((sel) => getComputedStyle(document.querySelector(sel)).transitionDuration, HEADER), '0.2s', `${what}: it moves`);
      await ann.mouse.wheel(0, 700);
      await ann.waitForFunction((sel) => {
        const r = document.querySelector(sel).getBoundingClientRect();
        return r.bottom <= 0;
      }, HEADER);
      assert.equal(await visibleHeight(ann, HEADER), 0, `${what}: scrolled down, the header is out of the way`);
      const down = await ann.evaluate(() => scrollY);
      await ann.mouse.wheel(0, -120);
      await ann.waitForFunction(({ sel, h }) => document.querySelector(sel).getBoundingClientRect().top >= 0 && document.querySelector(sel).getBoundingClientRect().height >= h - 1, { sel: HEADER, h: full });
      const up = await ann.evaluate(() => scrollY);
      assert.ok(up > 64 && up < down, `${what}: a little way up (${down} → ${up} px), not at the top`);
      assert.equal(Math.round(await visibleHeight(ann, HEADER)), Math.round(full), `${what}: scrolled up, the header is back whole`);
      // with reduced motion it does not slide
      await ann.emulateMedia({ reducedMotion: 'reduce' });
      assert.equal(await ann.evaluate((sel) => getComputedStyle(document.querySelector(sel)).transitionDuration, HEADER), '0s', `${what}: no slide with reduced motion`);
      await ann.emulateMedia({ reducedMotion: 'no-preference' });

      // the session page: reading the feed back compacts the head
      await at(dana, `sessions/${sessionId}`);
      await dana.getByTestId('chat-line').filter({ hasText: 'Scroll line 50:' }).waitFor();
      await dana.evaluate(() => document.fonts.ready);
      const head = '[data-testid="table-left"] .table-head';
      const crumbs = '[data-testid="table-left"] > .crumbs';
      const headFull = (await visibleHeight(dana, head)) + (await visibleHeight(dana, crumbs));
      const appHeader = await visibleHeight(dana, HEADER);
      assert.equal(await dana.locator('.table-page[data-compact]').count(), 0, `${what}: at the feed's foot the head is whole`);
      // read back some way
      await dana.evaluate(() => {
        const list = document.querySelector('[data-testid="chat"]');
        list.scrollTop = list.scrollHeight - list.clientHeight - 600;
      });
      await dana.locator('.table-page[data-compact]').waitFor();
      const headCompact = (await visibleHeight(dana, head)) + (await visibleHeight(dana, crumbs));
      assert.ok(headCompact < headFull, `${what}: the head compacts while the feed is read back (${headFull} → ${headCompact} px)`);
      if (size === PHONE) assert.equal(await visibleHeight(dana, HEADER), 0, `${what}: on a phone the app header makes room too`);
      else assert.equal(await visibleHeight(dana, HEADER), appHeader, `${what}: on a wide screen the app header stays`);
      // back at the foot: whole again; then read back once more, the line stays where it was on the screen
      await dana.evaluate(() => {
        const list = document.querySelector('[data-testid="chat"]');
        list.scrollTop = list.scrollHeight;
      });
      await dana.locator('.table-page:not([data-compact])').waitFor();
      assert.equal((await visibleHeight(dana, head)) + (await visibleHeight(dana, crumbs)), headFull, `${what}: at the foot again the head is whole`);
      assert.equal(await visibleHeight(dana, HEADER), appHeader, `${what}: and the app header is back`);
      const y0 = await dana.evaluate(() => {
        const list = document.querySelector('[data-testid="chat"]');
        list.scrollTop = list.scrollHeight - list.clientHeight - 400;
        const lines = [...list.querySelectorAll('[data-testid="chat-line"]')];
        const box = list.getBoundingClientRect();
        const seen = lines.find((l) => l.getBoundingClientRect().top >= box.top + 10);
        seen.setAttribute('data-watch', '1');
        return seen.getBoundingClientRect().top;
      });
      await dana.locator('.table-page[data-compact]').waitFor();
      const y1 = await dana.locator('[data-watch="1"]').evaluate((el) => el.getBoundingClientRect().top);
      assert.ok(Math.abs(y1 - y0) <= 2, `${what}: the feed's lines stay put when the head compacts (${y0} → ${y1})`);
      await dana.locator('[data-watch="1"]').evaluate((el) => el.removeAttribute('data-watch'));
    }
    noErrors();
  });
});
