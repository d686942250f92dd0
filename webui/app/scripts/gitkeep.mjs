// Vite empties dist/ on every build; the Go build embeds all:app/dist and
// needs at least the committed dist/.gitkeep to exist, so put it back.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
mkdirSync(dist, { recursive: true });
writeFileSync(join(dist, '.gitkeep'), '');
