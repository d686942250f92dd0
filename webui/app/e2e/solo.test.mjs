// The solo journey against the real server binary; the only fake is the
// language model (fake-model.mjs). One player points the narrator settings at
// the fake, writes a scenario with an hp stat, plays three turns, retries the
// third and pages between its takes, forks at the second and moves between the
// two branches, then stops a reply mid-stream (the partial take is kept,
// marked stopped) and retries it. A second player writes a scenario with user scripts (an input
// script that rewrites the player's text and logs, an output script that
// appends to the reply), plays one turn and reads the script console. A third
// keeps a promise in the memory bank: pins it, sees a prompt carry it, then
// unpins and forgets it and sees the next prompt go without it. A fourth
// asks for a reasoning effort, adds a story card in play, edits it at phone
// size and sets it aside, and each time the next request the model gets
// follows (with the token counter and the context-fill bar under the box).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FAKE_MEMORY } from './fake-model.mjs';
import { chromiumOrSkip, eventually, skipLine, styleElements } from './harness.mjs';
import { exactly, soloJourney } from './solo-setup.mjs';

const haveChromium = chromiumOrSkip();

const MINUS = '\u2212';

describe('solo journey', { skip: !haveChromium && skipLine() }, () => {
  const j = soloJourney();
  const { at, button, label, node, stateLine, newPlayer, pageErrors } = j;
  const waitState = (page, text) => stateLine(page).filter({ hasText: exactly(text) }).waitFor();

  const { pointAtModel } = j;

  // play sends one Do action; reply is queued on the fake model first.
  async function play(page, action, reply) {
    const gate = j.model.push(reply);
    await page.getByPlaceholder('What do you do?').fill(action);
    await button(page, 'Send').click();
    return gate;
  }

  test('write a scenario, play three turns, retry and page takes, fork and switch branches', async () => {
    const page = await newPlayer();

    // --- the narrator settings point at the fake model; the key stays write-only
    await at(page, 'solo');
    await page.getByTestId('scenarios-empty').waitFor();
    const settings = page.getByTestId('provider-settings');
    await label(settings, 'Base URL').fill(j.model.url);
    await label(settings, 'Model').fill('fake');
    await label(settings, 'API key').fill('sk-e2e-secret');
    await button(settings, 'Save narrator settings').click();
    await settings.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await settings.getByTestId('api-key-state').filter({ hasText: 'A key is stored.' }).waitFor();
    assert.equal(await label(settings, 'API key').inputValue(), '');
    await page.reload();
    assert.equal(await label(settings, 'Base URL').inputValue(), j.model.url);
    assert.equal(await label(settings, 'Model').inputValue(), 'fake');
    assert.equal(await label(settings, 'API key').inputValue(), '');
    assert.ok(!(await page.content()).includes('sk-e2e-secret'), 'the stored key is never in the page');

    // --- a scenario with an hp stat, its bands and an opening
    await page.getByRole('link', { name: 'New scenario', exact: true }).click();
    await page.waitForURL(/\/solo\/scenarios\/new$/);
    await label(page, 'Title').fill('The Old Mill');
    await label(page, 'Premise').fill('An abandoned mill on a stormy night. The player explores it alone.');
    await label(page, 'Opening').fill('The mill wheel creaks in the dark.');
    await button(page, 'Add stat').click();
    const stat = page.getByTestId('stat-row');
    await label(stat, 'Path').fill('player.hp');
    await label(stat, 'Min').fill('0');
    await label(stat, 'Max').fill('100');
    await label(stat, 'Initial').fill('100');
    const bands = [
      ['0', '30', 'badly hurt'],
      ['30', '70', 'wounded'],
      ['70', '100', 'healthy'],
    ];
    for (const [i, [lo, hi, name]] of bands.entries()) {
      await button(stat, 'Add band').click();
      const row = stat.getByTestId('band-row').nth(i);
      await label(row, 'From').fill(lo);
      await label(row, 'To').fill(hi);
      await label(row, 'Label').fill(name);
    }
    await button(page, 'Save scenario').click();
    await page.waitForURL(/\/solo\/scenarios\/\d+$/);
    await page.getByRole('heading', { level: 1, name: 'The Old Mill' }).waitFor();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();

    // --- Play: who am I, then the adventure opens on its opening
    await button(page, 'Play').click();
    const dialog = page.getByRole('dialog');
    await label(dialog, 'Your character’s name').fill('Ann');
    await label(dialog, 'Pronouns').fill('she/her');
    await button(dialog, 'Start adventure').click();
    await page.waitForURL(/\/solo\/adventures\/\d+$/);
    await node(page, 'The mill wheel creaks in the dark.').waitFor();
    await waitState(page, 'hp 100/100 (healthy)');

    // --- turn 1: the narration streams in (held after its first piece), then lands with its chip
    const turn1 = 'You step inside. A loose beam falls and grazes your shoulder.';
    const gate = await play(page, 'I step inside', {
      text: turn1,
      state: { 'player.hp': -15 },
      reasoning: ['The player enters; ', 'a beam should fall.'],
      hold: true,
    });
    const live = page.getByTestId('live-turn');
    await live.getByTestId('live-text').filter({ hasText: /^You step/ }).waitFor();
    await live.getByTestId('live-player').filter({ hasText: 'I step inside' }).waitFor();
    await live.getByText('Reasoning', { exact: true }).waitFor();
    assert.equal(await page.getByPlaceholder('What do you do?').isDisabled(), true, 'the box is locked while the turn streams');
    assert.notEqual(await live.getByTestId('live-text').textContent(), turn1, 'the narration is still arriving');
    gate.release();
    await node(page, turn1).getByTestId('stat-chip').filter({ hasText: exactly(`hp ${MINUS}15`) }).waitFor();
    await waitState(page, 'hp 85/100 (healthy)');
    await live.waitFor({ state: 'detached' });
    assert.ok(!(await page.getByTestId('story').textContent()).includes('```'), 'the state block is never shown');
    assert.equal(await page.getByPlaceholder('What do you do?').isDisabled(), false);
    assert.equal(j.model.requests[0].model, 'fake');
    assert.equal(j.model.requests[0].stream, true);

    // the stats bar is part of the page's flow, so it never covers story
    // text scrolling under it
    assert.equal(await stateLine(page).evaluate((el) => getComputedStyle(el.closest('.state-line')).position), 'static');
    // a turn's actions wait in its ⋯ menu: hidden until the turn is hovered or
    // the menu has focus; the arrow keys walk it, Escape closes it back to ⋯
    const items = node(page, turn1).locator('.turn-menu-items');
    await page.mouse.move(0, 0);
    assert.equal(await items.evaluate((el) => getComputedStyle(el).opacity), '0');
    await node(page, turn1).hover();
    assert.equal(await items.evaluate((el) => getComputedStyle(el).opacity), '1');
    await page.mouse.move(0, 0);
    const toggle = node(page, turn1).getByRole('button', { name: /^Actions for this turn/ });
    await toggle.focus();
    await page.keyboard.press('ArrowDown');
    assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
    assert.match(await page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? ''), /^Fork a new branch here/);
    assert.equal(await items.evaluate((el) => getComputedStyle(el).opacity), '1');
    await page.keyboard.press('ArrowDown');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Insights');
    await page.keyboard.press('Escape');
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
    assert.equal(await toggle.evaluate((el) => el === document.activeElement), true);
    // the shortcuts popover lists the keys
    await page.getByRole('button', { name: /^Shortcuts/ }).click();
    await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).getByText('Retry the last turn').waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor({ state: 'detached' });

    // the Insights drawer shows the exact prompt of that narration
    await button(node(page, turn1), 'Insights').click();
    const drawer = page.getByRole('dialog', { name: 'Insights' });
    await drawer.getByRole('heading', { name: 'Context breakdown' }).waitFor();
    await drawer.locator('pre', { hasText: 'I step inside' }).first().waitFor();
    // a modal drawer: the focus is in it and Tab keeps it there (the page is inert)
    const inDrawer = () => drawer.evaluate((el) => el.contains(document.activeElement));
    assert.ok(await inDrawer(), 'the drawer takes the focus');
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press('Tab');
      assert.ok(await inDrawer(), `Tab ${i + 1} stays in the drawer`);
    }
    // a press beside it closes it, and the focus goes back to the turn's Insights
    await page.mouse.click(20, 300);
    await drawer.waitFor({ state: 'detached' });
    assert.equal(await button(node(page, turn1), 'Insights').evaluate((el) => el === document.activeElement), true, 'focus back on Insights');

    // --- turns 2 and 3
    const turn2 = 'The stairs groan under you and a nail scratches your leg.';
    await play(page, 'I climb the stairs', { text: turn2, state: { 'player.hp': -10 } });
    await node(page, turn2).getByTestId('stat-chip').filter({ hasText: exactly(`hp ${MINUS}10`) }).waitFor();
    await waitState(page, 'hp 75/100 (healthy)');

    const turn3a = 'Rats pour out of the trapdoor and bite your hands.';
    await play(page, 'I open the trapdoor', { text: turn3a, state: { 'player.hp': -20 } });
    await node(page, turn3a).getByTestId('stat-chip').filter({ hasText: exactly(`hp ${MINUS}20`) }).waitFor();
    await waitState(page, 'hp 55/100 (wounded)');
    assert.equal(await page.getByTestId('take-pager').count(), 0, 'no pager while every turn has one take');

    // --- retry turn 3: a second take, then page back to the first
    const turn3b = 'Thick smoke billows out of the trapdoor; you cough and stagger back.';
    j.model.push({ text: turn3b, state: { 'player.hp': -50 } });
    await button(page, 'Retry').click();
    await node(page, turn3b).waitFor();
    await waitState(page, 'hp 25/100 (badly hurt)');
    const pager3 = node(page, turn3b).getByTestId('take-pager');
    await pager3.filter({ hasText: exactly('2/2') }).waitFor();
    assert.equal(await node(page, turn3a).count(), 0, 'the retried take steps aside');

    await button(node(page, turn3b), 'Previous take').click();
    await node(page, turn3a).getByTestId('take-pager').filter({ hasText: exactly('1/2') }).waitFor();
    assert.equal(await node(page, turn3b).count(), 0);
    await waitState(page, 'hp 55/100 (wounded)');
    const mainLine = await stateLine(page).textContent();

    // --- fork at turn 2: a new branch whose story ends there
    const branches = page.getByTestId('branch');
    await eventually(async () => assert.equal(await branches.count(), 1));
    await node(page, turn2).getByRole('button', { name: /^Fork a new branch here/ }).click();
    await node(page, turn3a).waitFor({ state: 'detached' });
    await node(page, turn2).waitFor();
    await waitState(page, 'hp 75/100 (healthy)');
    await eventually(async () => assert.equal(await branches.count(), 2));
    const current = page.locator('[data-testid="branch"][aria-current="true"]');
    await eventually(async () => assert.equal(await current.count(), 1));
    await current.getByText('Current', { exact: true }).waitFor();

    // a turn of its own on the new branch
    const forkTurn = 'You leap from the window and land in the mud, bruised.';
    await play(page, 'I jump out of the window', { text: forkTurn, state: { 'player.hp': -1 } });
    await node(page, forkTurn).getByTestId('stat-chip').filter({ hasText: exactly(`hp ${MINUS}1`) }).waitFor();
    await waitState(page, 'hp 74/100 (healthy)');

    // --- switch back to the main line: its story and its stats come back
    const other = page.locator('[data-testid="branch"]:not([aria-current="true"])');
    await other.getByRole('button', { name: /^Switch to / }).click();
    await node(page, turn3a).waitFor();
    await stateLine(page).filter({ hasText: exactly(mainLine) }).waitFor();
    assert.equal(await node(page, forkTurn).count(), 0);

    // --- and to the fork again
    await other.getByRole('button', { name: /^Switch to / }).click();
    await node(page, forkTurn).waitFor();
    await waitState(page, 'hp 74/100 (healthy)');
    assert.equal(await node(page, turn3a).count(), 0);

    // --- Stop while the narrator streams: the text so far is kept as a
    // take marked stopped, the stats stay, Retry writes a new take beside it
    const held = await play(page, 'I search the mud', {
      text: 'Your fingers close on a cold iron key.',
      state: { 'player.hp': -30 },
      hold: true,
    });
    await page.getByTestId('live-text').filter({ hasText: /^Your fingers/ }).waitFor();
    await page.getByRole('button', { name: 'Stop the narrator (the text so far is kept)' }).click();
    const stoppedTake = node(page, 'Your fingers');
    await stoppedTake.getByTestId('stopped-take').filter({ hasText: /^Stopped/ }).waitFor();
    held.release();
    assert.equal(await stoppedTake.getAttribute('data-stopped'), 'true');
    await waitState(page, 'hp 74/100 (healthy)');
    await button(page, 'Send').waitFor();
    const retried = 'The mud gives up nothing but a broken buckle.';
    j.model.push({ text: retried });
    await stoppedTake.getByRole('button', { name: 'Retry this take', exact: true }).click();
    await node(page, retried).getByTestId('take-pager').filter({ hasText: exactly('2/2') }).waitFor();
    await button(node(page, retried), 'Previous take').click();
    await node(page, 'Your fingers').getByTestId('stopped-take').waitFor();

    // --- a failed turn says the truth: the action is kept, waiting for
    // narration, with Retry and Undo at it; Retry narrates it
    await play(page, 'I dig deeper', { status: 503 });
    const failed = page.getByRole('alert').filter({ hasText: 'Your action is kept and waits for narration' });
    await failed.waitFor();
    const waiting = page.locator('[data-testid="story-node"][data-waiting="true"]');
    await waiting.getByTestId('node-text').filter({ hasText: exactly('I dig deeper') }).waitFor();
    await waiting.getByText('Waiting for narration', { exact: true }).waitFor();
    const dug = 'Beneath the mud lies a flat stone with a ring in it.';
    j.model.push({ text: dug });
    await waiting.getByRole('button', { name: 'Retry this action', exact: true }).click();
    await node(page, dug).waitFor();
    await failed.waitFor({ state: 'detached' });
    assert.equal(await waiting.count(), 0, 'the narrated action no longer waits');

    assert.equal(j.model.unexpected, 0, 'every model request had a scripted reply');
    assert.equal(j.model.queued, 0, 'every scripted reply was used');
    assert.deepEqual(pageErrors, [], 'uncaught errors in the page');
  });

  test('scenario scripts rewrite the player’s text and the reply, and log to the script console', async () => {
    const page = await newPlayer();
    await pointAtModel(page);

    // --- a scenario with an input and an output script (no stats: the reply has no state block)
    await page.getByRole('link', { name: 'New scenario', exact: true }).click();
    await page.waitForURL(/\/solo\/scenarios\/new$/);
    await label(page, 'Title').fill('The Cave');
    await label(page, 'Premise').fill('A dark cave in the hills. A monster guards the way in.');
    await label(page, 'Opening').fill('Something moves at the back of the cave.');
    const inputScript =
      "const modifier = (text) => { state.count = (state.count || 0) + 1; log('turn', state.count); return { text: text.replace('goblin', 'dragon') } }\nmodifier(text)";
    const outputScript = "const modifier = (text) => ({ text: text + ' (scripted)' })\nmodifier(text)";
    const tabs = page.getByRole('tablist', { name: 'Script hooks' });
    await tabs.getByRole('tab', { name: 'Input', exact: true }).click();
    await page.getByRole('tabpanel', { name: 'Input', exact: true }).getByLabel('Input script', { exact: true }).fill(inputScript);
    await tabs.getByRole('tab', { name: 'Output', exact: true }).click();
    await page.getByRole('tabpanel', { name: 'Output', exact: true }).getByLabel('Output script', { exact: true }).fill(outputScript);
    await button(page, 'Save scenario').click();
    await page.waitForURL(/\/solo\/scenarios\/\d+$/);
    await page.getByRole('heading', { level: 1, name: 'The Cave' }).waitFor();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();

    // the stored scripts come back into their tabs
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'The Cave' }).waitFor();
    // (each is a code editor: its text is its lines')
    const code = (name) =>
      label(page, name).evaluate((el) => [...el.querySelectorAll('.cm-line')].map((l) => l.textContent).join('\n'));
    assert.equal(await code('Input script'), inputScript);
    assert.equal(await code('Output script'), outputScript);
    assert.equal(await code('Library script'), '');
    assert.equal(await code('Context script'), '');

    await button(page, 'Play').click();
    const dialog = page.getByRole('dialog');
    await label(dialog, 'Your character’s name').fill('Bo');
    await button(dialog, 'Start adventure').click();
    await page.waitForURL(/\/solo\/adventures\/\d+$/);
    await node(page, 'Something moves at the back of the cave.').waitFor();

    // --- one turn: the input script turns the goblin into a dragon, the output script signs the reply
    const before = j.model.requests.length;
    const reply = 'The beast rears up and roars; you raise your sword.';
    await play(page, 'I fight the goblin', { text: reply });
    const narrated = `${reply} (scripted)`;
    await node(page, narrated).waitFor();
    assert.equal(j.model.requests.length, before + 1, 'one model request for the turn');
    // the player's line (however the prompt words it: "I fight…", "You fight…")
    const lines = j.model.requests[before].messages
      .flatMap((m) => String(m.content).split('\n'))
      .filter((l) => /fight the/i.test(l));
    assert.ok(lines.length > 0, 'the prompt holds the player’s line');
    for (const l of lines) {
      assert.ok(l.includes('dragon'), `the player’s line was rewritten: ${l}`);
      assert.ok(!l.includes('goblin'), `the player’s line still says goblin: ${l}`);
    }

    // the stored narration is the scripted one
    await page.reload();
    await node(page, narrated).waitFor();
    const texts = await page.getByTestId('node-text').allTextContents();
    assert.ok(texts.at(-1).trim().endsWith('(scripted)'), `the newest narration ends with (scripted): ${texts.at(-1)}`);

    // --- the script console shows the input script's log line (React
    // Aria's menu and modal drawer add no <style>: the CSP would refuse it)
    const styles = await styleElements(page);
    assert.equal(styles, 0, 'no <style> on the page as it loads');
    await button(page, 'More actions').click();
    await page.getByRole('menuitem', { name: 'Script console', exact: true }).click();
    const consoleDrawer = page.getByRole('dialog', { name: 'Script console' });
    await consoleDrawer.getByTestId('console-entries').waitFor();
    const logLine = consoleDrawer.locator('[data-testid="console-entry"][data-level="log"]').filter({ hasText: 'turn' });
    await logLine.first().waitFor();
    assert.equal(await logLine.count(), 1, 'one log line for one turn');
    assert.equal(await logLine.getAttribute('data-hook'), 'input');
    const logged = await logLine.getByTestId('console-text').textContent();
    // log() shows a string as it is and other values as JSON: turn 1
    assert.equal(logged.trim(), 'turn 1');
    await button(consoleDrawer, 'Close').click();
    await consoleDrawer.waitFor({ state: 'detached' });
    assert.equal(await styleElements(page), styles, 'no <style> added by the menu or the drawer');

    assert.equal(j.model.unexpected, 0, 'every model request had a scripted reply');
    assert.equal(j.model.queued, 0, 'every scripted reply was used');
    assert.deepEqual(pageErrors, [], 'uncaught errors in the page');
  });

  test('the memory bank: a pinned memory is carried, a forgotten one is not; the panel fits a phone', async () => {
    const page = await newPlayer();
    await pointAtModel(page);

    // --- a scenario, and one turn of it
    await page.getByRole('link', { name: 'New scenario', exact: true }).click();
    await page.waitForURL(/\/solo\/scenarios\/new$/);
    await label(page, 'Title').fill('The Gilded Goose');
    await label(page, 'Premise').fill('A roadside inn on a rainy night. Bram the innkeeper knows every traveller.');
    const opening = 'Rain drums on the roof of the Gilded Goose.';
    await label(page, 'Opening').fill(opening);
    await button(page, 'Save scenario').click();
    await page.waitForURL(/\/solo\/scenarios\/\d+$/);
    await page.getByRole('heading', { level: 1, name: 'The Gilded Goose' }).waitFor();
    await button(page, 'Play').click();
    const dialog = page.getByRole('dialog');
    await label(dialog, 'Your character’s name').fill('Mara');
    await button(dialog, 'Start adventure').click();
    await page.waitForURL(/\/solo\/adventures\/\d+$/);
    await node(page, opening).waitFor();

    const turn1 = 'Bram the innkeeper wipes a mug and nods at the door.';
    await play(page, 'I greet the innkeeper', { text: turn1 });
    await node(page, turn1).waitFor();

    // --- the Memory drawer opens from the keyboard: nothing in the bank yet
    // (in the overflow menu, which ArrowDown opens at its first item)
    await button(page, 'More actions').focus();
    await page.keyboard.press('ArrowDown');
    const focused = () => page.evaluate(() => document.activeElement?.textContent);
    await eventually(async () => assert.equal(await focused(), 'Insights of the last reply'));
    await page.keyboard.press('ArrowDown');
    assert.equal(await focused(), 'Memory');
    const memoryButton = page.getByRole('menuitem', { name: 'Memory', exact: true });
    await page.keyboard.press('Enter');
    const panel = page.getByRole('dialog', { name: 'Memory' });
    await panel.getByTestId('memory-empty').waitFor();
    await panel.getByTestId('memory-recall').filter({ hasText: exactly('Recall: built-in lexical (BM25)') }).waitFor();
    await panel.getByTestId('memory-limits').filter({ hasText: 'Up to 5 memories per turn' }).waitFor();
    assert.equal(await button(panel, 'Close').evaluate((el) => el === document.activeElement), true, 'focus moves into the drawer');

    // --- add a memory by hand, then pin it
    const promise = 'Mara promised Bram the innkeeper she would return to the Gilded Goose';
    await label(panel, 'New memory').fill(promise);
    await button(panel, 'Add memory').click();
    const memory = panel
      .getByTestId('memory')
      .filter({ has: page.getByTestId('memory-text').filter({ hasText: exactly(promise) }) });
    await memory.waitFor();
    assert.equal(await label(panel, 'New memory').inputValue(), '', 'the form empties once the memory is stored');
    await memory.getByText('By hand', { exact: true }).waitFor();
    assert.equal(await memory.getAttribute('data-pinned'), 'false');
    await button(memory, 'Pin').click();
    await button(memory, 'Unpin').waitFor();
    await memory.getByText('Pinned', { exact: true }).waitFor();
    assert.equal(await memory.getAttribute('data-pinned'), 'true');

    // --- at 390×844 the drawer fits: no horizontal scroll, in the page or in the drawer
    await page.setViewportSize({ width: 390, height: 844 });
    await eventually(async () => {
      const fits = await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
      assert.equal(fits, true, 'the page scrolls sideways at 390×844');
      assert.equal(await panel.evaluate((el) => el.scrollWidth <= el.clientWidth), true, 'the drawer scrolls sideways at 390×844');
    });
    await page.setViewportSize({ width: 1300, height: 1000 });

    // Escape closes the drawer and gives the focus back to the menu it came from
    await button(panel, 'Close').focus();
    await page.keyboard.press('Escape');
    await panel.waitFor({ state: 'detached' });
    assert.equal(
      await button(page, 'More actions').evaluate((el) => el === document.activeElement),
      true,
      'focus returns to the overflow menu that held the Memory button',
    );

    // --- the next prompt carries the pinned memory
    const turn2 = 'Bram pours a cup of cider and slides it across the bar.';
    await play(page, 'I ask Bram for a drink', { text: turn2 });
    await node(page, turn2).waitFor();
    const sent = j.model.requests.at(-1).messages.map((m) => String(m.content)).join('\n');
    assert.ok(sent.includes(promise), 'the prompt of turn 2 holds the pinned memory');

    await button(node(page, turn2), 'Insights').click();
    let insights = page.getByRole('dialog', { name: 'Insights' });
    const carried = insights.getByTestId('insight-memory').filter({ hasText: promise });
    await carried.waitFor();
    assert.equal(await carried.getAttribute('data-scorer'), 'pinned');
    await carried.getByTestId('insight-memory-scorer').filter({ hasText: exactly('Pinned') }).waitFor();
    assert.match(await carried.getByTestId('insight-memory-score').textContent(), /^-?\d+\.\d\d$/);
    await button(insights, 'Close').click();
    await insights.waitFor({ state: 'detached' });

    // --- back in Memory: it was used; unpin it and forget it
    await button(page, 'More actions').click();
    await memoryButton.click();
    await memory.getByText('Used last turn', { exact: true }).waitFor();
    await button(memory, 'Unpin').click();
    await button(memory, 'Pin').waitFor();
    await button(memory, 'Forget').click();
    await button(memory, 'Un-forget').waitFor();
    await memory.getByText('Forgotten', { exact: true }).waitFor();
    assert.equal(await memory.getAttribute('data-forgotten'), 'true');
    assert.equal(await memory.getAttribute('data-pinned'), 'false');
    assert.match(await memory.getAttribute('class'), /\bis-forgotten\b/);
    await button(panel, 'Close').click();
    await panel.waitFor({ state: 'detached' });

    // --- the next prompt goes without it
    const turn3 = 'Bram laughs and tells a story about the old mill.';
    await play(page, 'I tell Bram a joke', { text: turn3 });
    await node(page, turn3).waitFor();
    const sent3 = j.model.requests.at(-1).messages.map((m) => String(m.content)).join('\n');
    assert.ok(!sent3.includes(promise), 'the prompt of turn 3 does not hold the forgotten memory');
    await button(node(page, turn3), 'Insights').click();
    insights = page.getByRole('dialog', { name: 'Insights' });
    await insights.getByTestId('insights-no-memories').filter({ hasText: 'No memory was relevant.' }).waitFor();
    assert.equal(await insights.getByTestId('insight-memory').count(), 0);
    await button(insights, 'Close').click();
    await insights.waitFor({ state: 'detached' });

    // --- seven steps close the first block: the bank writes its memory in the background
    await button(page, 'More actions').click();
    await memoryButton.click();
    const written = panel.locator('[data-testid="memory"][data-kind="block"]');
    await written.filter({ hasText: FAKE_MEMORY }).waitFor();
    await written.getByTestId('memory-where').filter({ hasText: exactly('Turns 0–5') }).waitFor();
    await written.getByText('Bank', { exact: true }).waitFor();
    await memory.getByText('Forgotten', { exact: true }).waitFor();
    assert.ok(j.model.memoryRequests.length >= 1, 'the bank asked the model for the memory');

    assert.equal(j.model.unexpected, 0, 'every model request had a scripted reply');
    assert.equal(j.model.queued, 0, 'every scripted reply was used');
    assert.deepEqual(pageErrors, [], 'uncaught errors in the page');
  });

  test('story cards in play: add, edit and set aside a card and see the next prompt follow; counter, fill bar and reasoning; desktop and phone', async () => {
    const page = await newPlayer();
    await pointAtModel(page);
    // --- the narrator settings ask for a reasoning effort
    const settings = page.getByTestId('provider-settings');
    await settings.getByText('Advanced', { exact: true }).click();
    await label(settings, 'Reasoning effort').selectOption('medium');
    await button(settings, 'Save narrator settings').click();
    await settings.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();

    await page.getByRole('link', { name: 'New scenario', exact: true }).click();
    await page.waitForURL(/\/solo\/scenarios\/new$/);
    await label(page, 'Title').fill('The Silver Key');
    await label(page, 'Premise').fill('A harbour town at dusk.');
    const opening = 'Gulls circle over the harbour of Saltmere.';
    await label(page, 'Opening').fill(opening);
    await button(page, 'Save scenario').click();
    await page.waitForURL(/\/solo\/scenarios\/\d+$/);
    await button(page, 'Play').click();
    const dialog = page.getByRole('dialog');
    await label(dialog, 'Your character’s name').fill('Ilse');
    await button(dialog, 'Start adventure').click();
    await page.waitForURL(/\/solo\/adventures\/\d+$/);
    await node(page, opening).waitFor();

    // --- the counter under the box: an estimate, marked ≈; no prompt built yet
    const meter = page.getByTestId('token-meter');
    await meter.getByTestId('context-fill').filter({ hasText: 'No prompt has been built on this line yet.' }).waitFor();
    await page.getByPlaceholder('What do you do?').fill('I ask the harbourmaster about the silver key');
    await meter.getByTestId('token-count').filter({ hasText: /^≈ \d+ tokens$/ }).waitFor();

    // --- add a card in play
    const controls = page.getByRole('group', { name: 'Turn controls' });
    await button(controls, 'More actions').click();
    await page.getByRole('menuitem', { name: 'Story cards', exact: true }).click();
    const panel = page.getByRole('dialog', { name: 'Story cards' });
    await panel.getByTestId('lore-count').filter({ hasText: '0 of at most 500 cards' }).waitFor();
    const add = panel.getByTestId('lore-add');
    await label(add, 'Title').fill('Harbourmaster');
    await label(add, 'Keys').fill('harbourmaster, Oskar');
    const entry1 = 'Oskar the harbourmaster keeps the silver key on a chain.';
    await label(add, 'Entry').fill(entry1);
    await button(add, 'Add card').click();
    const card = panel.getByTestId('lore-card').filter({ hasText: 'Harbourmaster' });
    await card.getByText('Yours', { exact: true }).waitFor();
    await button(panel, 'Close').click();
    await panel.waitFor({ state: 'detached' });

    const prompt = () => j.model.requests.at(-1).messages.map((m) => String(m.content)).join('\n');
    const reply1 = 'The harbourmaster squints at you.';
    await play(page, 'I ask the harbourmaster about the silver key', { text: reply1 });
    await node(page, reply1).waitFor();
    assert.ok(prompt().includes(entry1), 'the card added in play is in the next prompt');
    assert.equal(j.model.requests.at(-1).reasoning_effort, 'medium', 'the reasoning effort reached the request');
    await meter.getByTestId('context-fill-value').filter({ hasText: /^\d+ of 8000 tokens \(\d+%\)$/ }).waitFor();

    // --- at 390×844: the drawer fits, the card says it was in the last prompt; edit it there
    await page.setViewportSize({ width: 390, height: 844 });
    await button(controls, 'More actions').click();
    await page.getByRole('menuitem', { name: 'Story cards', exact: true }).click();
    await card.getByTestId('lore-used').filter({ hasText: 'In the last prompt named by “harbourmaster”' }).waitFor();
    await eventually(async () => {
      assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), true, 'the page scrolls sideways at 390×844');
      assert.equal(await panel.evaluate((el) => el.scrollWidth <= el.clientWidth), true, 'the drawer scrolls sideways at 390×844');
    });
    await button(card, 'Edit').click();
    const edit = card.getByTestId('lore-edit');
    const entry2 = 'Oskar the harbourmaster lost the silver key at cards last night.';
    await label(edit, 'Entry').fill(entry2);
    await button(edit, 'Save').click();
    await card.getByText(entry2, { exact: true }).waitFor();
    await button(panel, 'Close').click();
    await panel.waitFor({ state: 'detached' });
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), true, 'the play screen scrolls sideways at 390×844');

    const reply2 = 'Oskar sighs and looks at his boots.';
    await play(page, 'I ask Oskar where the key is', { text: reply2 });
    await node(page, reply2).waitFor();
    assert.ok(prompt().includes(entry2) && !prompt().includes(entry1), 'the edited card is in the next prompt, the old text is not');
    await page.setViewportSize({ width: 1300, height: 1000 });

    // --- set it aside: the next prompt goes without it, though its key is named
    await button(controls, 'More actions').click();
    await page.getByRole('menuitem', { name: 'Story cards', exact: true }).click();
    await button(card, 'Set aside').click();
    await button(card, 'Bring back').waitFor();
    assert.equal(await card.getAttribute('data-enabled'), 'false');
    await button(panel, 'Close').click();
    const reply3 = 'The harbour is quiet.';
    await play(page, 'I wave at the harbourmaster', { text: reply3 });
    await node(page, reply3).waitFor();
    assert.ok(!prompt().includes('silver key at cards'), 'a card set aside never enters the prompt');

    assert.equal(j.model.unexpected, 0, 'every model request had a scripted reply');
    assert.deepEqual(pageErrors, [], 'uncaught errors in the page');
  });
});
