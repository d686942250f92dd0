// Props that React writes as attributes and Preact does not. Preact sets a
// prop as the element's property when the element has one by that name,
// and otherwise as an attribute, removing it for false: spellCheck={false}
// names no property (the DOM's is spellcheck) and so left spell checking
// on in the code, key and token fields. The string form is the attribute
// on both. React's types accept the boolean, so this test is the guard.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const src = join(__dirname, '..', 'src');
const STRING_ONLY = new Set(['spellCheck']);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.tsx') ? [join(dir, e.name)] : [],
  );
}

function misuses(file: string, text: string): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isJsxAttribute(node) && STRING_ONLY.has(node.name.getText(sf)) && !(node.initializer && ts.isStringLiteral(node.initializer))) {
      const { line } = sf.getLineAndCharacterOfPosition(node.getStart(sf));
      found.push(`${relative(src, file)}:${line + 1}: ${node.getText(sf)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

describe('props Preact writes differently from React', () => {
  it('spellCheck is given as the string "false", never a boolean', () => {
    expect(sources(src).flatMap((f) => misuses(f, readFileSync(f, 'utf8')))).toEqual([]);
  });

  it('finds a boolean spellCheck (the check itself can fail)', () => {
    expect(misuses(join(src, 'x.tsx'), 'const a = <input spellCheck={false} />; const b = <input spellCheck="false" />;')).toEqual([
      'x.tsx:1: spellCheck={false}',
    ]);
  });
});
