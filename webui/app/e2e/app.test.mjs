// Browser journeys against the real server binary (see harness.mjs).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chromiumOrSkip, eventually, journey, skipLine } from './harness.mjs';

const haveChromium = chromiumOrSkip();

describe('browser journeys', { skip: !haveChromium && skipLine() }, () => {
  const j = journey();

  // withPage gives each journey a fresh context (empty localStorage) and fails
  // on uncaught page errors. A failing journey's context stays open for its
  // screenshot (shotsOnFailure); the journey's end closes it.
  async function withPage(fn) {
    const { context, page, errors } = await j.open('page');
    await fn(page);
    assert.deepEqual(errors, [], 'uncaught errors in the page');
    await context.close();
  }

  const htmlLang = (page) => page.evaluate(() => document.documentElement.lang);

  test('home: English shell, server status, switch to zh-TW and back', async () => {
    const health = await (await fetch(j.url('api/health'))).json();
    assert.equal(typeof health.schema_version, 'number', `health: ${JSON.stringify(health)}`);

    await withPage(async (page) => {
      const res = await j.at(page, '');
      assert.equal(res.status(), 200);
      // The app runs under the server's CSP (no inline script; see webui/middleware.go).
      assert.match(res.headers()['content-security-policy'] ?? '', /script-src 'self';.*frame-ancestors 'none'/);
      const nav = page.getByRole('navigation');
      await nav.getByRole('link', { name: 'Tables', exact: true }).waitFor();
      await nav.getByRole('link', { name: 'Solo adventures', exact: true }).waitFor();
      await nav.getByRole('link', { name: 'Settings', exact: true }).waitFor();
      await page.getByRole('link', { name: 'Adventure Table', exact: true }).waitFor();

      const schema = page.getByTestId('status-schema');
      await schema.waitFor();
      assert.equal((await schema.textContent()).trim(), String(health.schema_version));
      assert.equal(await htmlLang(page), 'en');

      await page.getByLabel('Language').selectOption('zh-TW');
      await nav.getByRole('link', { name: '遊戲桌', exact: true }).waitFor();
      await nav.getByRole('link', { name: '單人冒險', exact: true }).waitFor();
      await page.getByRole('heading', { name: '關於這台伺服器' }).waitFor();
      assert.equal(await nav.getByRole('link', { name: 'Tables', exact: true }).count(), 0);
      assert.equal(await htmlLang(page), 'zh-TW');

      // the choice survives a reload
      await page.reload();
      await nav.getByRole('link', { name: '遊戲桌', exact: true }).waitFor();
      await eventually(async () => assert.equal(await htmlLang(page), 'zh-TW'));

      await page.getByLabel('Language').selectOption('en');
      await nav.getByRole('link', { name: 'Tables', exact: true }).waitFor();
      await page.getByRole('heading', { name: 'About this server' }).waitFor();
      assert.equal(await nav.getByRole('link', { name: '遊戲桌', exact: true }).count(), 0);
      assert.equal(await htmlLang(page), 'en');
    });
  });

  test('api docs: Swagger UI renders the OpenAPI document', async () => {
    await withPage(async (page) => {
      const res = await j.at(page, 'api/docs');
      assert.equal(res.status(), 200);
      const title = page.locator('.swagger-ui .info .title');
      await title.waitFor();
      await eventually(async () => assert.match(await title.textContent(), /Adventure Table API/));
      // Swagger UI renders only the tags in view (a long document is
      // virtualized): scroll down a screen at a time until the health
      // route shows.
      const health = page.locator('.swagger-ui .opblock-summary-path', { hasText: /^\/api\/health$/ });
      await eventually(async () => {
        if ((await health.count()) === 0) {
          await page.evaluate(() => window.scrollBy(0, window.innerHeight / 2));
          throw new Error('the health route is not rendered yet');
        }
      });
      await health.first().waitFor();
    });
  });

  test('deep link to /tables shows the Tables empty state', async () => {
    await withPage(async (page) => {
      const res = await j.at(page, 'tables');
      assert.equal(res.status(), 200);
      await page.getByRole('heading', { level: 1, name: 'Tables' }).waitFor();
      await page.getByTestId('tables-empty').getByText('You are not in any room yet.').waitFor();
      await page.getByRole('button', { name: 'Create room' }).waitFor();
      await page.locator('[data-capability="table"][data-available="true"]').waitFor();
    });
  });
});
