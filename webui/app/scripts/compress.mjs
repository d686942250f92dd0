// Precompress the build: for each text file of dist/ worth it, write
// name.br (brotli, best quality) and name.gz (gzip -9) next to it. The Go
// server (webui/compress.go) sends the variant the browser accepts, so no
// request pays for compression and the best levels cost nothing at run time.
// Plain node:zlib: no dependency to keep.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');

// Text formats only: images and fonts are compressed already.
const compressible = /\.(js|mjs|css|html|svg|json|txt|xml|map|wasm)$/;
// Below this a variant saves a few bytes and costs a file: not worth it
// (the server's on-the-fly minimum for JSON is the same).
const minSize = 1024;

function* files(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* files(p);
    else yield p;
  }
}

const fmt = (n) => `${(n / 1024).toFixed(1)} kB`.padStart(10);
for (const file of [...files(dist)]) {
  if (!compressible.test(file)) continue;
  const raw = readFileSync(file);
  if (raw.length < minSize) continue;
  const br = brotliCompressSync(raw, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
    },
  });
  const gz = gzipSync(raw, { level: 9 });
  // A variant that is not smaller is not written: the server then sends the file as it is.
  if (br.length < raw.length) writeFileSync(file + '.br', br);
  if (gz.length < raw.length) writeFileSync(file + '.gz', gz);
  console.log(`${relative(dist, file).padEnd(36)} raw ${fmt(raw.length)}  gz ${fmt(gz.length)}  br ${fmt(br.length)}`);
}
