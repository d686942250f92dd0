// AI at the table, end to end: the DM and one player (two browser contexts,
// two guests) on the real server binary. The player hands their seat to an
// AI with a private instruction and reads the token from the one-time
// dialog; the test then plays the AI over MCP with plain fetch: its line
// reaches both pages live and the card shows the seat as AI. The player
// takes the seat back; the old token is refused (401). The instruction never
// reaches the DM's page. No reloads, no fixed sleeps.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { chromium } from 'playwright-core';
import {
  browserRequired,
  chromiumArgs,
  chromiumAvailable,
  chromiumMissingMessage,
  chromiumPath,
  skipLine,
  startServer,
} from './harness.mjs';

const haveChromium = chromiumAvailable();
if (!haveChromium && browserRequired()) throw new Error(chromiumMissingMessage());
if (!haveChromium) console.log(skipLine());

const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const PROTOCOL = '2026-07-28';

describe('AI handoff journey', { skip: !haveChromium && skipLine() }, () => {
  let server;
  let browser;
  const contexts = [];
  const pageErrors = [];

  before(async () => {
    server = await startServer();
    browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
  });

  after(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    if (server) {
      const { code, signal } = await server.stop();
      assert.equal(signal, null, `server was killed by ${signal}; output:\n${server.output()}`);
      assert.equal(code, 0, `server exit code after SIGTERM; output:\n${server.output()}`);
    }
  });

  const url = (path) => new URL(path, server.url).href;
  const at = (page, path) => page.goto(url(path));

  async function person(name) {
    const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1400, height: 1000 } });
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (err) => pageErrors.push(`${name}: ${err.message}`));
    await at(page, 'tables');
    await page.getByTestId('tables-empty').waitFor();
    return page;
  }

  async function api(page, method, path, data) {
    const res = await page.request.fetch(url(path), { method, ...(data !== undefined ? { data } : {}) });
    const text = await res.text();
    assert.ok(res.ok(), `${method} ${path} -> ${res.status()} ${text}`);
    return text ? JSON.parse(text) : null;
  }

  const character = (name) => ({
    name,
    level: 3,
    abilities: { str: 12, dex: 14, con: 13, int: 10, wis: 11, cha: 9 },
    skill_proficiencies: ['perception'],
    skill_expertise: [],
    hp: { max: 24, current: 24, temp: 0 },
    conditions: [],
    resources: [],
    biography: '',
    roleplay_guidance: '',
  });

  const waitText = (locator, text) =>
    locator.filter({ hasText: new RegExp(`^\\s*${escapeRe(text)}\\s*$`) }).first().waitFor();
  const chatLine = (page, text) =>
    page.getByTestId('chat-line').filter({ has: page.getByTestId('chat-text').filter({ hasText: new RegExp(`^${escapeRe(text)}$`) }) });
  const button = (page, name) => page.getByRole('button', { name, exact: true });
  const ariaCard = (page) => page.getByTestId('participant').filter({ hasText: 'Aria' });
  const controllerOf = (page, kind) => ariaCard(page).locator(`[data-testid="controller"][data-kind="${kind}"]`);

  // mcpCall plays an MCP client with plain fetch (stateless, protocol 2026-07-28).
  async function mcpCall(token, name, args) {
    const res = await fetch(url('mcp'), {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'MCP-Protocol-Version': PROTOCOL,
        'Mcp-Method': 'tools/call',
        'Mcp-Name': name,
        Authorization: `Bearer ${token}`,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name,
          arguments: args,
          _meta: { 'io.modelcontextprotocol/protocolVersion': PROTOCOL, 'io.modelcontextprotocol/clientCapabilities': {} },
        },
      }),
    });
    const text = await res.text();
    let body = null;
    const i = text.lastIndexOf('data: ');
    const payload = i >= 0 ? text.slice(i + 'data: '.length).split('\n')[0] : text;
    try {
      body = JSON.parse(payload);
    } catch {
      body = null;
    }
    return { status: res.status, body, text };
  }

  test('Ann hands her seat to an AI, the AI speaks over MCP, Ann takes it back and the old token stops', async () => {
    const dana = await person('Dana');
    const ann = await person('Ann');
    await api(dana, 'PATCH', '/api/me', { display_name: 'Dana' });
    await api(ann, 'PATCH', '/api/me', { display_name: 'Ann' });

    // --- room, campaign, a player seat for Ann with her character, the DM seat for Dana, lobby, start
    let room = await api(dana, 'POST', '/api/rooms', { name: 'AI room' });
    room = await api(dana, 'POST', `/api/rooms/${room.id}/campaigns`, { name: 'Machine Dreams' });
    const campaignId = room.campaigns[0].id;
    room = await api(dana, 'POST', `/api/campaigns/${campaignId}/seats`, { label: 'Seat A' });
    const seats = Object.fromEntries(room.campaigns[0].seats.map((s) => [s.label, s.id]));
    const annRoom = await api(ann, 'POST', '/api/rooms/join', { invite_code: room.invite_code });
    await api(dana, 'POST', `/api/seats/${seats.DM}/assign`, { access_id: room.my_access.id });
    await api(dana, 'POST', `/api/seats/${seats['Seat A']}/assign`, { access_id: annRoom.my_access.id });
    const aria = await api(ann, 'POST', '/api/characters', character('Aria'));
    await api(ann, 'PUT', `/api/seats/${seats['Seat A']}/character`, { character_id: aria.id });
    const lobby = await api(dana, 'POST', `/api/campaigns/${campaignId}/sessions`);
    const sessionId = lobby.session.id;
    await api(dana, 'POST', `/api/sessions/${sessionId}/start`);

    for (const page of [dana, ann]) {
      await at(page, `sessions/${sessionId}`);
      await waitText(page.getByTestId('session-status'), 'Active');
      await controllerOf(page, 'human').filter({ hasText: 'Ann' }).waitFor();
    }
    await waitText(ann.getByTestId('my-role'), 'Player');
    assert.equal(await button(dana, 'Let AI control my seat').count(), 0, 'the DM gets no handoff on a player card');

    // --- Ann hands her seat to an AI, with a private instruction
    const instruction = 'Be bold, but never open the red door.';
    await ariaCard(ann).getByRole('button', { name: 'Let AI control my seat' }).click();
    await ann.getByLabel('Temporary instruction for the AI (optional; only the AI sees it)').fill(instruction);
    await button(ann, 'Hand my seat to the AI').click();
    const dialog = ann.getByTestId('token-dialog');
    await dialog.waitFor();
    await dialog.getByText('Store this token now: it will not be shown again.', { exact: false }).waitFor();
    const token = await dialog.getByTestId('ai-token').inputValue();
    assert.match(token, /^at_ai_/);
    assert.equal(await dialog.getByTestId('mcp-url').inputValue(), url('mcp'));
    assert.ok((await dialog.getByTestId('config-claude').inputValue()).includes(`"Authorization": "Bearer ${token}"`));
    assert.ok((await dialog.getByTestId('config-sdk').inputValue()).includes(`pin: '${PROTOCOL}'`));
    await button(ann, 'I stored it — close').click();
    await dialog.waitFor({ state: 'detached' });
    assert.ok(!(await ann.content()).includes(token), 'the token is gone from the page once the dialog closes');
    assert.ok(
      !(await ann.evaluate(() => JSON.stringify({ ...localStorage }))).includes(token),
      'the token is not kept in localStorage',
    );

    // both pages show the seat as AI (not connected yet)
    for (const page of [dana, ann]) {
      await controllerOf(page, 'ai').getByTestId('ai-presence').filter({ hasText: 'not connected yet' }).waitFor();
    }

    // --- the test plays the AI over MCP
    const said = await mcpCall(token, 'post_dialogue', { text: 'The AI speaks for me.' });
    assert.equal(said.status, 200, `MCP post_dialogue: ${said.status} ${said.text}`);
    assert.ok(said.body?.result, `a JSON-RPC result: ${said.text}`);
    assert.notEqual(said.body.result.isError, true, `the tool call succeeded: ${said.text}`);
    for (const page of [dana, ann]) {
      await waitText(chatLine(page, 'The AI speaks for me.').getByTestId('speaker'), 'Aria');
      await controllerOf(page, 'ai').filter({ hasText: 'AI' }).getByTestId('ai-presence').filter({ hasText: /^online$/ }).waitFor();
    }

    // --- Ann takes her seat back
    await ariaCard(ann).getByRole('button', { name: 'Take back control' }).click();
    for (const page of [dana, ann]) {
      await controllerOf(page, 'human').filter({ hasText: 'Ann' }).waitFor();
    }
    await ariaCard(ann).getByRole('button', { name: 'Let AI control my seat' }).waitFor();
    await waitText(ann.getByTestId('my-role'), 'Player');

    // the old token is refused before any tool runs
    const refused = await mcpCall(token, 'post_dialogue', { text: 'Still here?' });
    assert.equal(refused.status, 401, `the revoked token: ${refused.status} ${refused.text}`);
    if (refused.body && typeof refused.body === 'object') {
      const code = refused.body.error?.code ?? refused.body.error?.data?.code;
      assert.ok(['ai_token_revoked', 'ai_grant_not_current_controller'].includes(code), `error code: ${refused.text}`);
    }

    // the instruction never reached the DM
    assert.ok(!(await dana.content()).includes('never open the red door'), 'the instruction is not in the DM’s page');
    assert.ok(
      !JSON.stringify(await api(dana, 'GET', `/api/sessions/${sessionId}/events?after=0`)).includes('red door'),
      'nor in the DM’s events',
    );
    assert.equal(await dana.getByText('Still here?').count(), 0);

    assert.deepEqual(pageErrors, [], 'uncaught errors in the pages');
  });
});
