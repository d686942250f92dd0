// A four-seat scene over the real MCP endpoint, played the way real clients play:
//   * an AI DM and two AI players on the TypeScript SDK v2 client (@modelcontextprotocol/client),
//     pinned to protocol 2026-07-28; one human player over the HTTP API with the web app's cookie;
//   * the v1 SDK (@modelcontextprotocol/sdk) at its default 2025-11-25 calling every read tool.
// Every client lists the tools first and keeps the SDK's output-schema validation on (a result
// that does not match its tool's listed outputSchema makes the SDK throw); error results are
// validated against the same schema here, since the SDK v2 skips them.
// Steps: pre-session context and start; whispers both ways (the other player never sees them);
// a two-round fight the AI DM runs with a hidden NPC (no player reads its AC or HP);
// narration and NPC speech; a check with a secret DC rolled by an AI and entered as physical dice
// by the human (no player sees a DC before the check is settled, only its commitment, and then the
// revealed DC opens it; the DM sees the outcomes), a cancelled check; damage
// (HP change visible); DM proxy; a seat handed to an AI and taken back (old token refused:
// ai_token_revoked / taken_back); session end wakes a wait in flight with session.ended, then
// every token is refused with session_ended. Prints calls and bytes per agent. Exits non-zero on
// any failure.
//
// Env: MCP_URL, BASE (the web origin), JAR (curl cookie jar of the human), DM_TOKEN, AT_BIN,
// SESSION_ID, SEAT_HUMAN, SEAT_B, SEAT_C (player seats; characters Aria, Borin, Cyra, 20 HP).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

process.on('uncaughtException', (e) => { console.error(`FAIL ${e?.message ?? e}`); try { summary(); } catch {} process.exit(1); });
const env = (k) => { const v = process.env[k]; if (!v) throw new Error(`scene: set ${k}`); return v; };
const url = new URL(env('MCP_URL'));
const BASE = env('BASE');
const SID = Number(env('SESSION_ID'));
const SEAT = { A: Number(env('SEAT_HUMAN')), B: Number(env('SEAT_B')), C: Number(env('SEAT_C')) };

// The tool surface (issues 12 and 19); tools/list must offer every one of them.
const TOOLS = ['get_pre_session_context', 'session', 'get_session_context', 'wait_for_event',
  'get_character_context', 'post_message', 'quick_roll', 'roll_check', 'declare_action', 'update_character_state',
  'set_stage', 'request_check', 'cancel_check', 'action_window', 'adjudicate_action', 'fight', 'journal'];

function check(cond, what, detail) {
  if (!cond) throw new Error(`scene check failed: ${what}${detail === undefined ? '' : `\n  got: ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`.slice(0, 1500)}`);
  console.log(`ok   ${what}`);
}
const utf8 = (s) => Buffer.byteLength(s ?? '', 'utf8');
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// HP as a number whatever its shape: 15, "15/20", {current: 15, max: 20}.
const hpOf = (hp) => (typeof hp === 'number' ? hp : typeof hp === 'string' ? parseInt(hp, 10) : hp && typeof hp === 'object' ? hp.current : NaN);
// commitmentOf is a secret DC's commitment (gameplay/table/commitment.go).
const commitmentOf = (dc, salt) => createHash('sha256').update(`adventure-table-dc-v1:${dc}:${salt}`).digest('hex');
// hasDC finds a DC a player must not read: any "dc" but a revealed one, which
// comes with the salt that opens its commitment.
const hasDC = (s) => {
  if (!/"dc"\s*:/.test(s)) return false;
  let doc;
  try { doc = JSON.parse(s); } catch { return true; }
  const secret = (v) => Array.isArray(v) ? v.some(secret) : v && typeof v === 'object'
    ? ('dc' in v && !(typeof v.dc_salt === 'string' && commitmentOf(v.dc, v.dc_salt) === v.dc_commitment)) || Object.values(v).some(secret)
    : false;
  return secret(doc);
};

// A fetch that counts the bytes on the wire and remembers the protocol version sent.
function countingFetch(stats) {
  return async (input, init = {}) => {
    const body = init.body;
    if (typeof body === 'string') stats.wireOut += utf8(body);
    else if (body?.byteLength) stats.wireOut += body.byteLength;
    const version = new Headers(init.headers).get('mcp-protocol-version');
    if (version) stats.protocol = version;
    const res = await fetch(input, init);
    if (!res.body || [204, 205, 304].includes(res.status)) return res;
    const count = new TransformStream({ transform(chunk, ctl) { stats.wireIn += chunk.byteLength; ctl.enqueue(chunk); } });
    return new Response(res.body.pipeThrough(count), { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

const agents = [];
const validators = new AjvJsonSchemaValidator();

class Agent {
  constructor(name, token, { sdk = 'v2', player = false } = {}) {
    Object.assign(this, { name, token, sdk, player, cursor: 0, seen: [] });
    this.stats = { calls: 0, lists: 0, text: 0, maxText: 0, maxTool: '', wireIn: 0, wireOut: 0, protocol: '' };
    this.transcript = '';
    agents.push(this);
  }

  async connect() {
    const opts = { requestInit: { headers: { Authorization: `Bearer ${this.token}` } }, fetch: countingFetch(this.stats) };
    if (this.sdk === 'v2') {
      this.client = new ClientV2({ name: this.name, version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
      await this.client.connect(new TransportV2(url, opts));
      check(this.client.getNegotiatedProtocolVersion() === '2026-07-28', `${this.name}: SDK v2 negotiated 2026-07-28`);
    } else {
      this.client = new ClientV1({ name: this.name, version: '1.0.0' });
      await this.client.connect(new TransportV1(url, opts));
    }
    // Real clients list first: the listing is what the SDK validates results against.
    const list = await this.client.listTools();
    this.stats.lists++;
    this.tools = new Map(list.tools.map((t) => [t.name, t]));
    const missing = TOOLS.filter((t) => !this.tools.has(t));
    check(missing.length === 0, `${this.name}: tools/list offers all ${TOOLS.length} tools (${list.tools.length} listed)`, `missing: ${missing.join(', ')}`);
    if (this.sdk === 'v1') check(this.stats.protocol === '2025-11-25', `${this.name}: SDK v1 speaks 2025-11-25`, this.stats.protocol);
    return list;
  }

  // One tools/call; returns the raw result after the checks every result must pass.
  async raw(tool, args = {}) {
    this.stats.calls++;
    let res;
    try {
      res = await this.client.callTool({ name: tool, arguments: args });
    } catch (e) {
      throw new Error(`${this.name}: ${tool} ${JSON.stringify(args)} threw (SDK ${this.sdk}): ${e?.message ?? e}`);
    }
    const text = res.content?.[0]?.type === 'text' ? res.content[0].text : '';
    const n = utf8(text);
    this.stats.text += n;
    if (n > this.stats.maxText) Object.assign(this.stats, { maxText: n, maxTool: tool });
    this.transcript += text + '\n';
    const sc = res.structuredContent;
    // A success's text is the JSON of structuredContent; an error's text names its code.
    let parsed;
    try { parsed = JSON.parse(text); } catch { parsed = undefined; }
    if (sc === undefined || (res.isError ? !text.includes(sc.error?.code) : !isDeepStrictEqual(parsed, sc))) {
      throw new Error(`${this.name}: ${tool}: content[0].text does not match structuredContent: ${text.slice(0, 300)}`);
    }
    if (res.isError) {
      // The SDK v2 validates successes only; an error must match the listed schema too.
      const schema = this.tools.get(tool)?.outputSchema;
      if (schema) {
        const v = validators.getValidator(schema)(sc);
        if (!v.valid) throw new Error(`${this.name}: ${tool} ${JSON.stringify(args)}: error result fails the listed outputSchema: ${v.errorMessage}\n  result: ${text.slice(0, 600)}`);
      }
    }
    if (tool === 'get_session_context' && !res.isError) {
      const unknown = (sc.next ?? []).map((n) => n.tool).filter((t) => !this.tools.has(t));
      if (unknown.length) throw new Error(`${this.name}: get_session_context next names tools not listed: ${unknown.join(', ')}`);
    }
    if (this.player && hasDC(text)) throw new Error(`${this.name}: a player saw a DC in ${tool}: ${text.slice(0, 600)}`);
    return res;
  }

  async call(tool, args = {}) {
    const res = await this.raw(tool, args);
    if (res.isError) throw new Error(`${this.name}: ${tool} ${JSON.stringify(args)} failed: ${JSON.stringify(res.structuredContent)}`);
    return res.structuredContent;
  }

  // A call that must fail with the given code; returns the error object.
  async refused(tool, args, code) {
    const res = await this.raw(tool, args);
    const err = res.structuredContent?.error;
    check(res.isError && err?.code === code, `${this.name}: ${tool} refused with ${code}${err?.details?.reason ? ` (${err.details.reason})` : ''}`, res.structuredContent ?? res.content);
    return err;
  }

  async context() {
    const ctx = await this.call('get_session_context');
    this.cursor = Math.max(this.cursor, ctx.cursor);
    return ctx;
  }

  // Waits (wait_for_event from the agent's cursor) until an event matches; returns it.
  async until(pred, what, seconds = 20) {
    const deadline = Date.now() + seconds * 1000;
    for (;;) {
      const hit = this.seen.find(pred);
      if (hit) return hit;
      const left = Math.ceil((deadline - Date.now()) / 1000);
      if (left <= 0) throw new Error(`${this.name}: no event for "${what}" within ${seconds}s; seen: ${JSON.stringify(this.seen.slice(-8))}`);
      const page = await this.call('wait_for_event', { after: this.cursor, timeout_seconds: Math.min(left, 10) });
      this.seen.push(...(page.events ?? []));
      this.cursor = page.cursor;
    }
  }

  summary() {
    const s = this.stats;
    const mean = s.calls ? Math.round(s.text / s.calls) : 0;
    return `${this.name.padEnd(16)} ${String(s.calls).padStart(3)} calls (+${s.lists} tools/list)  tool text ${kb(s.text)}, mean ${mean} B, max ${s.maxText} B (${s.maxTool})  wire in ${kb(s.wireIn)} out ${kb(s.wireOut)}`;
  }
}

// The human: the web app's HTTP API with the cookie from the setup's curl jar.
const human = {
  name: 'human (HTTP)', calls: 0, bytes: 0, transcript: '',
  cookies: new Map(readFileSync(env('JAR'), 'utf8').split('\n')
    .map((l) => l.replace(/^#HttpOnly_/, '')).filter((l) => l && !l.startsWith('#'))
    .map((l) => l.split('\t')).filter((f) => f.length >= 7).map((f) => [f[5], f[6]])),
  async api(method, path, body) {
    this.calls++;
    const res = await fetch(BASE + path, { method, body: body === undefined ? undefined : JSON.stringify(body),
      headers: { 'Content-Type': 'application/json', Cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } });
    for (const c of res.headers.getSetCookie?.() ?? []) { const [kv] = c.split(';'); const i = kv.indexOf('='); this.cookies.set(kv.slice(0, i), kv.slice(i + 1)); }
    const text = await res.text();
    this.bytes += utf8(text);
    this.transcript += text + '\n';
    if (!res.ok) throw new Error(`human: ${method} ${path} → HTTP ${res.status}: ${text.slice(0, 600)}`);
    if (hasDC(text)) throw new Error(`human: a player saw a DC in ${method} ${path}: ${text.slice(0, 600)}`);
    return text ? JSON.parse(text) : null;
  },
};
const grant = (seat) => execFileSync(env('AT_BIN'), ['grant', '-seat', String(seat)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
const isMsg = (text) => (e) => e.kind === 'message.posted' && e.text === text;

// ---- the v1 SDK at 2025-11-25 before the session: the DM's pre-session read ----------------
const v1dm = new Agent('v1 DM', env('DM_TOKEN'), { sdk: 'v1' });
await v1dm.connect();
const pre1 = await v1dm.call('get_pre_session_context');
check(pre1.ready_to_start === true, 'v1 DM: get_pre_session_context says ready to start', pre1);
await v1dm.client.close();

// ---- AI DM: pre-session context and start ------------------------------------------------
const dm = new Agent('AI DM', env('DM_TOKEN'));
const listing = await dm.connect();
{
  const whole = utf8(JSON.stringify(listing));
  const visible = utf8(JSON.stringify(listing.tools.map(({ name, title, description, inputSchema }) => ({ name, title, description, inputSchema }))));
  console.log(`info tools/list: ${listing.tools.length} tools, ${whole} B whole, ${visible} B model-visible (names, titles, descriptions, input schemas)`);
}
const pre = await dm.call('get_pre_session_context');
check(pre.ready_to_start === true && pre.dm_seat_id > 0, `AI DM sees a lobby ready to start (campaign ${JSON.stringify(pre.campaign)})`, pre);
const started = await dm.call('session', { action: 'start' });
check((started.status ?? started.session?.status) === 'active', 'AI DM started the session', started);
let dctx = await dm.context();
check(dctx.role === 'dm' && dctx.session.status === 'active', `AI DM reads its context: ${dctx.you}`, dctx);
check(['A', 'B', 'C'].every((k) => (dctx.seats ?? []).some((s) => s.seat_id === SEAT[k] && s.playing)), 'all three player seats are playing', dctx.seats);

// ---- two AI players (operator grants), the human on HTTP -----------------------------------
const pb = new Agent('AI player Borin', grant(SEAT.B), { player: true });
const pc = new Agent('AI player Cyra', grant(SEAT.C), { player: true });
await pb.connect();
await pc.connect();
for (const [p, seat] of [[pb, SEAT.B], [pc, SEAT.C]]) {
  const ctx = await p.context();
  check(ctx.role === 'player' && ctx.seat_id === seat && ctx.session.status === 'active', `${p.name} knows who it is: ${ctx.you}`, ctx);
}
const resume = await human.api('GET', `/api/sessions/${SID}`);
check(resume.session.status === 'active', 'the human sees the active session over HTTP', resume.session);
dctx = await dm.context();

// ---- whispers both ways; the other player never sees them ----------------------------------
const W1 = 'DM to Borin: the innkeeper is lying.';
const W2 = 'Borin to DM: I palm the key while nobody looks.';
await dm.call('post_message', { kind: 'whisper', seat_id: SEAT.B, text: W1 });
let e = await pb.until(isMsg(W1), 'the DM whisper');
check(e.msg === 'whisper' && e.by === 'DM', `Borin got the DM's whisper (by ${e.by}, to ${e.to})`, e);
await pb.call('post_message', { kind: 'whisper', text: W2 });
e = await dm.until(isMsg(W2), "Borin's whisper");
check(e.msg === 'whisper' && /Borin/.test(e.by ?? ''), `the DM got Borin's whisper (by ${e.by})`, e);

// ---- the journal: an entry for Borin alone, Borin's proposal the DM confirms --------------
const J1 = 'Old Tom owes the river thieves forty silver.';
const forBorin = await dm.call('journal', { action: 'add', kind: 'clue', title: 'Old Tom is lying', text: J1, audience: 'seats', seat_ids: [SEAT.B] });
check(forBorin.entries[0].confirmed && forBorin.entries[0].audience === 'seats', 'AI DM wrote a journal entry for Borin alone', forBorin);
const proposal = await pb.call('journal', { action: 'add', kind: 'npc', title: 'Old Tom', text: 'Keeps the Drowned Lantern.' });
check(!proposal.entries[0].confirmed && proposal.entries[0].by_seat_id === SEAT.B, "Borin proposed a journal entry (unconfirmed, his)", proposal);
await pb.refused('journal', { action: 'confirm', entry_id: proposal.entries[0].entry_id }, 'journal_dm_required');
await dm.call('journal', { action: 'confirm', entry_id: proposal.entries[0].entry_id });
const bj = await pb.call('journal', { action: 'list' });
check(bj.entries.some((x) => x.text === J1), 'Borin reads the entry written for him', bj);
const cj = await pc.call('journal', { action: 'list', kind: 'npc' });
check(cj.entries.length === 1 && cj.entries[0].confirmed && cj.entries[0].title === 'Old Tom', 'Cyra reads the confirmed NPC', cj);
const hj = await human.api('GET', `/api/campaigns/${resume.session.campaign_id}/journal`);
check(!pc.transcript.includes(J1), "Cyra never reads Borin's entry", pc.transcript);
// The human owns the room: room authority keeps the journal as the DM does (as it reads the world's plot).
check(hj.dm === true && hj.entries.length === 2, 'the room owner keeps the whole journal', hj);

// ---- narration and NPC speech -----------------------------------------------------------
const N1 = 'Rain hammers the shutters of the Drowned Lantern.';
const N2 = 'Rooms are two silver a night, and no questions.';
await dm.call('post_message', { text: N1 });
await dm.call('post_message', { speaker: 'Old Tom', text: N2 });
e = await pc.until(isMsg(N2), 'the NPC line');
const n1 = pc.seen.find(isMsg(N1));
check(n1?.msg === 'narration' && n1.by === 'DM', 'Cyra sees the narration from "DM"', n1);
check(e.msg === 'npc' && /Old Tom/.test(e.by ?? ''), `Cyra sees the NPC line by "${e.by}"`, e);
check(!pc.transcript.includes(W1) && !pc.transcript.includes(W2) && !pc.seen.some((x) => x.msg === 'whisper'), 'Cyra never saw either whisper');
const hev = await human.api('GET', `/api/sessions/${SID}/events?after=0`);
check(JSON.stringify(hev).includes(N1) && !human.transcript.includes(W1) && !human.transcript.includes(W2), 'the human sees the narration and neither whisper');
await pb.until(isMsg(N2), 'the NPC line');

// ---- a check with a secret DC: AI rolls, the human enters physical dice, one cancelled ----
const asked = await dm.call('request_check', { skill: 'perception', dc: 12, label: 'Spot the hidden door' });
const reqOf = (seat) => asked.checks.find((c) => c.seat_id === seat)?.request_id;
check(asked.checks.length === 3 && asked.checks.every((c) => c.dc === 12) && reqOf(SEAT.A) && reqOf(SEAT.B) && reqOf(SEAT.C),
  'the DM asked every seat for Perception at a secret DC 12', asked);
const cancelled = await dm.call('cancel_check', { request_id: reqOf(SEAT.C) });
check(cancelled !== undefined, "the DM cancelled Cyra's check", cancelled);

await pb.until((x) => x.kind === 'roll.requested', 'the check request');
const bctx = await pb.context();
const mine = (bctx.checks ?? []).find((c) => c.request_id === reqOf(SEAT.B));
check(mine && mine.seat_id === SEAT.B && mine.dc === undefined && /^[0-9a-f]{64}$/.test(mine.dc_commitment ?? ''),
  'a check waits for Borin, without its DC, with its commitment', bctx);
const roll = await pb.call('roll_check', { request_id: mine.request_id });
check(roll.total >= 1 && roll.success === undefined, `Borin rolled ${roll.formula} = ${roll.total} (outcome hidden)`, roll);

const board = await human.api('GET', `/api/sessions/${SID}/rolls`);
const hreq = board.requests.find((r) => r.id === reqOf(SEAT.A));
check(hreq && hreq.status === 'pending' && hreq.dc === undefined, `the human sees their check pending (${hreq?.dice_needed} d20), no DC`, hreq);
const physical = await human.api('POST', `/api/roll-requests/${hreq.id}/physical`, { faces: Array(hreq.dice_needed).fill(3) });
check(physical.total >= 3 && physical.total < 12, `the human entered a physical 3: total ${physical.total}`, physical);

const outcome = (rid) => (x) => x.kind === 'roll.outcome' && x.data?.request_id === rid;
const oB = await dm.until(outcome(reqOf(SEAT.B)), "Borin's outcome");
const oA = await dm.until(outcome(reqOf(SEAT.A)), "the human's outcome");
check(oB.data.dc === 12 && typeof oB.data.success === 'boolean' && oB.data.success === (roll.total >= 12), `the DM sees Borin's outcome: ${oB.data.success ? 'success' : 'failure'}`, oB);
check(oA.data.dc === 12 && oA.data.success === false, `the DM sees the human's outcome: ${oA.data.success ? 'success' : 'failure'}`, oA);
// every check of the request is settled: Borin's roll.revealed opens the commitment he was shown
const revealed = await pb.until((x) => x.kind === 'roll.revealed' && x.data?.request_id === mine.request_id, "Borin's revealed DC");
check(revealed.data.dc === 12 && revealed.data.dc_commitment === mine.dc_commitment && commitmentOf(revealed.data.dc, revealed.data.dc_salt) === mine.dc_commitment,
  'the DC revealed to Borin (12) matches the commitment he saw before rolling', revealed);
await pc.until((x) => x.kind === 'roll.cancelled', 'the cancelled check');
const cctx = await pc.context();
check(!(cctx.checks ?? []).some((c) => c.seat_id === SEAT.C), 'no check waits for Cyra after the cancel', cctx.checks);

// ---- damage: the HP change is visible ----------------------------------------------------
const dmg = await dm.call('update_character_state', { seat_id: SEAT.B, op: 'damage', amount: 5 });
check(hpOf(dmg.hp) === 15 && dmg.seat_id === SEAT.B, `the DM dealt 5 damage to Borin: HP ${JSON.stringify(dmg.hp)}`, dmg);
check(dmg.character === 'Borin', 'update_character_state names the character it changed', dmg);
const sheet = await pb.call('get_character_context');
check(hpOf(sheet.hp ?? sheet.character?.hp) === 15, 'Borin reads 15 HP on its sheet', sheet);
dctx = await dm.context();
check(hpOf((dctx.seats ?? []).find((s) => s.seat_id === SEAT.B)?.hp) === 15, "the DM's table shows Borin at 15 HP", dctx.seats);

// ---- the v1 SDK at 2025-11-25 calls every read tool, as a player and as the DM -------------
for (const [who, token, sheetArgs] of [['v1 Borin', pb.token, {}], ['v1 DM', dm.token, { seat_id: SEAT.B }]]) {
  const v1 = who === 'v1 DM' ? v1dm : new Agent(who, token, { sdk: 'v1', player: true });
  await v1.connect();
  const ctx = await v1.context();
  const page = await v1.call('wait_for_event', { after: 0, timeout_seconds: 0 });
  const waited = await v1.call('wait_for_event', { after: ctx.cursor, timeout_seconds: 1 });
  const ch = await v1.call('get_character_context', sheetArgs);
  check(page.events?.length > 0 && waited.cursor >= ctx.cursor && hpOf(ch.hp ?? ch.character?.hp) === 15,
    `${who}: get_session_context, wait_for_event now (${page.events?.length}) and 1 s, get_character_context validate`);
  await v1.client.close();
}

// ---- DM proxy: the DM speaks for a player seat --------------------------------------------
const P1 = 'Cyra mutters: "I do not like this place."';
await dm.call('post_message', { seat_id: SEAT.C, text: P1 });
e = await pc.until(isMsg(P1), 'the proxied line');
check(/^DM for /.test(e.by ?? '') && /Cyra/.test(e.by), `Cyra sees the DM speak for her (by "${e.by}")`, e);

// ---- a two-round fight run by the AI DM: Borin (AI) and Aria (the human, over HTTP) against a
// hidden NPC (AC 93, HP 9173); initiative, turns, a hit with damage and a miss, the NPC's own
// attack; no player ever reads the NPC's numbers, and Borin learns whose turn it is from his context.
const secretHP = /[:\[, "\/]9173[,}\]\/" ]/;
const secretAC = /"ac"\s*:\s*93\b|\bAC 93\b/;
const leaks = (s) => secretHP.test(s) || secretAC.test(s);
const born = await dm.call('fight', { action: 'start', name: 'Cellar ambush', seat_ids: [SEAT.A, SEAT.B],
  npcs: [{ name: 'Shadow Ogre', ac: 93, hp: 9173 }] });
check(born.encounter?.phase === 'initiative' && born.encounter.order?.length === 3 && leaks(JSON.stringify(born)),
  'the AI DM started a fight with Aria, Borin and a hidden Shadow Ogre (the DM sees its AC and HP)', born);
const seatB = `seat:${SEAT.B}`, seatA = `seat:${SEAT.A}`;
let fctx = await pb.context();
check(fctx.encounter?.phase === 'initiative' && (fctx.next ?? []).some((n) => n.tool === 'fight' && n.args?.action === 'initiative' && n.args?.combatant_id === seatB),
  'Borin is told to roll initiative for his combatant', fctx);
const ogreSeen = fctx.encounter.order.find((c) => c.id === 'npc:1');
check(ogreSeen?.hidden === true && ogreSeen.hp === undefined && ogreSeen.ac === undefined, 'Borin sees the ogre without its AC or HP', ogreSeen);
await pb.refused('fight', { action: 'initiative', combatant_id: seatA }, 'not_your_combatant');
await pb.call('fight', { action: 'initiative', combatant_id: seatB, faces: [15] });
await human.api('POST', `/api/sessions/${SID}/encounter/initiative`, { combatant_id: seatA, faces: [12] });
await pb.refused('fight', { action: 'end_turn' }, 'not_your_turn');
let fought = await dm.call('fight', { action: 'end_turn' });
check(fought.encounter.phase === 'fighting' && fought.encounter.round === 1, `the AI DM began round 1: ${fought.encounter.turn_name} goes first`, fought.encounter);
const borinFaces = [20, 2]; // AC 93: only a natural 20 hits
let turns = 0;
while (fought.encounter.round <= 2) {
  if (++turns > 10) throw new Error('the fight does not move on');
  const turn = fought.encounter.turn;
  if (turn === seatB) {
    fctx = await pb.context();
    check(fctx.encounter?.your_turn === true && fctx.encounter.turn === seatB && fctx.encounter.turn_name === 'Borin'
      && (fctx.next ?? []).some((n) => n.tool === 'fight' && n.args?.action === 'attack'), `round ${fctx.encounter?.round}: Borin reads that it is his turn`, fctx.encounter);
    const face = borinFaces.shift();
    const hit = await pb.call('fight', { action: 'attack', combatant_id: seatB, target_id: 'npc:1', weapon: 'Battleaxe', bonus: 5, damage: '1d8+3', damage_type: 'slashing', faces: [face] });
    check(hit.attack?.hit === (face === 20) && (face === 20) === (hit.attack?.damage > 0),
      `Borin attacks the ogre with a natural ${face}: ${hit.attack?.hit ? `hit for ${hit.attack.damage}` : 'miss'} (the AC stays secret)`, hit);
    fought = await pb.call('fight', { action: 'end_turn' });
  } else if (turn === seatA) {
    const view = await human.api('GET', `/api/sessions/${SID}/encounter`);
    check(view.encounter?.current_id === seatA, `round ${view.encounter?.round}: the human sees it is Aria's turn`, view.encounter);
    fought = { encounter: (await human.api('POST', `/api/sessions/${SID}/encounter/advance`)).encounter };
    fought.encounter.turn = fought.encounter.current_id;
  } else if (turn === 'npc:1') {
    dctx = await dm.context();
    check(dctx.encounter?.your_turn === true && (dctx.next ?? []).some((n) => n.tool === 'fight' && n.args?.combatant_id === 'npc:1'),
      `round ${dctx.encounter?.round}: the AI DM is told to play the ogre`, dctx.encounter);
    fctx = await pb.context();
    check(fctx.encounter?.your_turn !== true && fctx.encounter?.turn_name === 'Shadow Ogre', "Borin reads that it is the ogre's turn, not his", fctx.encounter);
    const blow = await dm.call('fight', { action: 'attack', combatant_id: 'npc:1', target_id: seatB, weapon: 'Greatclub', bonus: 4, damage: '1d4', faces: [15] });
    check(blow.attack?.hit === true, `the ogre hits Borin for ${blow.attack?.damage}`, blow.attack);
    fought = await dm.call('fight', { action: 'end_turn' });
  } else {
    throw new Error(`whose turn? ${turn}`);
  }
}
check(borinFaces.length === 0, 'Borin attacked once in each of two rounds');
const over = await dm.call('fight', { action: 'end' });
check(over.encounter?.phase === 'ended', 'the AI DM ended the fight');
e = await pb.until((x) => x.kind === 'encounter.ended', 'the end of the fight');
check(e.data?.summary?.rounds >= 2, `Borin reads the fight's summary (${e.data?.summary?.rounds} rounds)`, e);
fctx = await pb.context();
check(fctx.encounter === undefined, 'the fight is gone from Borin\'s context', fctx.encounter);
await human.api('GET', `/api/sessions/${SID}/events?after=0&limit=200`);
await pc.until((x) => x.kind === 'encounter.ended', 'the end of the fight');
for (const [who, text] of [[pb.name, pb.transcript], [pc.name, pc.transcript], [human.name, human.transcript]]) {
  check(!leaks(text), `${who} never read the ogre's AC or HP`, (text.match(secretHP) ?? text.match(secretAC) ?? [''])[0]);
}
check(leaks(dm.transcript), "the DM did read the ogre's AC and HP");

// ---- handoff and take-back: the old token is refused ---------------------------------------
const minted = await human.api('POST', `/api/seats/${SEAT.A}/handoff`, { temporary_instruction: 'Keep Aria quiet and watchful.' });
check(minted.token?.startsWith('at_ai_'), 'the human handed their seat to an AI (token shown once)');
const pa = new Agent('AI for Aria', minted.token, { player: true });
await pa.connect();
const actx = await pa.context();
check(actx.seat_id === SEAT.A && actx.role === 'player' && /quiet/.test(actx.instruction ?? ''), 'the AI holds Aria with the temporary instruction', actx);
const T1 = 'Aria watches the door without a word.';
await pa.call('post_message', { kind: 'action', text: T1 });
e = await dm.until(isMsg(T1), "the AI's line for Aria");
check(/Aria/.test(e.by ?? ''), `the DM sees Aria act (by "${e.by}")`, e);
await human.api('POST', `/api/seats/${SEAT.A}/take-back`);
const revoked = await pa.refused('get_session_context', {}, 'ai_token_revoked');
check(revoked.details?.reason === 'taken_back', 'the refusal says why: taken_back', revoked);
const H1 = 'Aria: "I will take it from here."';
await human.api('POST', `/api/sessions/${SID}/messages`, { kind: 'say', text: H1 });
await dm.until(isMsg(H1), "the human's line");
await pc.until(isMsg(H1), "the human's line");

// ---- the end: a wait in flight receives session.ended; then every token is refused ---------
const inflight = pc.call('wait_for_event', { after: pc.cursor, timeout_seconds: 30 });
await sleep(500);
const ended = await dm.call('session', { action: 'end' });
check(ended !== undefined, 'the AI DM ended the session');
const woke = await inflight;
check((woke.events ?? []).some((x) => x.kind === 'session.ended'), "Cyra's wait in flight received session.ended", woke);
for (const a of [dm, pb, pc]) {
  const err = await a.refused('get_session_context', {}, 'session_ended');
  check(err.code === 'session_ended', `${a.name}: refused after the end`);
}
await pb.refused('post_message', { text: 'Hello?' }, 'session_ended');
const late = await pa.raw('get_session_context');
console.log(`info the taken-back token after the end: ${late.structuredContent?.error?.code} (${late.structuredContent?.error?.details?.reason ?? '-'})`);
const after = await human.api('GET', `/api/sessions/${SID}`);
check(after.session.status === 'ended', 'the human sees the session ended');

for (const a of [dm, pb, pc, pa]) await a.client.close();
summary();
console.log('scene: passed');

function summary() {
  console.log('\ncalls and bytes per agent (tool text = content[0].text, what a model reads; wire includes tools/list):');
  for (const a of agents) console.log('  ' + a.summary());
  console.log(`  ${human.name.padEnd(16)} ${String(human.calls).padStart(3)} requests, ${kb(human.bytes)} of responses`);
}
