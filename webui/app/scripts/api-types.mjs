// Generates the web app's API types, src/api/schema.d.ts, from the server's
// OpenAPI document, src/api/openapi.json (written by `make api-types`).
// With --check it writes nothing and fails when the committed file is not
// what the document generates.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const app = join(dirname(fileURLToPath(import.meta.url)), '..');
const doc = join(app, 'src', 'api', 'openapi.json');
const types = join(app, 'src', 'api', 'schema.d.ts');
const check = process.argv.includes('--check');

const generate = (out) =>
  execFileSync(
    join(app, 'node_modules', '.bin', 'openapi-typescript'),
    // A schema that names no properties is an object of unknown fields, not
    // an empty one.
    [doc, '--output', out, '--empty-objects-unknown'],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );

if (!check) {
  generate(types);
} else {
  const dir = mkdtempSync(join(tmpdir(), 'api-types-'));
  try {
    generate(join(dir, 'schema.d.ts'));
    if (readFileSync(join(dir, 'schema.d.ts'), 'utf8') !== readFileSync(types, 'utf8')) {
      console.error('webui/app/src/api/schema.d.ts is not what src/api/openapi.json generates: run make api-types');
      process.exit(1);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
