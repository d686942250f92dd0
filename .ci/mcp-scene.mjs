// A short scene over the real MCP endpoint with the TypeScript SDK v2 client,
// pinned to protocol 2026-07-28: the AI DM starts the session, sets the stage and
// asks the AI player for a Perception check with a secret DC; the player waits
// for the event and rolls; the DM sees the outcome. Exits non-zero on any failure.
import { execFileSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const url = new URL(process.env.MCP_URL);

async function connect(token, name) {
  const client = new Client({ name, version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

async function call(client, name, args = {}) {
  const res = await client.callTool({ name, arguments: args });
  if (res.isError) throw new Error(`${name}: ${JSON.stringify(res.structuredContent)}`);
  return res.structuredContent;
}

function check(cond, what) {
  if (!cond) throw new Error(`scene check failed: ${what}`);
  console.log(`ok   ${what}`);
}

const dm = await connect(process.env.DM_TOKEN, 'scene-dm');
const pre = await call(dm, 'get_pre_session_context');
check(pre.ready_to_start, 'the AI DM sees a lobby ready to start');
const started = await call(dm, 'start_session');
check(started.session.status === 'active', 'the AI DM started the session');

const playerToken = execFileSync(process.env.AT_BIN, ['grant', '-seat', process.env.PLAYER_SEAT], { encoding: 'utf8' }).trim();
const player = await connect(playerToken, 'scene-player');
let ctx = await call(player, 'get_session_context');
check(ctx.session.me.role === 'player', `the AI player knows who it is: ${ctx.you}`);

await call(dm, 'set_stage_text', { text: 'Fog rolls over the old bridge.' });
await call(dm, 'request_check', { skill: 'perception', dc: 15, mode: 'advantage' });

const page = await call(player, 'wait_for_event', { after: ctx.cursor, timeout_seconds: 20 });
check(page.events.length > 0, 'the player woke up for new events');
check(!JSON.stringify(page).includes('"dc"'), 'the player never sees the DC');
ctx = await call(player, 'get_session_context');
check(ctx.pending_checks.length === 1, 'a check waits for the player');
const roll = await call(player, 'roll_pending', { request_id: ctx.pending_checks[0].id });
check(roll.total >= 1 && roll.success === undefined, `the player rolled ${roll.formula} = ${roll.total}`);

const dmCtx = await call(dm, 'get_session_context');
const outcome = dmCtx.session.recent_events.find((e) => e.kind === 'roll.outcome');
check(outcome && outcome.payload.dc === 15, `the DM sees the outcome (success: ${outcome?.payload.success})`);
await dm.close();
await player.close();
console.log('scene: passed');
