// The live table, end to end: three people (three browser contexts, three
// guests) at one session on the real server binary. Chat, whispers, the
// stage with an uploaded image and DM proxy all arrive live (long-poll), with
// no reloads and no fixed sleeps.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chromiumOrSkip, skipLine } from './harness.mjs';
import { character, chatLine, tableJourney, waitText } from './table-setup.mjs';

const haveChromium = chromiumOrSkip();

// An 8×8 red PNG.
const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAEUlEQVR42mM4YSOHFTEMLQkAfuxIgRXblWMAAAAASUVORK5CYII=';

describe('live table journey', { skip: !haveChromium && skipLine() }, () => {
  const { at, person, api, setUpTable, pageErrors } = tableJourney({ viewport: { width: 1400, height: 900 } });

  const message = (page) => page.getByLabel('Message', { exact: true });
  const button = (page, name) => page.getByRole('button', { name, exact: true });
  async function say(page, text, action) {
    await message(page).fill(text);
    await button(page, action).click();
    // the bar clears once the server has the message
    await page.waitForFunction(() => document.querySelector('textarea.message-input')?.value === '');
  }
  const stageImageLoaded = (page) =>
    page.waitForFunction(() => {
      const img = document.querySelector('[data-testid="stage-image"]');
      return img instanceof HTMLImageElement && img.complete && img.naturalWidth > 0;
    });

  test('DM Dana, Ann and Bob play live: chat, whispers, stage image, DM proxy', async () => {
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
    for (const page of [dana, ann, bob]) {
      await at(page, `sessions/${sessionId}`);
      await waitText(page.getByTestId('session-status'), 'Lobby — waiting to start');
    }
    await waitText(dana.getByTestId('my-role'), 'DM');
    await waitText(ann.getByTestId('my-role'), 'Player');
    await button(dana, 'Start session').click();
    for (const page of [dana, ann, bob]) {
      await waitText(page.getByTestId('session-status'), 'Active');
      await page.getByTestId('log-line').filter({ hasText: 'The session started.' }).waitFor();
      await page.getByTestId('participant').filter({ hasText: 'Aria' }).filter({ hasText: 'Ann' }).waitFor();
      await page.getByTestId('participant').filter({ hasText: 'Brom' }).filter({ hasText: 'HP 24/24' }).waitFor();
      await page.getByTestId('dm-card').filter({ hasText: 'Dana' }).waitFor();
    }

    // --- Ann says something: Bob and Dana see it live
    await say(ann, 'Hello from Aria!', 'Say');
    for (const page of [bob, dana]) {
      await waitText(chatLine(page, 'Hello from Aria!').getByTestId('speaker'), 'Aria');
    }

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
    // presence: the three humans are online (the page reads it every 20 s)
    const online = await api(dana, 'GET', `/api/sessions/${sessionId}/presence`);
    assert.deepEqual(online.online.map((x) => x.name).sort(), ['Ann', 'Bob', 'Dana']);
    await dana.getByTestId('presence-count').waitFor();

    // --- the DM sets the stage text and shows an image: both players see them
    await button(dana, 'Edit stage text').click();
    await dana.getByLabel('Stage text').fill('The cavern glitters with crystals.');
    await button(dana, 'Save stage text').click();
    await waitText(dana.getByTestId('stage-text'), 'The cavern glitters with crystals.');
    await button(dana, 'Edit stage text').waitFor();
    await dana.getByLabel('Show an image on the stage').setInputFiles({
      name: 'cavern.png',
      mimeType: 'image/png',
      buffer: Buffer.from(PNG_BASE64, 'base64'),
    });
    for (const page of [ann, bob, dana]) {
      await waitText(page.getByTestId('stage-text'), 'The cavern glitters with crystals.');
      await page.getByTestId('stage-image').waitFor();
      await stageImageLoaded(page);
      assert.equal(await page.getByTestId('stage-image').evaluate((img) => img.naturalWidth), 8);
      await page.getByTestId('log-line').filter({ hasText: 'The DM changed the stage.' }).first().waitFor();
    }
    assert.match(await bob.getByTestId('stage-image').getAttribute('src'), /^\/api\/stage-images\/\d+$/);

    // --- the DM acts for Bob's character: everyone sees "DM for Brom"
    await bob.getByTestId('participant').filter({ hasText: 'Brom' }).waitFor();
    assert.equal(await bob.getByRole('button', { name: /^Act as/ }).count(), 0, 'players do not get DM proxy');
    await dana.getByTestId('participant').filter({ hasText: 'Brom' }).getByRole('button', { name: 'Act as Brom' }).click();
    await dana.getByTestId('proxy-banner').filter({ hasText: 'Acting as Brom' }).waitFor();
    await say(dana, 'Brom shoulders the door open.', 'Act');
    for (const page of [dana, ann, bob]) {
      await waitText(chatLine(page, 'Brom shoulders the door open.').getByTestId('speaker'), 'DM for Brom');
    }
    await dana.getByTestId('proxy-banner').getByRole('button', { name: 'Stop' }).click();
    await dana.getByTestId('proxy-banner').waitFor({ state: 'detached' });
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
    await dana.getByLabel('Whisper to').selectOption({ label: 'Brom' });
    await say(dana, 'You spot a hidden lever.', 'Whisper');
    await chatLine(bob, 'You spot a hidden lever.').filter({ hasText: 'Whisper to Brom' }).waitFor();
    await say(dana, 'The lever creaks.', 'Narrate');
    await chatLine(ann, 'The lever creaks.').waitFor();
    assert.equal(await ann.getByText('You spot a hidden lever.').count(), 0, 'A does not see the DM’s whisper to B');
    assert.ok(!JSON.stringify(await api(ann, 'GET', `/api/sessions/${sessionId}/events?after=0`)).includes('hidden lever'));

    // --- the divider between stage and chat: drag it, and the width is remembered
    const divider = dana.getByRole('separator', { name: 'Resize the chat panel' });
    const before = Number(await divider.getAttribute('aria-valuenow'));
    const box = await divider.boundingBox();
    await dana.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await dana.mouse.down();
    await dana.mouse.move(box.x + box.width / 2 - 120, box.y + box.height / 2, { steps: 5 });
    await dana.mouse.up();
    const widened = Number(await divider.getAttribute('aria-valuenow'));
    assert.ok(widened >= before + 100, `dragging left widens the panel (${before} -> ${widened})`);
    await dana.reload();
    await waitText(dana.getByTestId('session-status'), 'Active');
    assert.equal(Number(await dana.getByRole('separator', { name: 'Resize the chat panel' }).getAttribute('aria-valuenow')), widened);
    // the history comes back with the page
    await waitText(chatLine(dana, 'Hello from Aria!').getByTestId('speaker'), 'Aria');
    await stageImageLoaded(dana);

    assert.deepEqual(pageErrors, [], 'uncaught errors in the pages');
  });
});
