// The live table, end to end, at desktop and at phone size: three people
// (three browser contexts, three guests) at one session on the real server
// binary. Chat (Markdown, Shift+Enter lines, edit and delete), whispers, rolls
// from the chat (/r, /roll, /gmroll seen only by the roller and the DM,
// inline [[…]] rolls, /r perception with the character's modifier), who is
// online, the stage with an uploaded image, DM proxy and the DM's /check in
// zh-TW all arrive live (long-poll), with no fixed sleeps.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chromiumOrSkip, skipLine } from './harness.mjs';
import { character, chatLine, DESKTOP, showPart, SIZES, sizeName, tableJourney, waitText } from './table-setup.mjs';

const haveChromium = chromiumOrSkip();

// An 8×8 red PNG.
const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAEUlEQVR42mM4YSOHFTEMLQkAfuxIgRXblWMAAAAASUVORK5CYII=';

for (const viewport of SIZES) {
  describe(`live table journey at ${sizeName(viewport)}`, { skip: !haveChromium && skipLine() }, () => {
    const { at, person, api, setUpTable, pageErrors } = tableJourney({ viewport });
    // on a phone one part of the table shows at a time (on a wide screen both)
    const feedPart = (page) => showPart(page, 'Chat');
    const tablePart = (page) => showPart(page, 'At the table');

    const message = (page) => page.getByLabel('Message', { exact: true });
    const button = (page, name) => page.getByRole('button', { name, exact: true });
    async function say(page, text, action) {
      await message(page).fill(text);
      await button(page, action).click();
      // the bar clears once the server has the message
      await page.waitForFunction(() => document.querySelector('textarea.message-input')?.value === '');
    }
    // quickRolls: the roll cards of /r, /roll and /gmroll (and Dice-tab rolls) in the feed
    const quickRolls = (page) => page.getByTestId('chat').locator('[data-testid="log-line"][data-kind="roll.quick"]');
    const rollCard = (page, re) => quickRolls(page).filter({ has: page.locator('.roll-formula').filter({ hasText: re }) });
    // rolled: the card's dice and total
    async function rolled(card) {
      const dice = (await card.getByTestId('die').allTextContents()).map(Number);
      const total = Number(await card.getByTestId('feed-roll-total').textContent());
      return { dice, total };
    }
    const stageImageLoaded = (page) =>
      page.waitForFunction(() => {
        const img = document.querySelector('[data-testid="stage-image"]');
        return img instanceof HTMLImageElement && img.complete && img.naturalWidth > 0;
      });

    test(`DM Dana, Ann and Bob play live at ${sizeName(viewport)}: chat, whispers, rolls, edit and delete, presence, stage image, DM proxy`, async () => {
      // --- three browsers, three guests
      const dana = await person('Dana');
      const ann = await person('Ann');
      const bob = await person('Bob');

      // --- names, the room, campaign and seats (through the API, with each person's cookies)
      const { me, seats, sessionId } = await setUpTable({
        dm: { page: dana, name: 'Dana' },
        players: [
          { page: ann, name: 'Ann', seat: 'Seat A', character: character('Aria') },
          { page: bob, name: 'Bob', seat: 'Seat B', character: character('Brom') },
        ],
        room: 'Live room',
        campaign: 'Sunless Sea',
        start: false,
      });
      const ids = new Set(me.map((m) => m.id));
      assert.equal(ids.size, 3, 'each context is its own guest');

      // --- everyone opens the table; Dana starts; the players see it without reloading
      // (Bob's page follows the live feed: one event stream, no long polls)
      const bobFeed = [];
      bob.on('request', (r) => {
        const path = new URL(r.url()).pathname;
        if (/\/events\/(stream|wait)$/.test(path)) bobFeed.push(path);
      });
      for (const page of [dana, ann, bob]) {
        await at(page, `sessions/${sessionId}`);
        await waitText(page.getByTestId('session-status'), 'Lobby — waiting to start');
      }
      // the role sits in the page's facts (folded away on a phone)
      await waitText(dana.getByTestId('my-role'), 'DM', { state: 'attached' });
      await waitText(ann.getByTestId('my-role'), 'Player', { state: 'attached' });
      await tablePart(dana);
      await button(dana, 'Start session').click();
      for (const page of [dana, ann, bob]) {
        await waitText(page.getByTestId('session-status'), 'Active');
        await tablePart(page);
        await page.getByTestId('participant').filter({ hasText: 'Aria' }).filter({ hasText: 'Ann' }).waitFor();
        await page.getByTestId('participant').filter({ hasText: 'Brom' }).filter({ hasText: 'HP 24/24' }).waitFor();
        await page.getByTestId('dm-card').filter({ hasText: 'Dana' }).waitFor();
        await feedPart(page);
        await page.getByTestId('log-line').filter({ hasText: 'The session started.' }).waitFor();
      }

      // --- Ann says something: Bob and Dana see it live
      await say(ann, 'Hello from Aria!', 'Say');
      for (const page of [bob, dana]) {
        await waitText(chatLine(page, 'Hello from Aria!').getByTestId('speaker'), 'Aria');
      }
      assert.ok(bobFeed.some((p) => p.endsWith('/events/stream')), `Bob's page opened no event stream: ${bobFeed}`);
      assert.deepEqual(bobFeed.filter((p) => p.endsWith('/events/wait')), [], 'Bob\'s page long-polled beside its stream');

      // --- Ann whispers the DM: Dana sees it, marked; Bob never does
      const secret = 'Psst, the idol is a fake.';
      await say(ann, secret, 'Whisper DM');
      await chatLine(dana, secret).filter({ hasText: 'Whisper to the DM' }).waitFor();
      await waitText(chatLine(dana, secret).getByTestId('seen-by'), 'Only Aria and the DM can see this.');
      await waitText(chatLine(ann, secret).getByTestId('seen-by'), 'Only Aria and the DM can see this.');
      // a later public line reaches Bob, so his feed has passed the whisper's seq
      await say(ann, 'Shall we go on?', 'Say');
      await chatLine(bob, 'Shall we go on?').waitFor();
      assert.equal(await bob.getByText(secret).count(), 0, 'the whisper is not in B’s page');
      assert.ok(!(await bob.content()).includes('idol is a fake'), 'the whisper is nowhere in B’s DOM');
      const bobEvents = await api(bob, 'GET', `/api/sessions/${sessionId}/events?after=0`);
      const bobTexts = bobEvents.events.filter((e) => e.kind === 'message.posted').map((e) => e.payload.text);
      assert.ok(bobTexts.includes('Shall we go on?'), `B's events read covers the later line: ${JSON.stringify(bobTexts)}`);
      assert.ok(!JSON.stringify(bobEvents).includes('idol is a fake'), 'the whisper is not in B’s events');
      assert.ok(!JSON.stringify(await api(bob, 'GET', `/api/sessions/${sessionId}`)).includes('idol is a fake'), 'nor in B’s resume');
      const danaEvents = await api(dana, 'GET', `/api/sessions/${sessionId}/events?after=0`);
      assert.ok(JSON.stringify(danaEvents).includes('idol is a fake'), 'the DM’s events have the whisper');

      // --- Ann edits her own line (Edit on hover or focus): Dana's page shows the new text, marked edited
      await say(ann, 'The dorr is locked.', 'Say');
      await chatLine(dana, 'The dorr is locked.').waitFor();
      const typo = chatLine(ann, 'The dorr is locked.');
      await typo.hover();
      await typo.getByRole('button', { name: 'Edit', exact: true }).click();
      await ann.getByLabel('Edit your message').fill('The door is locked.');
      await ann.getByTestId('chat-edit').getByRole('button', { name: 'Save', exact: true }).click();
      for (const page of [ann, dana, bob]) {
        await chatLine(page, 'The door is locked.').getByTestId('edited-mark').waitFor();
      }
      assert.equal(await chatLine(dana, 'The dorr is locked.').count(), 0, 'the old text is gone from the DM’s page');
      // Bob gets no Edit on Ann's line; the DM gets one on every line
      assert.equal(await chatLine(bob, 'The door is locked.').getByRole('button', { name: 'Edit', exact: true }).count(), 0);
      assert.equal(await chatLine(dana, 'The door is locked.').getByRole('button', { name: 'Edit', exact: true }).count(), 1);
      // --- Ann deletes a line of hers (Delete asks first): it disappears from the other pages
      await say(ann, 'Oops, wrong table.', 'Say');
      const oopsSeq = await chatLine(bob, 'Oops, wrong table.').getAttribute('data-seq');
      await chatLine(dana, 'Oops, wrong table.').waitFor();
      const oops = chatLine(ann, 'Oops, wrong table.');
      await oops.hover();
      await oops.getByRole('button', { name: 'Delete', exact: true }).click();
      await oops.getByRole('alertdialog', { name: 'Delete this message?' }).getByRole('button', { name: 'Yes, delete' }).click();
      for (const page of [ann, bob, dana]) {
        const gone = page.locator(`[data-testid="chat-line"][data-seq="${oopsSeq}"][data-deleted="true"]`);
        await waitText(gone.getByTestId('chat-text'), 'Message deleted');
        assert.equal(await page.getByText('Oops, wrong table.').count(), 0, 'the deleted text is gone from the page');
      }

      // --- Markdown: bold renders, a javascript: link is no link, typed HTML stays text
      await say(ann, '**Bold** move: [trap](javascript:alert(1)), [map](https://example.com/map) and <b>raw</b> <img src=x onerror=alert(1)>', 'Say');
      for (const page of [bob, dana]) {
        const md = page.getByTestId('chat-line').filter({ hasText: 'move:' }).getByTestId('chat-text');
        await md.locator('strong').filter({ hasText: /^Bold$/ }).waitFor();
        assert.equal(await md.locator('a').count(), 1, 'only the https link is a link');
        assert.equal(await md.locator('a').getAttribute('href'), 'https://example.com/map');
        assert.equal(await md.locator('a').getAttribute('rel'), 'noopener noreferrer');
        assert.equal(await md.locator('b, img').count(), 0, 'no raw HTML elements');
        const text = await md.textContent();
        assert.ok(text.includes('trap') && text.includes('<b>raw</b>'), `the words stay as text: ${text}`);
      }

      // --- Shift+Enter breaks the line, Enter sends both lines as one message
      await message(ann).fill('First line');
      await message(ann).press('Shift+Enter');
      await message(ann).pressSequentially('second line');
      assert.equal(await message(ann).inputValue(), 'First line\nsecond line');
      await message(ann).press('Enter');
      const twoLines = bob.getByTestId('chat-line').filter({ hasText: 'First line' }).getByTestId('chat-text');
      await twoLines.locator('br').waitFor({ state: 'attached' });
      assert.match(await twoLines.innerText(), /^First line\nsecond line$/);

      // --- rolls from the chat: /r and /roll with dice, everyone sees the card
      await message(ann).fill('/r 1d20+5');
      await message(ann).press('Enter');
      await message(bob).fill('/roll 4d6dl1');
      await message(bob).press('Enter');
      for (const page of [dana, ann, bob]) {
        const d20 = rollCard(page, /^1?d20 ?\+ ?5$/);
        await d20.waitFor();
        const r = await rolled(d20);
        assert.equal(r.dice.length, 1);
        assert.equal(r.total, r.dice[0] + 5, `1d20+5: ${JSON.stringify(r)}`);
        const stats = rollCard(page, /^4d6dl1$/);
        await stats.locator('[data-testid="die"][data-dropped="true"]').waitFor();
        assert.equal(await stats.getByTestId('die').count(), 4);
      }
      // /gmroll: the roller and the DM see it, Bob never does
      await message(ann).fill('/gmroll 3d12');
      await message(ann).press('Enter');
      for (const page of [ann, dana]) await rollCard(page, /^3d12$/).filter({ hasText: 'private' }).waitFor();
      // /r perception: 1d20 + Aria's modifier (Wisdom 11, proficient at level 3: +2)
      await message(ann).fill('/r perception');
      await message(ann).press('Enter');
      {
        const card = rollCard(dana, /^1?d20 ?\+ ?2$/);
        await card.waitFor();
        const r = await rolled(card);
        assert.equal(r.total, r.dice[0] + 2, `perception: ${JSON.stringify(r)}`);
        await waitText(card.locator('.speaker'), 'Aria');
      }
      // inline [[…]] rolls: rolled on the server, a chip in the line and a roll card under it
      await say(ann, 'I swing [[1d20+2]] at the door.', 'Say');
      for (const page of [bob, dana]) {
        const line = page.getByTestId('chat-line').filter({ hasText: 'I swing' });
        const chip = line.getByTestId('inline-roll');
        await chip.waitFor();
        const card = line.getByTestId('roll-card');
        await card.waitFor();
        const r = await rolled(card);
        assert.equal(r.total, r.dice[0] + 2, `[[1d20+2]]: ${JSON.stringify(r)}`);
        assert.equal(Number(await chip.locator('.roll-total').textContent()), r.total, 'the chip shows the card’s total');
        assert.ok(!(await line.getByTestId('chat-text').textContent()).includes('[['), 'the marker is not shown as text');
      }
      // Bob's feed has passed the /gmroll (the inline line came after it): no 3d12 anywhere for him
      assert.equal(await rollCard(bob, /^3d12$/).count(), 0, 'the /gmroll is not in Bob’s feed');
      assert.ok(!(await bob.content()).includes('3d12'), 'nor anywhere in Bob’s page');
      assert.ok(!JSON.stringify(await api(bob, 'GET', `/api/sessions/${sessionId}/events?after=0`)).includes('3d12'), 'nor in his events');

      // presence: the three humans are online (the page reads it every 20 s; the list shows after the reload below)
      const online = await api(dana, 'GET', `/api/sessions/${sessionId}/presence`);
      assert.deepEqual(online.online.map((x) => x.name).sort(), ['Ann', 'Bob', 'Dana']);
      await dana.getByTestId('presence-count').waitFor();

      // --- the DM sets the stage text and shows an image: both players see them
      await tablePart(dana);
      await button(dana, 'Edit stage text').click();
      // a heading the DM writes shows as written (the style that hides the
      // section's own title once hid it too)
      await dana.getByLabel('Stage text').fill('## Crystal cavern\nThe cavern glitters with crystals.');
      await button(dana, 'Save stage text').click();
      await dana.getByTestId('stage-text').filter({ hasText: 'The cavern glitters with crystals.' }).waitFor();
      await button(dana, 'Edit stage text').waitFor();
      await dana.getByLabel('Show an image on the stage').setInputFiles({
        name: 'cavern.png',
        mimeType: 'image/png',
        buffer: Buffer.from(PNG_BASE64, 'base64'),
      });
      for (const page of [ann, bob, dana]) {
        await tablePart(page);
        await page.getByTestId('stage-text').filter({ hasText: 'The cavern glitters with crystals.' }).waitFor();
        const heading = await page.getByTestId('stage-text').getByRole('heading', { name: 'Crystal cavern' }).boundingBox();
        assert.ok(heading && heading.width > 50 && heading.height > 10, `the stage heading shows: ${JSON.stringify(heading)}`);
        await page.getByTestId('stage-image').waitFor();
        await stageImageLoaded(page);
        assert.equal(await page.getByTestId('stage-image').evaluate((img) => img.naturalWidth), 8);
        await feedPart(page);
        await page.getByTestId('log-line').filter({ hasText: 'The DM changed the stage.' }).first().waitFor();
      }
      assert.match(await bob.getByTestId('stage-image').getAttribute('src'), /^\/api\/stage-images\/\d+$/);

      // --- the DM acts for Bob's character: everyone sees "DM for Brom"
      await tablePart(bob);
      await bob.getByTestId('participant').filter({ hasText: 'Brom' }).waitFor();
      assert.equal(await bob.getByRole('button', { name: /^Act as/ }).count(), 0, 'players do not get DM proxy');
      await feedPart(bob);
      await tablePart(dana);
      await dana.getByTestId('participant').filter({ hasText: 'Brom' }).getByRole('button', { name: 'Act as Brom' }).click();
      await dana.getByTestId('proxy-banner').filter({ hasText: 'Acting as Brom' }).waitFor();
      await feedPart(dana);
      await say(dana, 'Brom shoulders the door open.', 'Act');
      for (const page of [dana, ann, bob]) {
        await waitText(chatLine(page, 'Brom shoulders the door open.').getByTestId('speaker'), 'DM for Brom');
      }
      await tablePart(dana);
      await dana.getByTestId('proxy-banner').getByRole('button', { name: 'Stop' }).click();
      await dana.getByTestId('proxy-banner').waitFor({ state: 'detached' });
      await feedPart(dana);
      const afterProxy = await api(bob, 'GET', `/api/sessions/${sessionId}`);
      assert.equal(
        afterProxy.seats.find((s) => s.id === seats['Seat B']).controller_display_name,
        'Bob',
        'DM proxy never changes the seat controller',
      );

      // --- Bob types a slash command; the DM narrates and whispers back to Bob only
      await message(bob).fill('/');
      await bob.getByTestId('slash-hints').getByRole('button', { name: '/search' }).waitFor();
      await message(bob).fill('/search the rubble');
      await message(bob).press('Enter');
      await chatLine(ann, 'the rubble').filter({ hasText: 'Search' }).getByTestId('speaker').filter({ hasText: /^Brom$/ }).waitFor();

      await say(dana, 'A cold wind rises.', 'Narrate');
      await waitText(chatLine(bob, 'A cold wind rises.').getByTestId('speaker'), 'DM');
      // the DM voices an NPC
      await message(dana).fill('/npc Old hermit: Who disturbs my rest?');
      await message(dana).press('Enter');
      await waitText(chatLine(bob, 'Who disturbs my rest?').getByTestId('speaker'), 'Old hermit (NPC)');
      // a whisper typed Roll20's way: /w and the player's name
      await message(dana).fill('/w Brom You spot a hidden lever.');
      await message(dana).press('Enter');
      await chatLine(bob, 'You spot a hidden lever.').filter({ hasText: 'Whisper to Brom' }).waitFor();
      await say(dana, 'The lever creaks.', 'Narrate');
      await chatLine(ann, 'The lever creaks.').waitFor();
      assert.equal(await ann.getByText('You spot a hidden lever.').count(), 0, 'A does not see the DM’s whisper to B');
      assert.ok(!JSON.stringify(await api(ann, 'GET', `/api/sessions/${sessionId}/events?after=0`)).includes('hidden lever'));

      // --- the divider between stage and chat (a wide screen only): drag it, and the width is remembered
      let widened = null;
      if (viewport === DESKTOP) {
        const divider = dana.getByRole('separator', { name: 'Resize the chat panel' });
        const before = Number(await divider.getAttribute('aria-valuenow'));
        const box = await divider.boundingBox();
        await dana.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
        await dana.mouse.down();
        await dana.mouse.move(box.x + box.width / 2 - 120, box.y + box.height / 2, { steps: 5 });
        await dana.mouse.up();
        widened = Number(await divider.getAttribute('aria-valuenow'));
        assert.ok(widened >= before + 100, `dragging left widens the panel (${before} -> ${widened})`);
      }
      await dana.reload();
      await waitText(dana.getByTestId('session-status'), 'Active');
      if (widened !== null) {
        assert.equal(Number(await dana.getByRole('separator', { name: 'Resize the chat panel' }).getAttribute('aria-valuenow')), widened);
      }
      // the history comes back with the page
      await waitText(chatLine(dana, 'Hello from Aria!').getByTestId('speaker'), 'Aria');
      await stageImageLoaded(dana);
      // who is online: the three humans, by name
      for (const name of ['Ann', 'Bob', 'Dana']) {
        await dana.getByTestId('presence').getByTestId('presence-name').filter({ hasText: new RegExp(`^(, )?${name}$`) }).waitFor();
      }
      await waitText(dana.getByTestId('presence-count'), '3 online');

      // --- the DM's /check, read in zh-TW: the server's announcement is in the reader's language
      await message(dana).fill('/check perception');
      await message(dana).press('Enter');
      const announced = chatLine(bob, 'Everyone: roll Perception.');
      await announced.waitFor();
      const announcedSeq = await announced.getAttribute('data-seq');
      await bob.getByLabel('Language').selectOption('zh-TW');
      const zh = bob.locator(`[data-testid="chat-line"][data-seq="${announcedSeq}"]`).getByTestId('chat-text');
      await waitText(zh, '所有人：擲察覺檢定。');

      assert.deepEqual(pageErrors, [], 'uncaught errors in the pages');
    });
  });
}
