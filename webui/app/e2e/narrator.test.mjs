// Adventure Table's narrator at the DM seat, end to end: the owner (desktop,
// 1366×768) and a friend (phone, 390×844) in two browser contexts on the
// real server binary, the fake model answering with native tool calls. The
// owner points the model settings at the fake, gives the DM seat to the
// narrator on the room page, opens the lobby and presses Act now: the model
// calls `session` {action: start} and narrates, and both screens show it.
// The friend writes "@DM I look around": the model asks for a Perception
// check through `request_check` (a secret DC 15 the friend never sees) and
// narrates. The owner sees the narrator's state and tokens, pauses it (an
// @DM message then wakes no step), resumes it (the step answers what came
// in meanwhile, its narration streaming into both feeds as it is written); the model fails (the narrator is stuck: the owner reads
// why, the table reads "stuck") and Retry recovers; the owner takes the DM
// seat back: the DM composer appears. The model was offered the server's
// own MCP tools, never wait_for_event.
// AT_NARRATOR_SHOTS=<dir> keeps screenshots of the room page's choice and
// the session page's status, at both sizes, light and dark.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startFakeModel } from './fake-model.mjs';
import { axeViolations, chromiumOrSkip, skipLine } from './harness.mjs';
import { button, character, chatLine, DESKTOP, PHONE, tableJourney, waitText } from './table-setup.mjs';

const haveChromium = chromiumOrSkip();
const shotsDir = process.env.AT_NARRATOR_SHOTS;

const OPENING = 'Rain drums on the roof of the Drowned Lantern. A stranger in grey watches the door.';
const LOOKING = 'Aria, roll Perception: something shifts in the shadows by the hearth.';
const LATER = 'The stranger in grey rises and walks toward your table.';
const RETRIED = 'The lantern flickers; the stranger sits down across from you.';
const errorsEn = JSON.parse(readFileSync(new URL('../src/i18n/errors.en.json', import.meta.url), 'utf8'));

describe('Adventure Table narrator journey', { skip: !haveChromium && skipLine() }, () => {
  const { at, person, api, setUpTable, pageErrors } = tableJourney({ viewport: DESKTOP });
  let model;

  before(async () => {
    model = await startFakeModel();
  });
  after(async () => {
    await model?.close();
  });

  // shoot keeps the page at a size, light and dark, when screenshots are asked for.
  async function shoot(page, name, size) {
    if (!shotsDir) return;
    mkdirSync(shotsDir, { recursive: true });
    const was = page.viewportSize();
    await page.setViewportSize(size);
    await page.evaluate(() => document.fonts.ready);
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({ path: join(shotsDir, `${name}-${size.width}x${size.height}-${scheme}.png`), fullPage: true });
    }
    await page.emulateMedia({ colorScheme: null });
    if (was) await page.setViewportSize(was);
  }

  test('the narrator takes the DM seat, starts the session, asks a secret check, pauses, resumes and hands the seat back', async () => {
    const owner = await person('Olga');
    const friend = await person('Finn');
    await friend.setViewportSize(PHONE);

    // --- through the API: names, a room with a campaign and Finn's seat, Finn's character on it
    await api(owner, 'PATCH', '/api/me', { display_name: 'Olga' });
    await api(friend, 'PATCH', '/api/me', { display_name: 'Finn' });
    let room = await api(owner, 'POST', '/api/rooms', { name: 'Narrated room' });
    room = await api(owner, 'POST', `/api/rooms/${room.id}/campaigns`, { name: 'The Drowned Lantern' });
    room = await api(owner, 'POST', `/api/campaigns/${room.campaigns[0].id}/seats`, { label: 'Seat A' });
    const seats = Object.fromEntries(room.campaigns[0].seats.map((s) => [s.label, s.id]));
    const joined = await api(friend, 'POST', '/api/rooms/join', { invite_code: room.invite_code });
    await api(owner, 'POST', `/api/seats/${seats['Seat A']}/assign`, { access_id: joined.my_access.id });
    const aria = await api(friend, 'POST', '/api/characters', character('Aria'));
    await api(friend, 'PUT', `/api/seats/${seats['Seat A']}/character`, { character_id: aria.id });
    // the owner's model settings (the solo pages' own) point at the fake
    await api(owner, 'PUT', '/api/solo/settings', {
      base_url: model.url,
      model: 'fake',
      context_budget: 8000,
      max_output_tokens: 600,
      temperature: 0.8,
      top_p: 0.95,
    });

    // --- the room page: the DM seat's choice, the narrator beside the outside agent
    await at(owner, `rooms/${room.id}`);
    const choice = owner.getByTestId('dm-narrator-choice');
    await choice.waitFor();
    await choice.getByTestId('narrator-model').filter({ hasText: 'fake at 127.0.0.1' }).waitFor();
    assert.equal(await choice.getByTestId('narrator-model-link').getAttribute('href'), '/solo#model-settings');
    await owner.getByTestId('dm-ai').getByRole('heading', { name: 'An outside agent (MCP)' }).waitFor();
    await choice.getByLabel('Quiet time (seconds)').fill('2');
    await shoot(owner, 'narrator-room', DESKTOP);
    await shoot(owner, 'narrator-room', PHONE);
    await button(choice, 'Give the DM seat to the narrator').click();
    await owner.locator('[data-testid="dm-ai"][data-controller="narrator"]').waitFor();
    await owner.getByTestId('dm-ai').getByText('The DM seat is played by Adventure Table’s narrator.').waitFor();
    const [dmNarrator] = await api(owner, 'GET', `/api/rooms/${room.id}/narrators`);
    assert.equal(dmNarrator.seat_id, seats.DM);
    assert.equal(dmNarrator.debounce_ms, 2000, 'the quiet time set on the page');

    // --- the lobby; Finn waits in it on his phone
    await button(owner, 'Open session lobby').click();
    await owner.waitForURL(/\/sessions\/\d+$/);
    const sessionPath = new URL(owner.url()).pathname.slice(1);
    await at(friend, sessionPath);
    for (const page of [owner, friend]) await waitText(page.getByTestId('session-status'), 'Lobby — waiting to start');
    const status = owner.getByTestId('narrator-status');
    await status.locator('[data-testid="narrator-state"]').filter({ hasText: 'ready to start' }).waitFor();

    await shoot(owner, 'narrator-lobby', DESKTOP);
    // --- Act now: the model starts the session with a tool call, then narrates
    model.push({ toolCalls: [{ name: 'session', arguments: { action: 'start' } }] });
    model.push({ text: OPENING });
    await button(status, 'Act now').click();
    for (const page of [owner, friend]) {
      await waitText(page.getByTestId('session-status'), 'Active');
      await chatLine(page, OPENING).waitFor();
    }
    assert.equal(model.unexpected, 0);
    // the DM card names who plays the seat (on the phone it sits in the "At the table" tab)
    await friend
      .getByTestId('dm-card')
      .getByTestId('controller')
      .filter({ hasText: 'Played by: Adventure Table’s narrator' })
      .waitFor({ state: 'attached' });
    const offered = model.tools[0];
    for (const name of ['session', 'request_check', 'post_message', 'get_session_context']) {
      assert.ok(offered.includes(name), `the model was offered ${name}: ${offered.join(', ')}`);
    }
    assert.ok(!offered.includes('wait_for_event'), 'the runner does the waiting: wait_for_event is not offered');
    // the second call carried the tool's result back
    assert.ok(
      model.requests[1].messages.some((m) => m.role === 'tool'),
      'the session tool result went back to the model',
    );

    // --- Finn speaks to the DM: a Perception check with a secret DC, then narration
    model.push({
      toolCalls: [{ name: 'request_check', arguments: { seat_id: seats['Seat A'], skill: 'perception', dc: 15 } }],
    });
    model.push({ text: LOOKING });
    const before = model.requests.length;
    const composer = friend.getByPlaceholder('Type a message, or / for commands');
    await composer.fill('@DM I look around');
    await composer.press('Enter');
    const card = friend.getByTestId('feed-check').filter({ hasText: 'Perception' });
    await card.waitFor();
    for (const page of [owner, friend]) await chatLine(page, LOOKING).waitFor();
    assert.equal(model.requests.length, before + 2, 'one step: the tool call, then the narration');
    assert.equal(model.unexpected, 0);
    const cardText = await card.innerText();
    assert.doesNotMatch(cardText, /\b15\b|\bDC\s*\d/, 'the check card shows no DC');
    assert.match(cardText, /DC committed/, 'the check card shows the commitment to the secret DC');
    assert.equal(await friend.locator('.dc, [data-testid="request-dc"]').count(), 0);
    assert.doesNotMatch(await friend.content(), /\bDC\s*15\b/, 'DC 15 is nowhere on Finn’s page');

    // --- the status: Finn sees it without controls or costs; Olga directs it and sees the tokens
    const friendStatus = friend.getByTestId('narrator-status');
    await friendStatus.locator('[data-testid="narrator-state"][data-state="idle"]').waitFor();
    assert.equal(await friendStatus.getByRole('button').count(), 0, 'a player directs only a narrator in their own seat');
    assert.equal(await friend.getByTestId('narrator-tokens').count(), 0, 'costs are the owner’s');
    await status.locator('[data-testid="narrator-state"]').filter({ hasText: 'waiting for the table' }).waitFor();
    await status.getByTestId('narrator-tokens').filter({ hasText: /^Steps this session: 2 · tokens [\d,]+ prompt \+ [\d,]+ completion · last step [\d,]+$/ }).waitFor();
    assert.deepEqual(await axeViolations(owner), [], 'the owner’s page with the narrator controls');
    assert.deepEqual(await axeViolations(friend), [], 'Finn’s page with the narrator status');
    await shoot(owner, 'narrator-session', DESKTOP);
    await shoot(owner, 'narrator-session', PHONE);
    await shoot(friend, 'narrator-session-player', PHONE);

    // --- the narrator's steps (Insights): Olga opens the last step and reads
    // its prompt's parts, the request_check call with its secret DC (hers to
    // see) and the exact messages; Finn may not open the page
    assert.equal(await friend.getByTestId('narrator-steps-link').count(), 0, 'no steps link for a player');
    await status.getByTestId('narrator-steps-link').click();
    await owner.getByRole('heading', { name: 'The narrator’s steps' }).waitFor();
    const steps = owner.getByTestId('narrator-step');
    await steps.first().waitFor();
    assert.equal(await steps.count(), 2, 'the two steps, newest first');
    await steps.first().locator('summary').click();
    const detail = steps.first().getByTestId('narrator-step-detail');
    await detail.getByTestId('narrator-step-sections').waitFor();
    for (const section of ['instructions', 'tool definitions', 'the table (get_session_context)', 'tool results']) {
      assert.match((await detail.locator(`tr[data-section="${section}"] td`).innerText()).trim(), /^\d[\d,]*$/, `${section} has its tokens`);
    }
    const checkCall = detail.getByTestId('narrator-step-calls').locator('li[data-tool="request_check"]');
    assert.match(await checkCall.innerText(), /"dc":15/, 'the owner reads the call with its DC');
    await detail.locator('.narrator-step-prompt > summary').click();
    assert.equal(await detail.getByTestId('prompt-message').count(), model.requests[before + 1].messages.length + 1, 'the exact messages of the step, and its narration');
    assert.match(await detail.getByTestId('prompt-message').last().innerText(), new RegExp(LOOKING.slice(0, 20)));
    assert.deepEqual(await axeViolations(owner), [], 'the narrator’s steps page');
    await shoot(owner, 'narrator-steps', DESKTOP);
    await shoot(owner, 'narrator-steps', PHONE);
    const seatUrl = new URL(owner.url()).pathname;
    await at(friend, seatUrl.replace(/^\//, ''));
    await friend.getByText("Only the room's owner or a DM-key holder can do that.").waitFor();
    assert.doesNotMatch(await friend.content(), /"dc":15/, 'Finn never reads the step');
    await owner.goBack();
    await status.waitFor();
    await at(friend, sessionPath);
    await friend.getByTestId('narrator-status').waitFor();

    // --- Pause: an @DM message wakes no step
    await button(status, 'Pause').click();
    await status.locator('[data-testid="narrator-state"][data-state="paused"]').waitFor();
    await friendStatus.locator('[data-testid="narrator-state"]').filter({ hasText: 'paused' }).waitFor();
    const paused = model.requests.length;
    await composer.fill('@DM is anyone there?');
    await composer.press('Enter');
    await chatLine(owner, '@DM is anyone there?').waitFor();
    // The runner looks for work every 250 ms: over six of its rounds a
    // paused narrator must not call the model.
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(model.requests.length, paused, 'a paused narrator called the model');
    assert.equal(await status.getByTestId('narrator-state').getAttribute('data-state'), 'paused');

    // --- Resume: the step answers what came in while it was paused, its
    // narration streaming into both feeds as it is written (the model holds
    // after its first words), then posted in its place
    const held = model.push({ text: LATER, hold: true });
    await button(status, 'Resume').click();
    for (const page of [owner, friend]) {
      await page.getByTestId('narrator-draft').filter({ hasText: /^DM\s*writing…\s*The stranger$/ }).waitFor();
      await page.locator('[data-testid="narrator-state"][data-state="writing"]').first().waitFor();
    }
    assert.equal(await chatLine(friend, LATER).count(), 0, 'not posted while it is written');
    await shoot(friend, 'narrator-writing', PHONE);
    held.release();
    for (const page of [owner, friend]) {
      await chatLine(page, LATER).waitFor();
      await page.getByTestId('narrator-draft').waitFor({ state: 'detached' });
    }
    assert.equal(model.requests.length, paused + 1);
    const lastPrompt = JSON.stringify(model.requests.at(-1).messages);
    assert.match(lastPrompt, /is anyone there\?/, 'the resumed step read the message sent while paused');

    // --- the model fails: the narrator is stuck, the owner reads why and retries
    model.push({ status: 503 });
    await composer.fill('@DM hello?');
    await composer.press('Enter');
    await status.locator('[data-testid="narrator-state"][data-state="stuck"]').waitFor();
    const stuckCode = await status.getByTestId('narrator-error').getAttribute('data-code');
    assert.equal(stuckCode, 'provider_unavailable');
    await status.getByTestId('narrator-error').filter({ hasText: errorsEn.provider_unavailable }).waitFor();
    await status.getByTestId('narrator-error').getByRole('link', { name: 'Open the model settings' }).waitFor();
    await friendStatus.locator('[data-testid="narrator-state"][data-state="stuck"]').filter({ hasText: 'stuck' }).waitFor();
    assert.equal(await friendStatus.getByTestId('narrator-error').count(), 0, 'the table reads "stuck", not the owner’s error');
    await chatLine(friend, 'The narrator is stuck (provider_unavailable). Whoever runs the table can press Retry.').waitFor();
    assert.equal(await button(status, 'Act now').count(), 0, 'a stuck narrator’s Act now reads Retry');
    await shoot(owner, 'narrator-stuck', DESKTOP);
    model.push({ text: RETRIED });
    await button(status, 'Retry').click();
    for (const page of [owner, friend]) await chatLine(page, RETRIED).waitFor();
    await status.locator('[data-testid="narrator-state"][data-state="idle"]').waitFor();

    // --- Take back: Olga becomes the DM, with the DM composer
    await waitText(owner.getByTestId('my-role'), 'Spectator');
    await button(status, 'Take back the DM seat').click();
    await waitText(owner.getByTestId('my-role'), 'DM');
    await owner.getByPlaceholder('Narrate, or / for commands').waitFor();
    await owner.getByTestId('narrator-panel').waitFor({ state: 'detached' });
    await friend.getByTestId('narrator-panel').waitFor({ state: 'detached' });
    assert.deepEqual(await api(owner, 'GET', `/api/rooms/${room.id}/narrators`), []);
    assert.equal(model.unexpected, 0);
    assert.deepEqual(pageErrors, []);
  });

  test('a player lets the narrator play their character from the room page, directs it and takes the seat back', async () => {
    const dana = await person('Dana');
    const ann = await person('Ann');
    await ann.setViewportSize(PHONE);
    const { room, seats, sessionId } = await setUpTable({
      dm: { page: dana, name: 'Dana' },
      players: [{ page: ann, name: 'Ann', seat: 'Seat A', character: character('Aria') }],
      room: 'Companion room',
      campaign: 'Night Road',
      start: true,
    });
    await api(ann, 'PUT', '/api/solo/settings', {
      base_url: model.url,
      model: 'fake',
      context_budget: 8000,
      max_output_tokens: 600,
      temperature: 0.8,
      top_p: 0.95,
    });

    // --- the room page, in play: Ann's own seat offers the narrator; the DM gets no DM-seat choice mid-session
    await at(ann, `rooms/${room.id}`);
    const row = ann.locator(`[data-testid="seat"][data-seat-id="${seats['Seat A']}"]`);
    await button(row, 'Let the narrator play my character').click();
    await row.getByTestId('narrator-model').filter({ hasText: 'fake at 127.0.0.1' }).waitFor();
    await shoot(ann, 'narrator-room-own', PHONE);
    await button(row, 'Hand my seat to the narrator').click();
    await row.getByTestId('seat-controller').filter({ hasText: 'Adventure Table’s narrator' }).waitFor();
    await at(dana, `rooms/${room.id}`);
    await dana.getByTestId('dm-ai').waitFor();
    assert.equal(await dana.getByTestId('dm-narrator-choice').count(), 0, 'the DM seat’s controller cannot change in play');

    // --- the session page: Ann directs her narrator; Act now makes it speak as Aria
    await at(ann, `sessions/${sessionId}`);
    await at(dana, `sessions/${sessionId}`);
    const status = ann.getByTestId('narrator-status');
    await status.getByRole('heading', { name: 'Narrator playing Aria' }).waitFor();
    assert.equal(await status.getByTestId('narrator-tokens').count(), 0, 'costs are the owner’s');
    const line = 'Aria keeps one hand on her sword and watches the road.';
    model.push({ text: line });
    const before = model.requests.length;
    await button(status, 'Act now').click();
    for (const page of [ann, dana]) await chatLine(page, line).waitFor();
    assert.equal(model.requests.length, before + 1);
    assert.match(model.requests.at(-1).messages[0].content, /You play one player character/);
    // Dana runs the room: she sees its state and tokens
    await dana.getByTestId('narrator-status').getByTestId('narrator-tokens').filter({ hasText: /^Steps this session: 1 · tokens / }).waitFor();

    // --- Ann takes her seat back
    await button(status, 'Take back control').click();
    await ann.getByTestId('narrator-panel').waitFor({ state: 'detached' });
    await ann.getByPlaceholder('Type a message, or / for commands').waitFor();
    await waitText(ann.getByTestId('my-role'), 'Player', { state: 'attached' });
    assert.equal(model.unexpected, 0);
    assert.deepEqual(pageErrors, []);
  });
});
