// What a page costs to open, in a real browser with its CPU slowed 4× (as
// Lighthouse's mobile run does): a table session page (a player's and the
// DM's), the solo page and a solo adventure, each opened cold (a fresh
// browser context: empty cache, the person's cookies) by a deep link.
//
// Asserted: the scripts the browser fetched for a page weigh at most its
// budget brotli-compressed (each compressed here at quality 11, the
// build's own level), every script came with the immutable cache header,
// and the page works with no errors. Reported, never asserted (a busy CI
// machine makes times noise): the bytes transferred, first paint, first
// contentful paint, largest contentful paint, total blocking time, and the
// time until the page is usable (the chat's message box; the solo lists;
// the adventure's story and its input). Each number is the median of
// AT_PAGE_WEIGHT_RUNS loads (3 by default). AT_PAGE_WEIGHT_OUT names a
// JSON file to write them to as well.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { brotliCompressSync, constants } from 'node:zlib';
import { chromiumOrSkip, skipLine } from './harness.mjs';
import { character, DESKTOP, tableJourney } from './table-setup.mjs';

const haveChromium = chromiumOrSkip();

// The most script, brotli-compressed, a page may fetch: 100 KB for every
// page. The app is written against React's API and renders with Preact
// (vite.config.ts), a tenth of React DOM's weight; each page fetches its own
// code and words, and what it does not show at first (the fight's tracker
// and forms, the check dialog, the actions panel, the error texts, the
// script editor) when first shown.
const KB = 1024;
const GOAL = 100 * KB;
const CPU_SLOWDOWN = 4;
const RUNS = Math.max(1, Number(process.env.AT_PAGE_WEIGHT_RUNS) || 3);
// SETTLE is how long a page is watched after it is usable, for what it still fetches.
const SETTLE_MS = 1000;

const brotli = (buf) =>
  brotliCompressSync(buf, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 11,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: buf.length,
    },
  }).length;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)];
};
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
const ms = (n) => (n == null ? '—' : `${Math.round(n)} ms`);

// watchPage, run in the page before its first script: it keeps the paint
// entries, the largest contentful paint, the long tasks and the moment all
// of the ready selectors match a visible element (checked every frame).
function watchPage(ready) {
  const w = { long: [], lcp: null, ready: null };
  window.__pageWeight = w;
  const shown = (sel) => {
    const el = document.querySelector(sel);
    return !!el && el.getClientRects().length > 0 && el.checkVisibility({ visibilityProperty: true });
  };
  const tick = () => {
    if (ready.every(shown)) w.ready = performance.now();
    else requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
  new PerformanceObserver((l) => l.getEntries().forEach((e) => w.long.push([e.startTime, e.duration]))).observe({ type: 'longtask', buffered: true });
  new PerformanceObserver((l) => l.getEntries().forEach((e) => (w.lcp = e.startTime))).observe({ type: 'largest-contentful-paint', buffered: true });
}

describe(`page weight at ${CPU_SLOWDOWN}× CPU slowdown`, { skip: !haveChromium && skipLine() }, () => {
  const { url, open, person, api, setUpTable, pageErrors } = tableJourney({ viewport: DESKTOP });

  // load opens path in a fresh context carrying state (cookies), with the
  // CPU slowed, and measures it until every ready selector shows.
  async function load(state, path, ready) {
    const { context, page } = await open('measure', { viewport: DESKTOP, storageState: state });
    try {
      const cdp = await context.newCDPSession(page);
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: CPU_SLOWDOWN });
      await cdp.send('Network.enable');
      const wire = new Map(); // requestId -> { url, bytes }
      cdp.on('Network.responseReceived', (e) => wire.set(e.requestId, { url: e.response.url, bytes: 0 }));
      cdp.on('Network.loadingFinished', (e) => {
        const r = wire.get(e.requestId);
        if (r) r.bytes = e.encodedDataLength;
      });
      const scripts = [];
      page.on('response', (r) => {
        if (r.request().resourceType() === 'script') scripts.push(r);
        if (r.status() >= 400 && !new URL(r.url()).pathname.startsWith('/api/')) pageErrors.push(`${path}: ${r.status()} ${r.url()}`);
      });
      await page.addInitScript(watchPage, ready);
      await page.goto(url(path), { waitUntil: 'commit' });
      await page.waitForFunction(() => window.__pageWeight?.ready != null, null, { timeout: 60_000, polling: 100 });
      await page.waitForTimeout(SETTLE_MS);
      const timing = await page.evaluate(() => {
        const w = window.__pageWeight;
        const paint = Object.fromEntries(performance.getEntriesByType('paint').map((e) => [e.name, e.startTime]));
        const fcp = paint['first-contentful-paint'] ?? null;
        // total blocking time as Lighthouse counts it: the part over 50 ms of
        // each long task between first contentful paint and being usable
        const tbt = w.long.filter(([start]) => fcp != null && start >= fcp && start < w.ready).reduce((sum, [, d]) => sum + Math.max(0, d - 50), 0);
        return { fp: paint['first-paint'] ?? null, fcp, lcp: w.lcp, tbt, ready: w.ready };
      });
      const js = [];
      for (const r of scripts) {
        const body = await r.body();
        const h = r.headers();
        js.push({ url: new URL(r.url()).pathname, status: r.status(), cache: h['cache-control'] ?? '', coding: h['content-encoding'] ?? '', raw: body.length, br: brotli(body) });
      }
      const transfer = [...wire.values()].reduce((sum, r) => sum + r.bytes, 0);
      return { ...timing, transfer, js, jsRaw: js.reduce((s, x) => s + x.raw, 0), jsBr: js.reduce((s, x) => s + x.br, 0) };
    } finally {
      await context.close();
    }
  }

  test('each page fetches no more script than its budget (brotli), and what it costs is reported', async () => {
    // a started session with a few lines of chat; the player has a solo adventure
    const dm = await person('DM');
    const player = await person('Bob');
    const { sessionId } = await setUpTable({
      dm: { page: dm, name: 'Dana' },
      players: [{ page: player, name: 'Bob', seat: 'Fighter', character: character('Brakka') }],
      room: 'Weight room',
      campaign: 'Heavy Night',
      start: true,
    });
    for (let i = 1; i <= 6; i++) {
      await api(i % 2 ? player : dm, 'POST', `/api/sessions/${sessionId}/messages`, {
        kind: i % 2 ? 'character_dialogue' : 'narration',
        text: `Line ${i} of the **night**.`,
        idempotency_key: randomUUID(),
      });
    }
    const scenario = await api(player, 'POST', '/api/scenarios', {
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
    const adventure = await api(player, 'POST', `/api/scenarios/${scenario.id}/play`, { persona_name: 'Bob', persona_pronouns: '', persona_desc: '' });
    const adventureId = adventure.adventure?.id ?? adventure.id;

    const chat = ['textarea.message-input:not([disabled])', '[data-testid="chat-line"]'];
    const pages = [
      { name: 'session (player)', who: player, path: `sessions/${sessionId}`, ready: chat, budget: GOAL },
      { name: 'session (DM)', who: dm, path: `sessions/${sessionId}`, ready: chat, budget: GOAL },
      { name: 'solo', who: player, path: 'solo', ready: ['[data-testid="adventure-list"]', '[data-testid="scenario-list"]'], budget: GOAL },
      {
        name: 'solo adventure',
        who: player,
        path: `solo/adventures/${adventureId}`,
        ready: ['[data-testid="story-node"]', '[data-testid="turn-input"] textarea:not([disabled])'],
        budget: GOAL,
      },
    ];

    const results = [];
    for (const p of pages) {
      const state = await p.who.context().storageState();
      const runs = [];
      for (let i = 0; i < RUNS; i++) runs.push(await load(state, p.path, p.ready));
      const pick = (k) => median(runs.map((r) => r[k]).filter((v) => v != null));
      results.push({
        page: p.name,
        budget: p.budget,
        path: p.path,
        jsRaw: Math.max(...runs.map((r) => r.jsRaw)),
        jsBr: Math.max(...runs.map((r) => r.jsBr)),
        scripts: runs[0].js,
        transfer: pick('transfer'),
        fp: pick('fp'),
        fcp: pick('fcp'),
        lcp: pick('lcp'),
        tbt: pick('tbt'),
        ready: pick('ready'),
      });
    }

    const lines = [
      `page weight, CPU ${CPU_SLOWDOWN}× slower, cold cache, median of ${RUNS}:`,
      `${'page'.padEnd(18)}${'JS raw'.padStart(11)}${'JS br'.padStart(11)}${'budget'.padStart(9)}${'transfer'.padStart(11)}${'FP'.padStart(9)}${'FCP'.padStart(9)}${'LCP'.padStart(9)}${'TBT'.padStart(9)}${'usable'.padStart(9)}`,
      ...results.map(
        (r) =>
          `${r.page.padEnd(18)}${kb(r.jsRaw).padStart(11)}${kb(r.jsBr).padStart(11)}${`${r.budget / KB} KB`.padStart(9)}${kb(r.transfer).padStart(11)}${ms(r.fp).padStart(9)}${ms(r.fcp).padStart(9)}${ms(r.lcp).padStart(9)}${ms(r.tbt).padStart(9)}${ms(r.ready).padStart(9)}`,
      ),
      ...results.flatMap((r) => [`scripts of ${r.page}:`, ...r.scripts.map((s) => `  ${s.url.padEnd(44)} raw ${kb(s.raw).padStart(9)}  br ${kb(s.br).padStart(8)}`)]),
    ];
    console.log(lines.join('\n'));
    if (process.env.AT_PAGE_WEIGHT_OUT) writeFileSync(process.env.AT_PAGE_WEIGHT_OUT, JSON.stringify(results, null, 2));

    assert.deepEqual(pageErrors, [], 'no page errors, CSP refusals or missing files');
    for (const r of results) {
      for (const s of r.scripts) {
        assert.equal(s.status, 200, `${r.page}: ${s.url}`);
        assert.match(s.cache, /immutable/, `${r.page}: ${s.url} is cached for good`);
        // the build keeps no compressed copy of a file under 1 KB (scripts/compress.mjs)
        if (s.raw >= 1024) assert.equal(s.coding, 'br', `${r.page}: ${s.url} comes brotli-compressed`);
      }
      assert.ok(r.jsBr <= r.budget, `${r.page} fetches ${kb(r.jsBr)} of script (brotli), over its ${kb(r.budget)} budget`);
    }
  });
});
