// The import journey against the real server binary, on a phone-sized
// screen (390×844): a player imports a SillyTavern World Info file, a
// Character Card V2 PNG (the card in its tEXt "chara" chunk), an AI Dungeon
// scenario export and a NovelAI lorebook. Each goes through the preview
// (format, title, counts, what maps and what does not) before anything is
// created; Import opens the new scenario in the editor, and the stored
// scenario holds the cards, the opening and the scripts. A picture without a card is refused
// and creates nothing. Every file is written here (no third-party files).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { deflateSync } from 'node:zlib';
import { chromiumOrSkip, journey, skipLine } from './harness.mjs';

const haveChromium = chromiumOrSkip();

const WORLD_INFO = {
  entries: {
    0: { uid: 0, key: ['Mira', 'smith'], keysecondary: [], comment: 'Mira', content: 'Mira is the village smith.', disable: false },
    1: { uid: 1, key: ['forge'], keysecondary: ['night'], selective: true, selectiveLogic: 3, comment: 'The Forge', content: 'The forge never cools.' },
    2: { uid: 2, key: ['ghost'], comment: 'Hidden ghost', content: 'A ghost.', disable: true },
    3: { uid: 3, key: ['river'], comment: 'River', content: 'The river runs east.', constant: true },
  },
};

const CARD_V2 = {
  spec: 'chara_card_v2',
  spec_version: '2.0',
  data: {
    name: 'Captain Vell',
    description: '{{char}} commands the airship Kestrel.',
    personality: 'Gruff and loyal.',
    scenario: 'A storm is coming.',
    first_mes: '"Another stray," {{char}} growls.',
    mes_example: '',
    creator_notes: '',
    system_prompt: 'You are Vell.',
    post_history_instructions: '',
    alternate_greetings: ['Vell looks up from the map.'],
    tags: [],
    creator: '',
    character_version: '',
    extensions: {},
    character_book: {
      entries: [{ keys: ['Kestrel'], content: 'The Kestrel is an old airship.', enabled: true, insertion_order: 1, extensions: {}, comment: 'The Kestrel' }],
    },
  },
};

const AID_SCENARIO = {
  data: {
    scenario: {
      title: 'The Drowned City',
      description: 'Dive into a sunken city.',
      prompt: 'You dive into the green water.',
      memory: 'The city sank a hundred years ago.',
      authorsNote: 'Tone: eerie.',
      details: { instructions: 'Write in second person.' },
      gameCodeSharedLibrary: 'const SUFFIX = "!";',
      gameCodeOnInput: 'const modifier = (text) => ({ text });\nmodifier(text);',
      gameCodeOnModelContext: 'const modifier = (text) => ({ text });\nmodifier(text);',
      gameCodeOnOutput: 'const modifier = (text) => ({ text: text + SUFFIX });\nmodifier(text);',
      storyCards: [
        { id: '1', type: 'location', keys: 'temple,drowned temple', value: 'A temple of green stone.', title: 'Temple', deletedAt: null },
        { id: '2', type: 'item', keys: 'pearl', value: 'Gone.', title: 'Old pearl', deletedAt: '2025-01-01T00:00:00Z' },
      ],
    },
  },
};

const NOVELAI = {
  lorebookVersion: 5,
  entries: [
    { text: 'The moon has two faces.', displayName: 'Moon', keys: ['moon', 'lunar'], enabled: true, forceActivation: false, contextConfig: { insertionPosition: -1 } },
    { text: 'Off.', displayName: 'Unused', keys: ['x'], enabled: false },
  ],
  settings: {},
  categories: [],
};

// ---- a PNG written here: 1×1 pixel, with tEXt chunks before IEND ----------

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, body) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(body.length);
  const td = Buffer.concat([Buffer.from(type, 'latin1'), body]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}
function png(texts) {
  const ihdr = Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0]);
  const idat = deflateSync(Buffer.from([0, 200, 40, 40, 255]));
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk('IHDR', ihdr),
    chunk('IDAT', idat),
    ...Object.entries(texts).map(([k, v]) => chunk('tEXt', Buffer.from(`${k}\0${v}`, 'latin1'))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
const jsonFile = (name, v) => ({ name, mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(v)) });

describe('import journey', { skip: !haveChromium && skipLine() }, () => {
  const j = journey();

  test('SillyTavern, a character card PNG and an AI Dungeon scenario through the preview into scenarios', async () => {
    const { context, page } = await j.open('importer', { viewport: { width: 390, height: 844 } });
    const fitsWidth = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
    const stored = (id) => page.evaluate(async (id) => (await fetch(`/api/scenarios/${id}`)).json(), id);
    const listed = () => page.evaluate(async () => (await (await fetch('/api/scenarios')).json()).scenarios.length);

    // preview opens the dialog on the solo page and reads the file.
    async function preview(file) {
      await j.at(page, 'solo');
      await page.getByTestId('import-open').click();
      const dialog = page.getByTestId('import-dialog');
      await dialog.getByTestId('import-file').setInputFiles(file);
      await dialog.getByTestId('import-preview').waitFor();
      assert.ok(await fitsWidth(), 'the import dialog scrolls sideways at 390 px');
      const items = async (id) => (await dialog.getByTestId(id).locator('li').allTextContents()).map((s) => s.trim());
      return {
        dialog,
        format: (await dialog.getByTestId('import-format').textContent()).trim(),
        title: (await dialog.getByTestId('import-title').textContent()).trim(),
        counts: (await dialog.getByTestId('import-counts').textContent()).trim(),
        mapped: await items('import-mapped'),
        unmapped: await items('import-unmapped'),
      };
    }
    // importIt presses Import and answers the new scenario's id (the editor opened).
    async function importIt(dialog, title) {
      await dialog.getByTestId('import-submit').click();
      await page.waitForURL(/\/solo\/scenarios\/\d+$/);
      await page.getByRole('textbox', { name: 'Title', exact: true }).first().waitFor();
      const id = Number(new URL(page.url()).pathname.split('/').pop());
      assert.equal((await stored(id)).title, title);
      assert.ok(await fitsWidth(), 'the editor scrolls sideways at 390 px');
      return id;
    }

    // --- SillyTavern World Info → a scenario holding its cards
    let p = await preview(jsonFile('world.json', WORLD_INFO));
    assert.equal(p.format, 'SillyTavern World Info');
    assert.equal(p.counts, '3 story cards, 0 scripts');
    assert.deepEqual(p.mapped, ['3 story cards from entries']);
    // the AND_ALL secondary key and the constant entry keep their meaning now: no note for them
    assert.deepEqual(p.unmapped, ['Hidden ghost: disabled in the file, so not imported']);
    assert.equal(await listed(), 0, 'the preview created something');
    let id = await importIt(p.dialog, 'Imported lorebook');
    let sc = await stored(id);
    assert.deepEqual(
      sc.cards.map((c) => [c.title, c.keys, c.secondary_keys ?? [], c.logic ?? '', c.constant ?? false, c.entry]),
      [
        ['Mira', ['Mira', 'smith'], [], '', false, 'Mira is the village smith.'],
        ['The Forge', ['forge'], ['night'], 'and_all', false, 'The forge never cools.'],
        ['River', ['river'], [], '', true, 'The river runs east.'],
      ],
    );
    assert.equal(await page.getByTestId('card-row').count(), 3);

    // --- Character Card V2 as a PNG → premise, opening and its lorebook
    const cardPng = png({ chara: Buffer.from(JSON.stringify(CARD_V2)).toString('base64') });
    p = await preview({ name: 'vell.png', mimeType: 'image/png', buffer: cardPng });
    assert.equal(p.format, 'Character Card V2');
    assert.equal(p.title, 'Captain Vell');
    assert.ok(p.mapped.includes('first_mes → opening'), p.mapped.join(' | '));
    assert.ok(p.unmapped.includes('system_prompt: it would replace the narrator’s own instructions'), p.unmapped.join(' | '));
    assert.ok(p.unmapped.includes('alternate_greetings (1): no equivalent in a scenario'), p.unmapped.join(' | '));
    id = await importIt(p.dialog, 'Captain Vell');
    sc = await stored(id);
    assert.equal(sc.opening, '"Another stray," Captain Vell growls.');
    assert.equal(sc.premise, 'Captain Vell commands the airship Kestrel.\n\nGruff and loyal.');
    assert.equal(sc.plot_essentials, 'A storm is coming.');
    assert.deepEqual(sc.cards.map((c) => c.title), ['The Kestrel']);
    assert.equal(await page.getByLabel('Opening', { exact: true }).inputValue(), sc.opening);

    // --- AI Dungeon scenario → opening, plot essentials, author's note, cards and the four scripts
    p = await preview(jsonFile('drowned.json', AID_SCENARIO));
    assert.equal(p.format, 'AI Dungeon scenario');
    assert.equal(p.counts, '1 story cards, 4 scripts');
    assert.ok(p.mapped.includes('gameCodeOnOutput → Output script'), p.mapped.join(' | '));
    assert.ok(p.unmapped.includes('Old pearl: deleted in the file, so not imported'), p.unmapped.join(' | '));
    assert.ok(p.unmapped.includes('description: never sent to the narrator, so not kept'), p.unmapped.join(' | '));
    id = await importIt(p.dialog, 'The Drowned City');
    sc = await stored(id);
    const scenario = AID_SCENARIO.data.scenario;
    assert.equal(sc.opening, scenario.prompt);
    assert.equal(sc.plot_essentials, scenario.memory);
    assert.equal(sc.authors_note, scenario.authorsNote);
    assert.equal(sc.ai_instructions, 'Write in second person.');
    assert.deepEqual(sc.scripts, {
      library: scenario.gameCodeSharedLibrary,
      input: scenario.gameCodeOnInput,
      context: scenario.gameCodeOnModelContext,
      output: scenario.gameCodeOnOutput,
    });
    assert.deepEqual(
      sc.cards.map((c) => [c.title, c.keys, c.entry, c.type]),
      [['Temple', ['temple', 'drowned temple'], 'A temple of green stone.', 'location']],
    );

    // --- NovelAI lorebook (.lorebook, no media type) → a scenario of cards
    p = await preview({ name: 'moon.lorebook', mimeType: 'application/octet-stream', buffer: Buffer.from(JSON.stringify(NOVELAI)) });
    assert.equal(p.format, 'NovelAI lorebook');
    assert.deepEqual(p.unmapped, ['Unused: disabled in the file, so not imported']);
    id = await importIt(p.dialog, 'Imported lorebook');
    assert.deepEqual(
      (await stored(id)).cards.map((c) => [c.title, c.keys, c.entry]),
      [['Moon', ['moon', 'lunar'], 'The moon has two faces.']],
    );

    // --- a picture without a card is refused and creates nothing
    await j.at(page, 'solo');
    await page.getByTestId('import-open').click();
    const dialog = page.getByTestId('import-dialog');
    await dialog.getByTestId('import-file').setInputFiles({ name: 'photo.png', mimeType: 'image/png', buffer: png({ Software: 'paint' }) });
    await dialog.getByRole('alert').filter({ hasText: 'This picture holds no character card' }).waitFor();
    assert.equal(await dialog.getByTestId('import-submit').isDisabled(), true);
    assert.equal(await listed(), 4);

    assert.deepEqual(j.pageErrors, []);
    await context.close();
  });
});
