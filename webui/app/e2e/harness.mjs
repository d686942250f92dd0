// Shared helpers for the browser end-to-end tests: find Chromium, start the
// real server binary on a free port with a fresh data dir, stop it
// gracefully, and keep screenshots of the pages of a failing test.
import assert from 'node:assert/strict';
import { AxeBuilder } from '@axe-core/playwright';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { after, afterEach, before } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startDeployment } from './deployment.mjs';

const appDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');

// artifactsDir holds the screenshots of failing tests (gitignored; CI lists
// and keeps them, see .ci/run).
export const artifactsDir = join(appDir, 'e2e', 'artifacts');

export const chromiumPath = process.env.AT_CHROMIUM || '/usr/bin/chromium';
export const serverBin = resolve(appDir, process.env.AT_E2E_BIN || '../../bin/adventure-table');

export const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-quic',
  '--disable-sync',
];

export function browserRequired() {
  return (process.env.AT_TEST_REQUIRE || '')
    .split(',')
    .map((s) => s.trim())
    .includes('browser');
}

export function skipLine() {
  return `SKIPPED: browser end-to-end tests — Chromium not found at ${chromiumPath} (apt-get install -y chromium)`;
}

export function chromiumMissingMessage() {
  return `browser end-to-end tests are required (AT_TEST_REQUIRE contains "browser") but Chromium was not found at ${chromiumPath}: apt-get install -y chromium, or set AT_CHROMIUM`;
}

export function chromiumAvailable() {
  return existsSync(chromiumPath);
}

// chromiumOrSkip, at the top of a test file, says whether Chromium is here;
// without it the file prints the skip line, or throws when the browser tests
// are required.
export function chromiumOrSkip() {
  const have = chromiumAvailable();
  if (!have && browserRequired()) throw new Error(chromiumMissingMessage());
  if (!have) console.log(skipLine());
  return have;
}

// launchChromium starts the headless browser of the tests.
export const launchChromium = () => chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });

const URL_LINE = /^\s*URL:\s+(\S+)/m;
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 15_000;

// hostedEnv runs a hosted server (guests and accounts) behind a pretend
// TLS-terminating proxy: AT_TLS_PROXY=1 lets it serve plain HTTP while it
// marks its cookies Secure (__Host-), which Chromium keeps on
// http://127.0.0.1, a potentially trustworthy origin. The secret is fresh
// per run (40 characters).
const hostedEnv = () => ({ AT_MODE: 'hosted', AT_SECRET: randomBytes(30).toString('base64url'), AT_TLS_PROXY: '1' });

// startServer spawns `<bin> serve` and resolves once the banner's URL line
// appears: a local server, or with { hosted: true } a hosted one (hostedEnv).
export async function startServer({ hosted = false, env = {} } = {}) {
  if (!existsSync(serverBin)) {
    throw new Error(`server binary not found at ${serverBin}: run \`make build\` first, or set AT_E2E_BIN`);
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'at-e2e-'));
  const child = spawn(serverBin, ['serve'], {
    env: { ...process.env, AT_DATA_DIR: dataDir, AT_ADDR: '127.0.0.1:0', ...(hosted ? hostedEnv() : { AT_MODE: 'local' }), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise((resolveExit) => {
    child.on('exit', (code, signal) => resolveExit({ code, signal }));
  });
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');

  const url = await new Promise((resolveURL, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not print its URL within ${START_TIMEOUT_MS / 1000}s; output so far:\n${output}`));
    }, START_TIMEOUT_MS);
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const m = URL_LINE.exec(output);
      if (m) {
        clearTimeout(timer);
        resolveURL(m[1].endsWith('/') ? m[1] : `${m[1]}/`);
      }
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`could not start ${serverBin}: ${err.message}`));
    });
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`server exited early (code ${code}, signal ${signal}); output:\n${output}`));
    });
  });

  return {
    url,
    dataDir,
    output: () => output,
    // stop sends SIGTERM and resolves with the exit status; the data dir is removed.
    async stop() {
      try {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        let timer;
        const timeout = new Promise((_, reject) => {
          timer = setTimeout(() => {
            child.kill('SIGKILL');
            reject(new Error(`server did not exit within ${STOP_TIMEOUT_MS / 1000}s of SIGTERM; output:\n${output}`));
          }, STOP_TIMEOUT_MS);
        });
        try {
          return await Promise.race([exited, timeout]);
        } finally {
          clearTimeout(timer);
        }
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}

// stopServer stops a server of startServer, if it started, and asserts that
// it exited 0 on SIGTERM.
export async function stopServer(server) {
  if (!server) return;
  const { code, signal } = await server.stop();
  assert.equal(signal, null, `server was killed by ${signal}; output:\n${server.output()}`);
  assert.equal(code, 0, `server exit code after SIGTERM; output:\n${server.output()}`);
}

// eventually retries fn until it stops throwing or the time runs out.
export async function eventually(fn, { timeout = 15_000, interval = 100 } = {}) {
  const deadline = Date.now() + timeout;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, interval));
    }
  }
}

// shotsOnFailure, called inside a describe block, returns track(page, who):
// every page tracked while a test runs is shot (full page) into
// e2e/artifacts/ when that test fails — AT_E2E_SHOTS=1 keeps them for passing
// tests too. The file names say the test file, the test, the person and the
// page's viewport. A page closed before the shot is skipped.
export function shotsOnFailure() {
  // node --test runs each test file in a process of its own
  const stem = basename(process.argv[1] ?? 'e2e').replace(/\.test\.mjs$/, '');
  let pages = [];
  afterEach(async (t) => {
    const shoot = pages;
    pages = [];
    if (t.passed && !process.env.AT_E2E_SHOTS) return;
    mkdirSync(artifactsDir, { recursive: true });
    const name = t.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60);
    for (const [i, { page, who }] of shoot.entries()) {
      if (page.isClosed()) continue;
      const size = page.viewportSize();
      const file = `${stem}-${name}-${i}-${who}${size ? `-${size.width}x${size.height}` : ''}.png`.replace(/[^a-z0-9.-]+/gi, '-');
      await page.screenshot({ path: join(artifactsDir, file), fullPage: true, timeout: 10_000 }).catch(() => {});
    }
  });
  return (page, who = 'page') => {
    pages.push({ page, who });
    return page;
  };
}

// endJourney closes a journey's browser contexts, its browser and its
// server (which must exit 0 on SIGTERM).
export async function endJourney(contexts, browser, server) {
  for (const c of contexts) await c.close().catch(() => {});
  await browser?.close();
  await stopServer(server);
}

// journey, called inside a describe block, starts the real server (hosted
// with { hosted: true }, see hostedEnv) and Chromium before the block's
// tests and ends them after (endJourney). It returns url(path), at(page,
// path), pageErrors, which collects the uncaught errors, the
// Content-Security-Policy refusals and the missing texts of every page, and open(who, options):
// a page in a fresh browser context (its own cookies; options are the
// context's, en-US unless told), with that page's own errors, shot when its
// test fails (shotsOnFailure).
export function journey({ hosted = false, behindProxy = false } = {}) {
  let server;
  let browser;
  const contexts = [];
  const pageErrors = [];
  const track = shotsOnFailure();

  before(async () => {
    server = behindProxy ? await startDeployment() : await startServer({ hosted });
    browser = await launchChromium();
  });

  after(async () => {
    await endJourney(contexts, browser, server);
  });

  const url = (path) => new URL(path, server.url).href;
  const at = (page, path) => page.goto(url(path));

  async function open(who, options = {}) {
    // behind the proxy, its own CA signs the certificate (a test CA the browser is told to accept)
    const context = await browser.newContext({ locale: 'en-US', ...(behindProxy ? { ignoreHTTPSErrors: true } : {}), ...options });
    contexts.push(context);
    const page = track(await context.newPage(), who);
    page.setDefaultTimeout(15_000);
    const errors = [];
    const problem = (text) => {
      errors.push(text);
      pageErrors.push(`${who}: ${text}`);
    };
    page.on('pageerror', (err) => problem(err.message));
    // A resource the Content-Security-Policy refused fails the journey too.
    page.on('console', (m) => m.type() === 'error' && /Content Security Policy/i.test(m.text()) && problem(`CSP: ${m.text()}`));
    // So does a text whose part of the words the page did not load (src/i18n/messages.ts).
    page.on('console', (m) => m.type() === 'error' && /its part is not loaded/.test(m.text()) && problem(m.text()));
    return { context, page, errors };
  }

  // server: what startServer (or startDeployment) gave, once started
  return { url, at, open, pageErrors, server: () => server };
}

// styleElements counts the <style> elements of a page. The app adds none:
// its styles are its own files (the Content-Security-Policy refuses inline
// ones), and the one rule React Aria would add in a <style> of its own is
// in styles.css (see index.html).
export const styleElements = (page) => page.evaluate(() => document.querySelectorAll('style').length);

// smallTargets lists the visible interactive elements smaller than min×min
// px: 24 by default (WCAG 2.5.8), 44 for a touch screen (2.5.5, the size
// the app keeps on a coarse pointer). A radio or checkbox counts by its
// label, which takes the tap too; a link inside a sentence is exempt (the
// criterion's inline exception), and so is a control inside a closed menu or
// disclosure. except: CSS selectors of further targets exempt on purpose
// (each with its reason at the caller).
export const smallTargets = (page, { min = 24, except = [] } = {}) =>
  page.evaluate(
    ({ min, except }) => {
      const out = [];
      const sel =
        'a[href], button, input:not([type="hidden"]), select, textarea, summary, [role="button"], [role="tab"], [tabindex]:not([tabindex="-1"])';
      for (const el of document.querySelectorAll(sel)) {
        const style = getComputedStyle(el);
        if (style.visibility === 'hidden' || style.display === 'none' || style.opacity === '0') continue;
        if (except.some((x) => el.matches(x))) continue;
        let target = el;
        if (el.matches('input') && el.closest('label')) target = el.closest('label');
        const parent = el.parentElement;
        if (el.matches('a') && style.display === 'inline' && parent && parent.textContent.trim() !== el.textContent.trim()) continue;
        if (target.closest('details:not([open])') && !target.matches('summary')) continue;
        const r = target.getBoundingClientRect();
        if (r.width === 0 && r.height === 0) continue;
        if (r.width < min || r.height < min) {
          const name = (el.getAttribute('aria-label') || el.textContent || el.name || el.className || '').trim().slice(0, 40);
          out.push(`${el.tagName.toLowerCase()} "${name}" ${Math.round(r.width)}×${Math.round(r.height)}`);
        }
      }
      return out;
    },
    { min, except },
  );

// axeViolations audits the page as it is with axe-core and returns its
// serious and critical WCAG 2.1 A/AA violations, one line each.
export async function axeViolations(page) {
  await page.evaluate(() => document.fonts.ready.then(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))));
  const { violations } = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).slice(0, 4).join(' | ')}`);
}
