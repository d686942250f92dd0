// Entry point of `npm run e2e`: skips loudly (exit 0) when Chromium is absent,
// unless AT_TEST_REQUIRE contains "browser", then runs the tests with node --test.
// The screenshots of an earlier run go first, so e2e/artifacts holds this run's.
import { spawnSync } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { artifactsDir, browserRequired, chromiumAvailable, chromiumMissingMessage, skipLine } from './harness.mjs';

if (!chromiumAvailable()) {
  if (browserRequired()) {
    console.error(`FAIL: ${chromiumMissingMessage()}`);
    process.exit(1);
  }
  console.log(skipLine());
  process.exit(0);
}

rmSync(artifactsDir, { recursive: true, force: true });
const dir = dirname(fileURLToPath(import.meta.url));
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.test.mjs'))
  .sort()
  .map((f) => join(dir, f));
const res = spawnSync(process.execPath, ['--test', '--test-concurrency=1', ...process.argv.slice(2), ...files], {
  stdio: 'inherit',
});
process.exit(res.status ?? 1);
