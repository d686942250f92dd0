// AI at the table, end to end: the DM and one player (two browser contexts,
// two guests) on the real server binary. The player hands their seat to an
// AI with a private instruction and reads the token from the one-time
// dialog; the test then plays the AI over MCP with plain fetch: its line
// reaches both pages live and the card shows the seat as AI. The player
// takes the seat back; the old token is refused (ai_token_revoked, reason taken_back). The instruction never
// reaches the DM's page. No reloads, no fixed sleeps.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chromiumOrSkip, skipLine } from './harness.mjs';
import { button, character, chatLine, escapeRe, tableJourney, waitText } from './table-setup.mjs';

const haveChromium = chromiumOrSkip();

const PROTOCOL = '2026-07-28';

describe('AI handoff journey', { skip: !haveChromium && skipLine() }, () => {
  const { url, at, person, api, setUpTable, pageErrors } = tableJourney();

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

    // --- room, campaign, a player seat for Ann with her character, the DM seat for Dana, lobby, start
    const { sessionId } = await setUpTable({
      dm: { page: dana, name: 'Dana' },
      players: [{ page: ann, name: 'Ann', seat: 'Seat A', character: character('Aria') }],
      room: 'AI room',
      campaign: 'Machine Dreams',
      start: true,
    });

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
    const said = await mcpCall(token, 'post_message', { text: 'The AI speaks for me.' });
    assert.equal(said.status, 200, `MCP post_message: ${said.status} ${said.text}`);
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

    // the old token is refused: the tool says why, so the agent knows it was taken back
    const refused = await mcpCall(token, 'post_message', { text: 'Still here?' });
    assert.equal(refused.status, 200, `the revoked token: ${refused.status} ${refused.text}`);
    const failure = refused.body?.result;
    assert.equal(failure?.isError, true, `a refused tool call: ${refused.text}`);
    assert.equal(failure.structuredContent?.error?.code, 'ai_token_revoked', `error code: ${refused.text}`);
    assert.equal(failure.structuredContent.error.details?.reason, 'taken_back', `the reason: ${refused.text}`);

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
