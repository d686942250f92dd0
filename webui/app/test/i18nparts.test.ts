// The parts of the UI's words (src/i18n/parts) are what
// scripts/i18n-parts.mjs makes of the dictionaries and the pages that use
// each key: a page loads its part with its script, so a key in the wrong
// part would show as the key itself.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

describe('the parts of the words', () => {
  it('are up to date (npm run gen:i18n)', () => {
    const run = spawnSync(process.execPath, [join(__dirname, '..', 'scripts', 'i18n-parts.mjs'), '--check'], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });
});
