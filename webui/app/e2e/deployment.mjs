// The production deployment for the browser journeys (README "Running in
// production"): Caddy with the repository's deploy/Caddyfile and its own CA
// (tls internal) in front of two server processes on one fresh PostgreSQL
// database (AT_TEST_POSTGRES_DSN), round-robin with no stickiness.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from './harness.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

// deploymentMissing says what the deployment needs and this machine lacks,
// or '' when it can run.
export function deploymentMissing() {
  if (!process.env.AT_TEST_POSTGRES_DSN) return 'AT_TEST_POSTGRES_DSN is not set';
  if (spawnSync('caddy', ['version']).status !== 0) return 'caddy is not installed (apt-get install -y caddy)';
  return '';
}

// deploymentRequired: AT_TEST_REQUIRE contains "proxy" (CI).
export const deploymentRequired = () => (process.env.AT_TEST_REQUIRE || '').split(',').includes('proxy');

const freePort = () =>
  new Promise((ok, fail) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => ok(port));
    });
    srv.on('error', fail);
  });

// healthy resolves once url answers /api/health through TLS signed by ca.
async function healthy(url, caFile, deadline) {
  for (;;) {
    const ok = await new Promise((done) => {
      if (!existsSync(caFile)) return done(false);
      https
        .get(new URL('api/health', url), { ca: readFileSync(caFile) }, (res) => {
          res.resume();
          done(res.statusCode === 200);
        })
        .on('error', () => done(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`the proxy at ${url} did not serve /api/health in time`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// startDeployment starts the database, the two processes and Caddy, and
// resolves with what startServer gives (url, output, stop) plus servers:
// the two processes, whose output() tells which requests each served.
export async function startDeployment() {
  const dsn = new URL(process.env.AT_TEST_POSTGRES_DSN);
  const db = `at_e2e_proxy_${process.pid}_${Date.now()}`;
  execFileSync('psql', [dsn.href, '-qc', `CREATE DATABASE ${db}`]);
  const dbURL = new URL(dsn.href);
  dbURL.pathname = `/${db}`;
  const env = {
    AT_DATABASE_URL: dbURL.href,
    AT_SECRET: randomBytes(30).toString('base64url'),
    AT_TLS_PROXY: '1',
    AT_TRUSTED_PROXIES: '127.0.0.1',
  };
  const servers = [await startServer({ env }), await startServer({ env })];
  const port = await freePort();
  const home = mkdtempSync(join(tmpdir(), 'at-caddy-'));
  const upstreams = servers.map((s) => new URL(s.url).host).join(' ');
  const caddy = spawn('caddy', ['run', '--config', join(repo, 'deploy', 'Caddyfile'), '--adapter', 'caddyfile'], {
    env: {
      ...process.env,
      HOME: home,
      XDG_DATA_HOME: join(home, 'data'),
      XDG_CONFIG_HOME: join(home, 'config'),
      AT_SITE: 'localhost',
      AT_PROXY_PORT: String(port),
      AT_TLS: 'tls internal',
      AT_UPSTREAMS: upstreams,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let caddyOut = '';
  caddy.stdout.on('data', (c) => (caddyOut += c));
  caddy.stderr.on('data', (c) => (caddyOut += c));
  const caddyExited = new Promise((r) => caddy.on('exit', r));
  const url = `https://localhost:${port}/`;
  try {
    await healthy(url, join(home, 'data', 'caddy', 'pki', 'authorities', 'local', 'root.crt'), Date.now() + 30_000);
  } catch (err) {
    caddy.kill('SIGKILL');
    throw new Error(`${err.message}\n${caddyOut}`);
  }
  return {
    url,
    servers,
    output: () => servers.map((s, i) => `--- process ${i + 1}\n${s.output()}`).join('\n') + `\n--- caddy\n${caddyOut}`,
    // stop ends Caddy, then both processes with SIGTERM (the first
    // unclean exit is the answer), and drops the database
    async stop() {
      caddy.kill('SIGTERM');
      await caddyExited;
      rmSync(home, { recursive: true, force: true });
      let status = { code: 0, signal: null };
      for (const s of servers) {
        const st = await s.stop();
        if (status.code === 0 && status.signal === null) status = st;
      }
      execFileSync('psql', [dsn.href, '-qc', `DROP DATABASE IF EXISTS ${db} WITH (FORCE)`]);
      return status;
    },
  };
}
