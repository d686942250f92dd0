// The bundle journey against the real server binary; the only fake is the
// language model. A player plays a scenario with a story card and an input
// script that keeps a count in the scripts' state: two turns, a retry of
// the second (two takes), a fork at the first with a turn of its own. They
// export the adventure from the play screen and the scenario from the solo
// page; a second player imports both files from the solo page. The imported
// adventure reads the same on screen (the line, its stats, the other branch
// with its two takes) and its bundle equals the file: tree, every take,
// cards, scripts, stats and the scripts' state.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, test } from 'node:test';
import { chromiumOrSkip, eventually, skipLine } from './harness.mjs';
import { exactly, soloJourney } from './solo-setup.mjs';

const haveChromium = chromiumOrSkip();


const SCENARIO = {
  title: 'The Lighthouse',
  premise: 'A lighthouse keeper on a stormy coast.',
  plot_essentials: 'The lamp must not go out.',
  ai_instructions: '',
  authors_note: 'Tone: salt and wind.',
  opening: 'The lamp flickers at the top of the tower.',
  stat_schema: { 'player.hp': { min: 0, max: 100, initial: 100, bands: [[0, 50, 'hurt'], [50, 100, 'fine']] } },
  cards: [{ title: 'The lamp', keys: ['lamp'], entry: 'An old oil lamp.', type: 'item' }],
  scripts: {
    library: '',
    input: 'const modifier = (text) => { state.turns = (state.turns || 0) + 1; return { text } }\nmodifier(text)',
    context: '',
    output: '',
  },
};

describe('bundle journey', { skip: !haveChromium && skipLine() }, () => {
  const j = soloJourney();
  const { at, button, label, node, stateLine, newPlayer, pageErrors } = j;
  const texts = (page) => page.getByTestId('node-text').allTextContents();

  // The server writes the same bundle for equal adventures: the journey
  // reads both through the API the screen uses.
  const bundleOf = (page, id) =>
    page.evaluate(async (id) => (await fetch(`/api/adventures/${id}/bundle`)).json(), id);
  const adventureId = (page) => Number(/\/solo\/adventures\/(\d+)$/.exec(page.url())[1]);

  async function play(page, action, reply) {
    j.model.push(reply);
    await page.getByPlaceholder('What do you do?').fill(action);
    await button(page, 'Send').click();
    await node(page, reply.text).waitFor();
  }

  // download clicks a button and resolves with the saved file's name and text.
  async function download(page, click) {
    const [file] = await Promise.all([page.waitForEvent('download'), click()]);
    return { name: file.suggestedFilename(), text: await readFile(await file.path(), 'utf8') };
  }

  test('export an adventure and its scenario from the screen, import them as another player', async () => {
    const page = await newPlayer({ width: 1366, height: 768 });
    await j.pointAtModel(page);

    // The scenario is set up through the API (the editor has its own journey).
    const scenario = await page.evaluate(async (body) => {
      const res = await fetch('/api/scenarios', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
      return res.json();
    }, JSON.stringify(SCENARIO));
    await at(page, `solo/scenarios/${scenario.id}`);
    await button(page, 'Play').click();
    const dialog = page.getByRole('dialog');
    await label(dialog, 'Your character’s name').fill('Iris');
    await button(dialog, 'Start adventure').click();
    await page.waitForURL(/\/solo\/adventures\/\d+$/);
    const original = adventureId(page);

    // two turns, a retry of the second, a fork at the first with a turn of its own
    const turn1 = 'You climb the stairs; a step gives way and you scrape your knee.';
    await play(page, 'I climb to the lamp', { text: turn1, state: { 'player.hp': -10 } });
    const turn2a = 'The lamp is dry. You pour oil and burn your fingers.';
    await play(page, 'I fill the lamp', { text: turn2a, state: { 'player.hp': -5 } });
    const turn2b = 'You fill the lamp carefully; it steadies.';
    j.model.push({ text: turn2b });
    await button(page, 'Retry').click();
    await node(page, turn2b).getByTestId('take-pager').filter({ hasText: exactly('2/2') }).waitFor();
    await node(page, turn1).getByRole('button', { name: /^Fork a new branch here/ }).click();
    await node(page, turn2b).waitFor({ state: 'detached' });
    const forkTurn = 'You go down to the shore instead. The waves are high.';
    await play(page, 'I walk to the shore', { text: forkTurn, state: { 'player.hp': 3 } });
    await stateLine(page).filter({ hasText: 'hp 93/100 (fine)' }).waitFor();
    await eventually(async () => assert.equal(await page.getByTestId('branch').count(), 2));
    const line = await texts(page);

    // --- export from the play screen and the scenario from the solo page
    await button(page, 'More actions').click();
    const adventureFile = await download(page, () => page.getByRole('menuitem', { name: 'Export adventure', exact: true }).click());
    assert.equal(adventureFile.name, 'The Lighthouse.adventure.json');
    const bundle = JSON.parse(adventureFile.text);
    assert.equal(bundle.format, 'adventure-table.adventure');
    assert.equal(bundle.version, 1);
    assert.deepEqual(bundle, await bundleOf(page, original), 'the file is the server’s bundle');
    assert.ok(!adventureFile.text.includes('"id"'), 'no database ids in the file');
    await at(page, 'solo');
    const scenarioFile = await download(page, () =>
      button(page.getByTestId('scenario-list'), 'Export The Lighthouse as a file').click(),
    );
    assert.equal(scenarioFile.name, 'The Lighthouse.scenario.json');
    assert.equal(JSON.parse(scenarioFile.text).format, 'adventure-table.scenario');

    // --- another player imports both files from the solo page (phone-sized screen)
    const other = await newPlayer({ width: 390, height: 844 });
    await at(other, 'solo');
    await other.getByTestId('adventures-empty').waitFor();
    const write = async (name, text) => ({ name, mimeType: 'application/json', buffer: Buffer.from(text) });
    await other.getByTestId('adventure-import-file').setInputFiles(await write(adventureFile.name, adventureFile.text));
    const imported = other.getByTestId('adventure-imported');
    await imported.filter({ hasText: 'Imported The Lighthouse as a new adventure.' }).waitFor();
    await other.getByTestId('scenario-import-file').setInputFiles(await write(scenarioFile.name, scenarioFile.text));
    await other.getByTestId('scenario-imported').filter({ hasText: 'Imported The Lighthouse as a new scenario.' }).waitFor();
    assert.equal(
      await other.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
      true,
      'no horizontal scroll on a phone',
    );

    await imported.getByRole('link', { name: 'Open it' }).click();
    await other.waitForURL(/\/solo\/adventures\/\d+$/);
    const copy = adventureId(other);
    assert.notEqual(copy, original);
    await node(other, forkTurn).waitFor();
    assert.deepEqual(await texts(other), line, 'the imported line reads the same');
    await stateLine(other).filter({ hasText: 'hp 93/100 (fine)' }).waitFor();
    assert.deepEqual(await bundleOf(other, copy), bundle, 'tree, takes, cards, scripts and state are the same');

    // the other branch: the retried turn with its two takes, live take second
    const otherBranch = other.locator('[data-testid="branch"]:not([aria-current="true"])');
    await otherBranch.getByRole('button', { name: /^Switch to / }).click();
    await node(other, turn2b).getByTestId('take-pager').filter({ hasText: exactly('2/2') }).waitFor();
    await button(node(other, turn2b), 'Previous take').click();
    await node(other, turn2a).getByTestId('take-pager').filter({ hasText: exactly('1/2') }).waitFor();
    await stateLine(other).filter({ hasText: 'hp 85/100 (fine)' }).waitFor();

    // the first player's adventure is untouched, and the import is not theirs
    assert.deepEqual(await bundleOf(page, original), bundle);
    const status = await page.evaluate(async (id) => (await fetch(`/api/adventures/${id}/bundle`)).status, copy);
    assert.equal(status, 404);
    assert.deepEqual(pageErrors, []);
  });
});
