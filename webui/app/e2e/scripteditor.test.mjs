// The script editor against the real server binary, in Chromium under the
// server's Content-Security-Policy: CodeMirror with JavaScript highlighting
// and line numbers in each script tab, a test run whose error is marked on
// its line (the output hook's and, raised in the Library, the Library's),
// Go to line, the keyboard (Tab indents, Escape then Tab moves on), the
// edited scripts saved as typed, and the editor fitting a phone. No model
// is involved: a test run needs none.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chromiumOrSkip, journey, skipLine } from './harness.mjs';

const haveChromium = chromiumOrSkip();

const LIBRARY = "// helpers\nfunction check(text) {\n  if (text) throw new Error('no ' + text)\n}";
const OUTPUT = 'const modifier = (text) => {\n  const a = 1\n  check(text)\n  return { text }\n}\nmodifier(text)';

describe('script editor journey', { skip: !haveChromium && skipLine() }, () => {
  const j = journey();

  // open starts a fresh guest at the new-scenario page; problems are its
  // uncaught errors and Content-Security-Policy refusals (journey), and the
  // page also records every securitypolicyviolation event (window.__csp).
  async function open(viewport) {
    const { context, page, errors: problems } = await j.open('author', { viewport });
    await page.addInitScript(() => {
      window.__csp = [];
      document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
    });
    await j.at(page, 'solo/scenarios/new');
    await page.getByRole('tablist', { name: 'Script hooks' }).waitFor();
    return { context, page, problems };
  }

  const panel = (page, hook) => page.getByRole('tabpanel', { name: hook, exact: true });
  const editor = (page, hook) => panel(page, hook).getByRole('textbox', { name: `${hook} script`, exact: true });
  const tab = (page, hook) => page.getByRole('tablist', { name: 'Script hooks' }).getByRole('tab', { name: new RegExp(`^${hook}`) });
  // the text of a CodeMirror editor, line by line
  const text = (page, hook) =>
    editor(page, hook).evaluate((el) => [...el.querySelectorAll('.cm-line')].map((l) => l.textContent).join('\n'));

  test('highlighting, line numbers, a test run marks the error line; keyboard; saved as typed', async () => {
    const { context, page, problems } = await open({ width: 1366, height: 768 });

    // --- each script is a CodeMirror editor in a shadow root, styled under the CSP
    const host = panel(page, 'Library').getByTestId('code-editor');
    await host.waitFor();
    assert.equal(await host.evaluate((el) => el.shadowRoot !== null && el.shadowRoot.adoptedStyleSheets.length > 0), true);
    assert.equal(await panel(page, 'Library').locator('textarea').count(), 0, 'the text area gave way to the editor');

    await page.getByLabel('Title', { exact: true }).fill('Checked');
    await editor(page, 'Library').fill(LIBRARY);
    await tab(page, 'Output').click();
    await editor(page, 'Output').fill(OUTPUT);
    assert.equal(await text(page, 'Output'), OUTPUT, 'the editor holds the script as typed');

    // line numbers in the gutter, 1 to 6
    const numbers = panel(page, 'Output').locator('.cm-lineNumbers .cm-gutterElement');
    // (the gutter's first element is a hidden spacer that sizes it)
    const shown = await numbers.evaluateAll((els) =>
      els.filter((e) => getComputedStyle(e).visibility !== 'hidden').map((e) => e.textContent),
    );
    assert.deepEqual(shown, ['1', '2', '3', '4', '5', '6']);
    // highlighting: a keyword and a name are drawn in different colours
    const colour = (word) =>
      panel(page, 'Output')
        .locator('.cm-line span')
        .filter({ hasText: new RegExp(`^${word}$`) })
        .first()
        .evaluate((el) => getComputedStyle(el).color);
    const keyword = await colour('const');
    const plain = await panel(page, 'Output').locator('.cm-line').first().evaluate((el) => getComputedStyle(el).color);
    assert.notEqual(keyword, plain, `"const" is highlighted (${keyword} vs ${plain})`);

    // --- the test run: the output hook fails at line 3, in the Library at line 3
    await page.getByRole('button', { name: 'Test scripts', exact: true }).click();
    const results = page.getByTestId('script-test-result');
    const output = results.locator('li[data-hook="output"]');
    await output.filter({ hasText: 'Library line 3, called from line 3: Error: no ' }).waitFor();
    assert.equal(await results.locator('li[data-hook="library"]').getAttribute('data-ok'), 'true');

    // the marker sits on line 3 of the output script, beside the gutter's 3
    const marked = panel(page, 'Output').locator('.cm-line.at-error-line');
    await marked.waitFor();
    assert.equal(await marked.count(), 1);
    assert.equal(await marked.getAttribute('data-error-line'), '3');
    assert.equal((await marked.textContent()).trim(), 'check(text)');
    const lineBox = await marked.boundingBox();
    const three = numbers.filter({ hasText: /^3$/ });
    const numberBox = await three.boundingBox();
    assert.ok(Math.abs(lineBox.y - numberBox.y) < 2, `line 3's number sits beside the marked line (${lineBox.y} vs ${numberBox.y})`);
    assert.notEqual(
      await marked.evaluate((el) => getComputedStyle(el).backgroundColor),
      'rgba(0, 0, 0, 0)',
      'the error line is drawn marked',
    );
    // the lint gutter carries the error too
    await panel(page, 'Output').locator('.cm-lint-marker-error').waitFor();
    // the tabs with an error line say so; the Library's marker is its line 3
    await tab(page, 'Output').getByTestId('tab-error-mark').waitFor();
    await tab(page, 'Library').getByTestId('tab-error-mark').waitFor();
    assert.equal(await tab(page, 'Input').getByTestId('tab-error-mark').count(), 0);
    await tab(page, 'Library').click();
    const libMarked = panel(page, 'Library').locator('.cm-line.at-error-line');
    assert.equal(await libMarked.getAttribute('data-error-line'), '3');
    assert.equal((await libMarked.textContent()).trim(), "if (text) throw new Error('no ' + text)");

    // --- Go to line takes the cursor to the line
    await output.getByRole('button', { name: 'Go to line 3', exact: true }).click();
    assert.equal(await tab(page, 'Output').getAttribute('aria-selected'), 'true');
    const focused = () => editor(page, 'Output').evaluate((el) => el.getRootNode().activeElement === el);
    assert.equal(await focused(), true, 'the output editor has the focus');
    assert.equal((await panel(page, 'Output').locator('.cm-activeLine').textContent()).trim(), 'check(text)');

    // --- keyboard: Tab indents; Escape then Tab moves on (the keyboard is never trapped)
    await page.keyboard.press('Home');
    await page.keyboard.press('Tab');
    assert.equal((await text(page, 'Output')).split('\n')[2], '    check(text)', 'Tab indented the line');
    assert.equal(await focused(), true);
    await page.keyboard.press('Shift+Tab');
    assert.equal((await text(page, 'Output')).split('\n')[2], '  check(text)', 'Shift+Tab took the indent back');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Tab');
    assert.equal(await focused(), false, 'Escape then Tab left the editor');
    const after = await page.evaluate(() => document.activeElement?.textContent ?? '');
    assert.ok(after.length > 0, 'the focus went on to the next control');

    // --- saved as typed, and read back into the editors
    await page.getByRole('button', { name: 'Save scenario', exact: true }).click();
    await page.waitForURL(/\/solo\/scenarios\/\d+$/);
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Checked' }).waitFor();
    await editor(page, 'Library').waitFor();
    assert.equal(await text(page, 'Library'), LIBRARY);
    await tab(page, 'Output').click();
    assert.equal(await text(page, 'Output'), OUTPUT);

    assert.deepEqual(problems, [], 'uncaught errors or CSP reports in the console');
    assert.deepEqual(await page.evaluate(() => window.__csp), [], 'Content-Security-Policy violations');
    await context.close();
  });

  test('the editor fits a phone without scrolling the page sideways', async () => {
    const { context, page, problems } = await open({ width: 390, height: 844 });
    await tab(page, 'Output').click();
    await editor(page, 'Output').fill(`const long = '${'x'.repeat(300)}'\nmodifier(text)`);
    await panel(page, 'Output').locator('.cm-lineNumbers').waitFor();
    // The long line scrolls inside the editor (CodeMirror lays it out on a
    // later frame, so wait for it; a busy machine measured it too early)...
    const scroller = await panel(page, 'Output').locator('.cm-scroller').elementHandle();
    await page.waitForFunction((el) => el.scrollWidth > el.clientWidth, scroller, { timeout: 10000 });
    // ...and not the page.
    const wide = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(wide <= 0, `the page scrolls sideways by ${wide}px`);
    assert.deepEqual(problems, []);
    assert.deepEqual(await page.evaluate(() => window.__csp), []);
    await context.close();
  });
});
