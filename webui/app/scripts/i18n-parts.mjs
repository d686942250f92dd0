// Splits the UI's words into parts a page loads with its script:
// src/i18n/parts/<part>.<language>.ts, from en.ts and zh-TW.ts (and the
// files they spread in), which stay the files people edit. A key goes to
// the part of the pages that use it: "table", "session", "solo" or
// "account" when only pages of that part use it (or of parts of one
// family, table and session: then it goes to each), else "core", which
// every page loads (the app's frame uses it, or pages of several parts
// do, or none does). Each
// page's part is the one src/App.tsx names in its page(…) row; what a
// page uses is every key named in the files its module imports, directly
// or not, at once or later (a quoted key, or the prefix of a `key.${…}`
// template), minus the app frame's (what main.tsx imports).
// With --check it writes nothing and fails when the committed parts are
// not what the sources make (test/i18nparts.test.ts runs it).
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const app = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(app, 'src');
const i18n = join(src, 'i18n');
const out = join(i18n, 'parts');
const LANGS = { en: 'en.ts', 'zh-TW': 'zh-TW.ts' };
export const PARTS = ['core', 'table', 'session', 'solo', 'account'];
// A family of parts shares its words without the core: a key that pages of
// several parts of one family use goes to each of them (the table's pages
// and the session page: the session page loads its words only, and the
// others do not load the session's).
const FAMILIES = [['table', 'session']];

// entries reads the object literal a dictionary file exports: [key,
// source text of its value] in order, following spreads of other
// dictionary files (imported by name).
function entries(file) {
  const text = readFileSync(file, 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const imports = new Map();
  let literal;
  sf.forEachChild((node) => {
    if (ts.isImportDeclaration(node) && node.importClause?.namedBindings && ts.isNamedImports(node.importClause.namedBindings)) {
      for (const el of node.importClause.namedBindings.elements) imports.set(el.name.text, node.moduleSpecifier.text);
    }
    if (ts.isVariableStatement(node)) {
      for (const d of node.declarationList.declarations) {
        let init = d.initializer;
        while (init && (ts.isAsExpression(init) || ts.isSatisfiesExpression(init))) init = init.expression;
        if (init && ts.isObjectLiteralExpression(init)) literal = init;
      }
    }
  });
  if (!literal) throw new Error(`${file}: no exported object literal`);
  const list = [];
  for (const p of literal.properties) {
    if (ts.isSpreadAssignment(p)) {
      const spec = imports.get(p.expression.getText(sf));
      if (!spec) throw new Error(`${file}: cannot follow ...${p.expression.getText(sf)}`);
      list.push(...entries(resolve(dirname(file), `${spec}.ts`)));
    } else if (ts.isPropertyAssignment(p) && ts.isStringLiteral(p.name)) {
      list.push([p.name.text, p.initializer.getText(sf)]);
    } else {
      throw new Error(`${file}: unexpected ${ts.SyntaxKind[p.kind]} ${p.getText(sf).slice(0, 40)}`);
    }
  }
  return list;
}

// ---- which pages use which keys ----------------------------------------------

const sources = [];
(function walk(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) sources.push(p);
  }
})(src);
const read = new Map(sources.map((f) => [f, readFileSync(f, 'utf8')]));

function resolveImport(from, spec) {
  if (!spec.startsWith('.')) return null;
  const base = resolve(dirname(from), spec);
  return [base, `${base}.ts`, `${base}.tsx`].find((c) => read.has(c)) ?? null;
}

// imports are a file's imports of other source files: static ones (a
// type-only import brings no code) and, with lazy, import() too (what a
// page loads later, a dialog, renders on that page, with its part).
const imports = (file, lazy) =>
  [...read.get(file).matchAll(/^import\s+(?!type\s)[^;]*?\bfrom\s+'([^']+)'|^import\s+'([^']+)'|\bimport\('([^']+)'\)/gms)]
    .filter((m) => lazy || m[3] === undefined)
    .map((m) => resolveImport(file, m[1] ?? m[2] ?? m[3]))
    .filter(Boolean);

function reach(roots, lazy) {
  const seen = new Set();
  const todo = [...roots];
  while (todo.length) {
    const f = todo.pop();
    if (seen.has(f)) continue;
    seen.add(f);
    todo.push(...imports(f, lazy));
  }
  return seen;
}

// The dictionaries themselves name every key: they use none.
const dictionaryFile = (f) => f.startsWith(i18n + '/') && /\/(?:[a-z]+\.)?(?:en|zh-TW)\.ts$|\/parts\//.test(f);

function keysUsed(file, keys) {
  const used = new Set();
  if (dictionaryFile(file)) return used;
  const text = read.get(file);
  for (const m of text.matchAll(/'([\w.-]+)'/g)) if (keys.has(m[1])) used.add(m[1]);
  for (const m of text.matchAll(/`([\w.-]+\.)\$\{/g)) for (const k of keys) if (k.startsWith(m[1])) used.add(k);
  return used;
}

// pages are App.tsx's pages, page(path, part, () => import(module), …):
// [path, part, module file].
function pages() {
  const appFile = join(src, 'App.tsx');
  const rows = [...read.get(appFile).matchAll(/\bpage\(\s*'([^']+)',\s*'(\w+)',\s*\(\) => import\('([^']+)'\)/g)].map((m) => [
    m[1],
    m[2],
    resolveImport(appFile, m[3]),
  ]);
  if (rows.length === 0) throw new Error('src/App.tsx: no PAGES rows found');
  for (const [path, part, file] of rows) {
    if (!PARTS.includes(part)) throw new Error(`src/App.tsx: page ${path} names part ${part}, not one of ${PARTS.join(', ')}`);
    if (!file) throw new Error(`src/App.tsx: page ${path}: module not found`);
  }
  return rows;
}

// assign gives each key its part.
export function assign(keys) {
  // the frame: what main.tsx loads before any page (App.tsx imports the pages lazily)
  const frame = reach([join(src, 'main.tsx')], false);
  const partsOf = new Map();
  const note = (k, part) => (partsOf.get(k) ?? partsOf.set(k, new Set()).get(k)).add(part);
  for (const f of frame) for (const k of keysUsed(f, keys)) note(k, 'core');
  for (const [, part, file] of pages()) for (const f of reach([file], true)) if (!frame.has(f)) for (const k of keysUsed(f, keys)) note(k, part);
  const part = new Map();
  for (const k of keys) {
    const ps = partsOf.get(k);
    if (ps && ps.size === 1) part.set(k, new Set(ps));
    else if (ps && FAMILIES.some((f) => [...ps].every((p) => f.includes(p)))) part.set(k, new Set(ps));
    else part.set(k, new Set(['core']));
  }
  return part;
}

// ---- writing -------------------------------------------------------------------

export function generate() {
  const dicts = Object.fromEntries(Object.entries(LANGS).map(([lang, file]) => [lang, entries(join(i18n, file))]));
  const keys = new Set(dicts.en.map(([k]) => k));
  for (const [lang, list] of Object.entries(dicts)) {
    const have = new Set(list.map(([k]) => k));
    const odd = [...keys].filter((k) => !have.has(k)).concat([...have].filter((k) => !keys.has(k)));
    if (odd.length) throw new Error(`${LANGS[lang]} and en.ts differ in keys: ${odd.slice(0, 5).join(', ')}`);
  }
  const part = assign(keys);
  const files = {};
  for (const [lang, list] of Object.entries(dicts)) {
    for (const p of PARTS) {
      const body = list
        .filter(([k]) => part.get(k).has(p))
        .map(([k, v]) => `  '${k}': ${v},`)
        .join('\n');
      files[`${p}.${lang}.ts`] =
        `// Generated by scripts/i18n-parts.mjs from ${LANGS[lang]}: do not edit (npm run gen:i18n).\n` +
        `// The ${lang} words of the "${p}" part (see messages.ts).\n` +
        `export default {\n${body}\n} satisfies Record<string, string>;\n`;
    }
  }
  return files;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const files = generate();
  if (process.argv.includes('--check')) {
    const stale = Object.entries(files).filter(([name, text]) => !existsSync(join(out, name)) || readFileSync(join(out, name), 'utf8') !== text);
    const extra = existsSync(out) ? readdirSync(out).filter((n) => !(n in files)) : [];
    if (stale.length || extra.length) {
      console.error(`${relative(app, out)} is not what the dictionaries and pages make (${[...stale.map(([n]) => n), ...extra].join(', ')}): run npm run gen:i18n`);
      process.exit(1);
    }
  } else {
    rmSync(out, { recursive: true, force: true });
    mkdirSync(out, { recursive: true });
    for (const [name, text] of Object.entries(files)) writeFileSync(join(out, name), text);
  }
}
