// A solo adventure played by an AI agent over MCP, the way a real client
// plays it, beside its owner in the browser. The owner creates a token in the
// play screen's Agents drawer (shown once) and hands it to an agent on the
// TypeScript SDK v2 client (@modelcontextprotocol/client, protocol
// 2026-07-28), which lists the tools first and keeps the SDK's output-schema
// validation on (a result that does not match its listed schema throws; error
// results are checked against the same schema here, as the SDK skips them).
// The agent plays six turns against the fake model (each narration streamed to
// it as progress notifications), retries one, forks, edits a story card and
// reads Insights; the web app then shows the same story. A turn the agent
// starts while the owner's turn is being written gets turn_in_progress. The
// owner revokes the token and the agent's next call is refused at once.
// Prints the tool list's bytes and a turn's calls and bytes.
// With AT_AGENTS_SHOTS=<dir> it saves the drawer's screenshots, light and dark.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';
import { axeViolations, chromiumOrSkip, eventually, skipLine, smallTargets, styleElements } from './harness.mjs';
import { exactly, soloJourney } from './solo-setup.mjs';
import { DESKTOP, PHONE, shootBothSchemes } from './table-setup.mjs';

const haveChromium = chromiumOrSkip();
const shotsDir = process.env.AT_AGENTS_SHOTS;
const SOLO_TOOLS = ['branches', 'insights', 'memories', 'read_story', 'retry', 'story_cards', 'switch_take', 'take_turn', 'test_scripts', 'undo'];
const utf8 = (s) => Buffer.byteLength(s ?? '', 'utf8');

// agentFor connects an MCP client with a token, lists the tools and returns
// a caller that counts each call's bytes and checks error results against
// the listed output schema.
async function agentFor(mcpUrl, token) {
  const stats = { wireIn: 0, wireOut: 0 };
  const fetchCounting = async (input, init = {}) => {
    if (typeof init.body === 'string') stats.wireOut += utf8(init.body);
    const res = await fetch(input, init);
    if (!res.body || [204, 205, 304].includes(res.status)) return res;
    const count = new TransformStream({ transform(chunk, ctl) { stats.wireIn += chunk.byteLength; ctl.enqueue(chunk); } });
    return new Response(res.body.pipeThrough(count), { status: res.status, statusText: res.statusText, headers: res.headers });
  };
  const client = new Client({ name: 'solo-agent', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } }, fetch: fetchCounting }));
  assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
  const list = await client.listTools();
  const tools = new Map(list.tools.map((t) => [t.name, t]));
  const validators = new AjvJsonSchemaValidator();
  // call returns the structured result, or { error } for a tool error; with
  // onProgress, the call asks for progress notifications.
  const call = async (name, args = {}, onProgress) => {
    const res = await client.callTool({ name, arguments: args }, onProgress ? { onprogress: onProgress } : undefined);
    const text = res.content?.[0]?.type === 'text' ? res.content[0].text : '';
    if (res.isError) {
      const v = validators.getValidator(tools.get(name).outputSchema)(res.structuredContent);
      assert.ok(v.valid, `${name}: the error result fails the listed schema: ${v.errorMessage}`);
    } else {
      assert.deepEqual(JSON.parse(text), res.structuredContent, `${name}: text and structuredContent differ`);
    }
    return { ...res.structuredContent, bytes: utf8(text) };
  };
  return { client, list, call, stats };
}

describe('an agent plays a solo adventure over MCP', { skip: !haveChromium && skipLine() }, () => {
  const j = soloJourney();
  const { at, button, label, node, newPlayer, pageErrors } = j;

  test('an agent plays, retries, forks, edits a card and reads Insights; the web app shows the same story', async () => {
    const page = await newPlayer(DESKTOP);
    // --- the owner: narrator settings at the fake model, a scenario, an adventure
    await j.pointAtModel(page);
    const api = async (method, path, data) => {
      const res = await page.request.fetch(j.url(path), { method, data });
      assert.ok(res.ok(), `${method} ${path}: ${res.status()} ${await res.text()}`);
      return res.json();
    };
    const sc = await api('POST', '/api/scenarios', {
      title: 'The Lantern Ferry', premise: 'A ferry crossing in the fog.', plot_essentials: '', ai_instructions: '', authors_note: '',
      opening: 'Fog lies on the river. The ferry is late.', stat_schema: {},
      cards: [{ title: 'Ferryman', keys: ['ferryman'], entry: 'Old Brannoc, who never gives change.', type: 'character' }],
      scripts: { library: '', input: '', context: '', output: '' },
    });
    const { adventure } = await api('POST', `/api/scenarios/${sc.id}/play`, { persona_name: 'Mira', persona_pronouns: '', persona_desc: '' });
    await at(page, `solo/adventures/${adventure.id}`);
    await node(page, 'Fog lies on the river. The ferry is late.').waitFor();

    // --- the Agents drawer: a token, shown once, with the MCP URL
    await page.getByRole('button', { name: 'More actions' }).click();
    await page.getByTestId('agents-open').click();
    const drawer = page.getByTestId('agents-panel');
    await drawer.getByText('No tokens yet.').waitFor();
    await label(drawer, 'Name (optional)').fill('Claude Code');
    await button(drawer, 'Create token').click();
    const token = await drawer.getByTestId('ai-token').inputValue();
    assert.match(token, /^at_solo_[a-z2-7]{16}_[A-Za-z0-9_-]{43}$/);
    const mcpUrl = await drawer.getByTestId('mcp-url').inputValue();
    assert.equal(mcpUrl, j.url('/mcp'));
    assert.ok((await drawer.getByTestId('config-sdk').inputValue()).includes("name: 'read_story'"));
    await drawer.getByTestId('agent-grant').filter({ hasText: 'Claude Code' }).filter({ hasText: 'Active' }).waitFor();
    for (const size of [DESKTOP, PHONE]) {
      await page.setViewportSize(size);
      assert.deepEqual(await smallTargets(page), [], `small targets at ${size.width}`);
      assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), true, `no sideways scroll at ${size.width}`);
      await shootBothSchemes(page, shotsDir, 'agents-token');
    }
    await page.setViewportSize(DESKTOP);
    assert.deepEqual(await axeViolations(page), []);
    await button(drawer, 'I stored it').click();
    assert.equal(await drawer.getByTestId('ai-token').count(), 0, 'the token is gone once stored');
    await button(drawer, 'Close').click();

    // --- the agent: lists first, then plays six turns
    const agent = await agentFor(mcpUrl, token);
    const listed = agent.list.tools.map((t) => t.name).sort();
    assert.deepEqual(listed, SOLO_TOOLS, 'a solo token lists the solo tools only');
    const listBytes = utf8(JSON.stringify(agent.list.tools));
    let story = await agent.call('read_story');
    assert.equal(story.title, 'The Lantern Ferry');
    assert.equal(story.turns.at(-1).text, 'Fog lies on the river. The ferry is late.');
    const moves = ['Wave at the ferryman', 'Pay the fare', 'Ask about the lanterns', 'Sit at the bow', 'Watch the water', 'Step ashore'];
    const narrations = [];
    let turnCost = null;
    for (const [i, move] of moves.entries()) {
      const reply = `The ferryman answers move ${i + 1} with a slow nod, and the fog thins a little.`;
      j.model.push({ text: reply });
      const pieces = [];
      const before = { ...agent.stats };
      const res = await agent.call('take_turn', { mode: 'do', text: move }, (p) => pieces.push(p.message));
      assert.equal(res.error, undefined, JSON.stringify(res.error));
      assert.equal(res.narration.text, reply);
      assert.equal(res.player.text.includes(move), true);
      assert.ok(pieces.length >= 2, `turn ${i + 1}: the narration streamed in ${pieces.length} progress notifications`);
      assert.equal(pieces.join(''), reply, 'the progress pieces make the narration');
      narrations.push(res.narration);
      if (i === 0) turnCost = { calls: 1, result: res.bytes, wireIn: agent.stats.wireIn - before.wireIn, wireOut: agent.stats.wireOut - before.wireOut, progress: pieces.length };
    }

    // --- retry the sixth narration: a second take
    j.model.push({ text: 'A second take: the ferryman laughs and waves you off.' });
    const retried = await agent.call('retry');
    assert.equal(retried.narration.take, '2/2');
    assert.deepEqual(retried.narration.take_ids.length, 2);

    // --- fork after the third narration, and play on there
    const forked = await agent.call('branches', { action: 'fork', action_id: narrations[2].id });
    assert.equal(forked.branches.length, 2);
    const playing = forked.branches.find((b) => b.playing);
    assert.equal(playing.fork_depth, narrations[2].depth);
    j.model.push({ text: 'On this branch the ferry turns back to the landing.' });
    const onBranch = await agent.call('take_turn', { mode: 'say', text: 'Turn back!' });
    assert.equal(onBranch.narration.depth, narrations[2].depth + 2);

    // --- edit a story card, read Insights of the branch's narration
    const cards = await agent.call('story_cards');
    const ferryman = cards.cards.find((c) => c.title === 'Ferryman');
    assert.ok(ferryman.last_in, 'the newest prompt held the Ferryman card');
    const edited = await agent.call('story_cards', { action: 'edit', card_id: ferryman.id, entry: 'Old Brannoc, who hums sea shanties.' });
    assert.equal(edited.cards.find((c) => c.id === ferryman.id).entry, 'Old Brannoc, who hums sea shanties.');
    const insights = await agent.call('insights', { action_id: onBranch.narration.id, include_prompt: true });
    assert.ok(insights.sections.length > 0 && insights.total_tokens > 0);
    assert.ok(insights.cards.some((c) => c.title === 'Ferryman' && c.included));
    assert.ok(insights.messages.some((m) => m.content.includes('Turn back!')));
    assert.equal((await agent.call('insights', { action_id: 999999 })).error.code, 'not_found');

    // --- the web app shows the same story: the branch being played, its turns, the edited card
    await page.reload();
    await node(page, 'On this branch the ferry turns back to the landing.').waitFor();
    for (const n of narrations.slice(0, 3)) await node(page, n.text).waitFor();
    assert.equal(await node(page, narrations[3].text).count(), 0, 'the fork left the later turns on the other branch');
    const web = await api('GET', `/api/adventures/${adventure.id}`);
    story = await agent.call('read_story');
    assert.deepEqual(story.turns.map((t) => t.id), web.story.slice(-story.turns.length).map((t) => t.id));
    const webCards = await api('GET', `/api/adventures/${adventure.id}/cards`);
    assert.equal(webCards.cards.find((c) => c.id === ferryman.id).entry, 'Old Brannoc, who hums sea shanties.');

    // --- the owner's turn runs in the browser; the agent's turn meanwhile gets turn_in_progress
    const gate = j.model.push({ text: 'The lanterns flicker as the ferry bumps the landing.', hold: true });
    await page.getByPlaceholder('What do you do?').fill('Hold on tight');
    await button(page, 'Send').click();
    await page.getByRole('button', { name: 'Stop the narrator (the text so far is kept)' }).waitFor();
    const busy = await agent.call('take_turn', { mode: 'do', text: 'Jump off' });
    assert.equal(busy.error?.code, 'turn_in_progress');
    gate.release();
    await node(page, 'The lanterns flicker as the ferry bumps the landing.').waitFor();
    assert.equal(await node(page, 'Jump off').count(), 0, 'the refused turn left nothing');

    // --- revoke in the drawer: the agent's next call is refused at once
    await page.getByRole('button', { name: 'More actions' }).click();
    await page.getByTestId('agents-open').click();
    await drawer.getByTestId('agent-grant').filter({ hasText: 'Claude Code' }).waitFor();
    await drawer.getByTestId('agent-revoke').click();
    await button(drawer, 'Yes, revoke').click();
    await drawer.getByTestId('agent-grant').filter({ hasText: 'Revoked' }).waitFor();
    for (const size of [DESKTOP, PHONE]) {
      await page.setViewportSize(size);
      await shootBothSchemes(page, shotsDir, 'agents-list');
    }
    await page.setViewportSize(DESKTOP);
    await assert.rejects(agent.call('read_story'), (e) => /401|ai_token_revoked|Unauthorized/i.test(String(e?.message ?? e)));
    const raw = await fetch(mcpUrl, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream', 'Mcp-Protocol-Version': '2026-07-28' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }) });
    assert.equal(raw.status, 401);
    assert.match(await raw.text(), /"code":"ai_token_revoked"/);
    await agent.client.close().catch(() => {});

    assert.equal(await styleElements(page), 0);
    assert.deepEqual(pageErrors, []);
    console.log(`solo tools/list: ${agent.list.tools.length} tools, ${listBytes} bytes; a turn: ${turnCost.calls} call, ` +
      `result ${turnCost.result} bytes, ${turnCost.progress} progress notifications, ${turnCost.wireOut} bytes sent, ${turnCost.wireIn} bytes received on the wire`);
  });
});
