import { createElement, Fragment, type ReactNode } from 'react';
import './Markdown.css';

// Markdown shows people's text (chat, stage, narration) with the safe part
// of Markdown: bold, italic, lists, code, quotes, links, headings, rules.
// It never renders HTML: tags someone typed show as plain text. Links keep
// only http(s) and mailto addresses and open in a new tab without a
// referrer or an opener. Images are dropped (their alt text stays): the
// page shows only the DM's stage images. A single newline is a line break,
// as people expect in chat.
//
// The parser is our own: a few kilobytes, where react-markdown's pipeline
// (micromark, mdast, hast) was thirty on every page that shows a chat line.
// It follows CommonMark as micromark reads it (the emphasis and link
// bracket algorithms are the spec's) and draws what remark-rehype drew,
// down to the newline text between blocks; thousands of random texts
// compared with react-markdown came out the same. What it does not know:
// reference links and their definitions (they show as typed), and a few
// corners no one types in chat (a lone HTML tag lazily continuing a quote
// or an item, an unclosed code fence inside a list item).

const SAFE_SCHEMES = ['http:', 'https:', 'mailto:'];

// safeUrl keeps an absolute http(s) or mailto address and drops everything
// else (javascript:, data:, vbscript:, relative and protocol-relative URLs).
export const safeUrl = (url: string, _key?: string, _node?: unknown): string | null => {
  const value = url.trim();
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return null;
  }
  if (!SAFE_SCHEMES.includes(parsed.protocol)) return null;
  if (parsed.protocol !== 'mailto:' && !/^https?:\/\//i.test(value)) return null;
  return parsed.href;
};

// An inline token stands in a text for something its caller draws there
// (a chat line's roll chip): two private-use characters around an index.
// Wherever Markdown puts the token (a paragraph, emphasis, code, a link's
// words) it becomes inline(index); the rest of the text is Markdown as ever.
const TOKEN_START = '\uE000';
const TOKEN_END = '\uE001';
const TOKEN = /\uE000(\d+)\uE001/g;
export const inlineToken = (index: number) => `${TOKEN_START}${index}${TOKEN_END}`;
// stripTokens drops token characters someone typed, so only the caller's count.
export const stripTokens = (text: string) => text.replace(/[\uE000\uE001]/g, '');

// ---- blocks ---------------------------------------------------------------

type Block =
  | { k: 'p'; text: string }
  | { k: 'h'; level: number; text: string }
  | { k: 'hr' }
  | { k: 'code'; text: string; lang: string | null } // null: indented, not fenced
  | { k: 'quote'; kids: Block[] }
  | { k: 'html'; text: string }
  | { k: 'list'; ordered: boolean; start: number; loose: boolean; items: Block[][] };

const blank = (line: string) => /^[ \t]*$/.test(line);
const indentOf = (line: string) => /^ */.exec(line)![0].length;
// unindent takes up to n leading spaces off line.
const unindent = (line: string, n: number) => line.slice(Math.min(n, indentOf(line)));
const RULE = /^(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$/;
const FENCE = /^(`{3,}|~{3,})[ \t]*([^ \t]*).*$/;
// fence reads a code fence's opening line (a backtick fence's info has no backtick).
function fence(s: string): RegExpExecArray | null {
  const m = FENCE.exec(s);
  return m && !(m[1]![0] === '`' && s.slice(m[1]!.length).includes('`')) ? m : null;
}
const ATX = /^(#{1,6})(?:[ \t]+(.*?))?$/;

// HTML blocks, as CommonMark starts and ends them: they show as their text.
const HTML_RAW = /^<(?:script|pre|style|textarea)(?:[ \t>]|$)/i;
const HTML_RAW_END = /<\/(?:script|pre|style|textarea)>/i;
const HTML_BLOCK =
  /^<\/?(?:address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|h[1-6]|head|header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|noframes|ol|optgroup|option|p|param|search|section|summary|table|tbody|td|tfoot|th|thead|title|tr|track|ul)(?:[ \t>]|\/>|$)/i;
const HTML_TAG =
  /^(?:<[a-zA-Z][a-zA-Z0-9-]*(?:[ \t]+[a-zA-Z_:][a-zA-Z0-9_.:-]*(?:[ \t]*=[ \t]*(?:[^ \t"'=<>`]+|'[^']*'|"[^"]*"))?)*[ \t]*\/?>|<\/[a-zA-Z][a-zA-Z0-9-]*[ \t]*>)[ \t]*$/;

// htmlEnd is the test of the line that ends the HTML block s starts
// (that line included), or 'blank' when a blank line ends it (not
// included); null when s starts none. A paragraph is interrupted by all but
// a lone tag.
function htmlEnd(s: string, inPara: boolean): RegExp | 'blank' | null {
  if (HTML_RAW.test(s)) return HTML_RAW_END;
  if (s.startsWith('<!--')) return /-->/;
  if (s.startsWith('<?')) return /\?>/;
  if (s.startsWith('<![CDATA[')) return /\]\]>/;
  if (/^<![a-zA-Z]/.test(s)) return />/;
  if (HTML_BLOCK.test(s)) return 'blank';
  if (!inPara && HTML_TAG.test(s) && !/^<\/?(?:script|pre|style|textarea)\b/i.test(s)) return 'blank';
  return null;
}

interface Marker {
  ordered: boolean;
  ch: string; // '-', '+', '*', '.' or ')'
  start: number;
  width: number; // the marker and the spaces after it: the item's content column
  empty: boolean;
}

function listMarker(s: string): Marker | null {
  const m = /^(?:([-+*])|(\d{1,9})([.)]))(?:([ \t]+)(.*))?$/.exec(s);
  if (!m) return null;
  const mark = m[1] ?? m[2]! + m[3]!;
  const spaces = m[4]?.length ?? 0;
  const empty = m[5] === undefined || blank(m[5]);
  return {
    ordered: !m[1],
    ch: m[1] ?? m[3]!,
    start: m[2] ? Number(m[2]) : 1,
    // five spaces or more start indented code inside the item: one counts
    width: mark.length + (empty || spaces > 4 ? 1 : spaces),
    empty,
  };
}

// interrupts tells whether line starts a block that ends a paragraph; lazy,
// whether it starts any block, so it cannot go on with a quote's or an
// item's paragraph.
function interrupts(line: string, lazy = false): boolean {
  if (blank(line) || indentOf(line) >= 4) return blank(line);
  const s = line.trimStart();
  if (RULE.test(s) || fence(s) || ATX.test(s) || s.startsWith('>') || htmlEnd(s, !lazy)) return true;
  const m = listMarker(s);
  return !!m && !m.empty && (!m.ordered || m.start === 1);
}

// openParagraph tells whether the last of blocks is a paragraph still
// open (in a quote or list, their last): a lazy line may go on with it.
function openParagraph(blocks: Block[]): boolean {
  const last = blocks[blocks.length - 1];
  if (!last) return false;
  if (last.k === 'quote') return openParagraph(last.kids);
  if (last.k === 'list') return openParagraph(last.items[last.items.length - 1] ?? []);
  return last.k === 'p';
}

// parseBlocks reads lines into blocks; interrupting, when they are a quote
// or an item that broke off a paragraph (micromark then starts no empty
// item on their first line).
function parseBlocks(lines: string[], interrupting = false): Block[] {
  const out: Block[] = [];
  let para: string[] | null = null;
  const endPara = () => {
    if (para) out.push({ k: 'p', text: para.join('\n').trimEnd() });
    para = null;
  };
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (blank(line)) {
      endPara();
      i++;
      continue;
    }
    const ind = indentOf(line);
    if (ind >= 4) {
      if (para) {
        para.push(line);
        i++;
        continue;
      }
      const code: string[] = [];
      while (i < lines.length && (blank(lines[i]!) || indentOf(lines[i]!) >= 4)) code.push(unindent(lines[i++]!, 4));
      while (code.length && blank(code[code.length - 1]!)) code.pop();
      out.push({ k: 'code', text: code.join('\n'), lang: null });
      continue;
    }
    const s = line.slice(ind);
    let m: RegExpExecArray | null;
    if ((m = fence(s))) {
      endPara();
      const close = new RegExp(`^ {0,3}${m[1]![0] === '`' ? '`' : '~'}{${m[1]!.length},}[ \\t]*$`);
      const code: string[] = [];
      for (i++; i < lines.length && !close.test(lines[i]!); i++) code.push(unindent(lines[i]!, ind));
      i++;
      out.push({ k: 'code', text: code.join('\n'), lang: m[2]! });
      continue;
    }
    const html = htmlEnd(s, para !== null);
    if (html) {
      endPara();
      const raw: string[] = [];
      if (html === 'blank') while (i < lines.length && !blank(lines[i]!)) raw.push(lines[i++]!);
      else {
        while (i < lines.length && !html.test(lines[i]!)) raw.push(lines[i++]!);
        if (i < lines.length) raw.push(lines[i++]!);
      }
      out.push({ k: 'html', text: raw.join('\n') });
      continue;
    }
    if (para && /^(?:=+|-+)[ \t]*$/.test(s)) {
      out.push({ k: 'h', level: s[0] === '=' ? 1 : 2, text: (para as string[]).join('\n').trimEnd() });
      para = null;
      i++;
      continue;
    }
    if (RULE.test(s)) {
      endPara();
      out.push({ k: 'hr' });
      i++;
      continue;
    }
    if ((m = ATX.exec(s))) {
      endPara();
      out.push({ k: 'h', level: m[1]!.length, text: (m[2] ?? '').replace(/(?:^|[ \t]+)#+[ \t]*$/, '').trim() });
      i++;
      continue;
    }
    const afterCode = out.length > 0 && out[out.length - 1]!.k === 'code' && (out[out.length - 1] as { lang: string }).lang === null;
    // (micromark's rule for empty items below reaches into nested blocks)
    const breaks = para !== null || afterCode || (interrupting && i === 0);
    if (s.startsWith('>')) {
      const broke = breaks;
      endPara();
      const inner: string[] = [];
      while (i < lines.length) {
        const l = lines[i]!;
        const t = l.trimStart();
        if (indentOf(l) < 4 && t.startsWith('>')) inner.push(t.slice(1).replace(/^ /, ''));
        // a lazy line goes on with the quote's paragraph
        else if (!interrupts(l, true) && !(indentOf(l) < 4 && listMarker(t)) && inner.length > 0 && !blank(inner[inner.length - 1]!) && openParagraph(parseBlocks(inner, broke))) inner.push(l);
        else break;
        i++;
      }
      out.push({ k: 'quote', kids: parseBlocks(inner, broke) });
      continue;
    }
    const first = listMarker(s);
    // only a list of something, or one counting from 1, interrupts a
    // paragraph; an empty one starts none after indented code, nor first
    // in a quote or item that broke off a paragraph or followed indented
    // code (as micromark has it)
    if (first && !(first.empty && (afterCode || (interrupting && i === 0))) && (!para || (!first.empty && (!first.ordered || first.start === 1)))) {
      const broke = breaks;
      endPara();
      const list: Block & { k: 'list' } = { k: 'list', ordered: first.ordered, start: first.start, loose: false, items: [] };
      let gap = false;
      while (i < lines.length) {
        if (list.items.length > 0 && blank(lines[i]!)) {
          gap = true;
          i++;
          continue;
        }
        const l = lines[i]!;
        const li = indentOf(l);
        const mk = li < 4 && !RULE.test(l.slice(li)) ? listMarker(l.slice(li)) : null;
        if (!mk || mk.ordered !== first.ordered || mk.ch !== first.ch) break;
        if (gap) list.loose = true;
        const col = li + mk.width;
        const body = [mk.empty ? '' : l.slice(col)];
        for (i++; i < lines.length; i++) {
          const l2 = lines[i]!;
          // an item starts with one blank line at most
          if (blank(l2) && body.length === 1 && mk.empty) break;
          if (blank(l2)) body.push('');
          else if (indentOf(l2) >= col) body.push(l2.slice(col));
          // a lazy line goes on with the item's paragraph
          else if (!blank(body[body.length - 1]!) && !interrupts(l2, true) && !(indentOf(l2) < 4 && listMarker(l2.trimStart())) && openParagraph(parseBlocks(body, broke && list.items.length === 0))) body.push(l2);
          else break;
        }
        gap = false;
        while (body.length > 1 && blank(body[body.length - 1]!)) {
          body.pop();
          gap = true;
        }
        const kids = parseBlocks(body, broke && list.items.length === 0);
        if (kids.length > 1 && body.some(blank)) list.loose = true;
        list.items.push(kids);
      }
      out.push(list);
      continue;
    }
    // a paragraph's later lines keep their indent: the inline parser takes
    // it off, but not inside code spans (as micromark)
    if (para) para.push(line);
    else para = [s];
    i++;
  }
  endPara();
  return out;
}

// ---- inlines --------------------------------------------------------------

type Inline =
  | { k: 'text'; v: string }
  | { k: 'code'; v: string }
  | { k: 'br' }
  | { k: 'em' | 'strong'; kids: Inline[] }
  | { k: 'a'; href: string; kids: Inline[] }
  | { k: 'alt'; v: string };

interface Delim {
  node: { k: 'text'; v: string };
  ch: string;
  count: number;
  open: boolean;
  close: boolean;
}
interface Bracket {
  node: Inline;
  image: boolean;
  active: boolean;
  bottom: number; // the delimiter stack's height when the bracket opened
}

// INLINE_HTML is a tag, comment, processing instruction, declaration or
// CDATA section, as CommonMark's raw HTML.
const INLINE_HTML =
  /^(?:<[A-Za-z][A-Za-z0-9-]*(?:\s+[a-zA-Z_:][a-zA-Z0-9_.:-]*(?:\s*=\s*(?:[^\s"'=<>`]+|'[^']*'|"[^"]*"))?)*\s*\/?>|<\/[A-Za-z][A-Za-z0-9-]*\s*>|<!-->|<!--->|<!--[\s\S]*?-->|<\?[\s\S]*?\?>|<![A-Za-z][^>]*>|<!\[CDATA\[[\s\S]*?\]\]>)/;
const PUNCT = /[!-\/:-@\[-`{-~\p{P}\p{S}]/u;
const ESCAPABLE = /[!-/:-@[-`{-~]/;

// decodeEntity turns a character reference into its character, or
// returns null when it is not one.
function decodeEntity(ref: string): string | null {
  const num = /^&#(?:(\d{1,7})|[xX]([0-9a-fA-F]{1,6}));$/.exec(ref);
  if (num) {
    const cp = num[1] ? Number(num[1]) : parseInt(num[2]!, 16);
    return cp === 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ? '\uFFFD' : String.fromCodePoint(cp);
  }
  // a textarea's content is text (RCDATA): only references are decoded, no markup
  const area = document.createElement('textarea');
  area.innerHTML = ref;
  return area.value === ref ? null : area.value;
}

// normalizeUri percent-encodes what may not stand in a URL, as micromark
// does before the address is checked (safeUrl).
function normalizeUri(value: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    const code = c.charCodeAt(0);
    if (c === '%' && /^[a-zA-Z0-9]{2}$/.test(value.slice(i + 1, i + 3))) {
      out += value.slice(i, i + 3);
      i += 2;
    } else if (code < 128) out += /[!#$&-;=?-Z_a-z~]/.test(c) ? c : encodeURIComponent(c);
    else if (code >= 0xd800 && code < 0xe000) {
      const next = value.charCodeAt(i + 1);
      if (code < 0xdc00 && next >= 0xdc00 && next < 0xe000) {
        out += encodeURIComponent(c + value[i + 1]);
        i++;
      } else out += encodeURIComponent('\uFFFD');
    } else out += encodeURIComponent(c);
  }
  return out;
}

// linkTail reads `(destination "title")` at src[at]; null when there is none.
function linkTail(src: string, at: number): { href: string; end: number } | null {
  if (src[at] !== '(') return null;
  let i = at + 1;
  const skip = () => {
    while (i < src.length && /[ \t\n]/.test(src[i]!)) i++;
  };
  skip();
  let href = '';
  if (src[i] === '<') {
    const end = src.indexOf('>', i);
    if (end < 0 || /[\n<]/.test(src.slice(i + 1, end))) return null;
    href = src.slice(i + 1, end);
    i = end + 1;
  } else {
    let depth = 0;
    const from = i;
    for (; i < src.length; i++) {
      const c = src[i]!;
      if (c === '\\' && ESCAPABLE.test(src[i + 1] ?? '')) i++;
      else if (c === '(') depth++;
      else if (c === ')') {
        if (depth === 0) break;
        depth--;
      } else if (/[ \t\n]/.test(c) || c < ' ') break;
    }
    href = src.slice(from, i);
  }
  const beforeTitle = i;
  skip();
  const q = src[i];
  if (i > beforeTitle && (q === '"' || q === "'" || q === '(')) {
    const end = src.indexOf(q === '(' ? ')' : q, i + 1);
    if (end < 0) return null;
    i = end + 1;
    skip();
  }
  if (src[i] !== ')') return null;
  return { href: unescapeText(href), end: i + 1 };
}

const unescapeText = (s: string) =>
  s.replace(/\\([!-/:-@[-`{-~])|&(?:#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z][a-zA-Z0-9]{1,31});/g, (m, esc: string | undefined) => esc ?? decodeEntity(m) ?? m);

const plain = (nodes: Inline[]): string =>
  nodes.map((n) => (n.k === 'text' || n.k === 'code' || n.k === 'alt' ? n.v : n.k === 'br' ? '\n' : plain(n.kids))).join('');

// processEmphasis pairs the delimiter runs above bottom into emphasis, as
// CommonMark's algorithm of the same name does.
function processEmphasis(out: Inline[], delims: Delim[], bottom: number) {
  let ci = bottom;
  while (ci < delims.length) {
    const closer = delims[ci]!;
    if (!closer.close) {
      ci++;
      continue;
    }
    let oi = ci - 1;
    for (; oi >= bottom; oi--) {
      const o = delims[oi]!;
      if (o.ch !== closer.ch || !o.open) continue;
      // the rule of three, on what is left of the runs (as micromark counts)
      if ((o.close || closer.open) && closer.count % 3 !== 0 && (o.count + closer.count) % 3 === 0) continue;
      break;
    }
    if (oi < bottom) {
      if (closer.open) ci++;
      else delims.splice(ci, 1);
      continue;
    }
    const opener = delims[oi]!;
    const use = opener.count >= 2 && closer.count >= 2 ? 2 : 1;
    opener.count -= use;
    closer.count -= use;
    opener.node.v = opener.node.v.slice(0, opener.count);
    closer.node.v = closer.node.v.slice(0, closer.count);
    const a = out.indexOf(opener.node);
    const b = out.indexOf(closer.node);
    const kids = out.splice(a + 1, b - a - 1);
    out.splice(a + 1, 0, { k: use === 2 ? 'strong' : 'em', kids });
    delims.splice(oi + 1, ci - oi - 1);
    ci = oi + 1;
    if (opener.count === 0) {
      out.splice(out.indexOf(opener.node), 1);
      delims.splice(oi, 1);
      ci--;
    }
    if (closer.count === 0) {
      out.splice(out.indexOf(closer.node), 1);
      delims.splice(ci, 1);
    }
  }
  delims.length = bottom;
}

function parseInline(src: string): Inline[] {
  const out: Inline[] = [];
  const delims: Delim[] = [];
  const brackets: Bracket[] = [];
  let text = '';
  const flush = () => {
    if (text) out.push({ k: 'text', v: text });
    text = '';
  };
  // a newline takes the spaces before it; a backslash's keeps them
  const lineBreak = (trim: boolean) => {
    if (trim) text = text.replace(/[ \t]+$/, '');
    flush();
    out.push({ k: 'br' });
    lineStart = true;
  };
  let lineStart = false;
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    let m: RegExpExecArray | null;
    if (c !== '`') lineStart = false;
    if (c === '\\') {
      const next = src[i + 1] ?? '';
      if (next === '\n') {
        lineBreak(false);
        i += 2;
        while (src[i] === ' ' || src[i] === '\t') i++;
      } else if (ESCAPABLE.test(next)) {
        text += next;
        i += 2;
      } else {
        text += c;
        i++;
      }
    } else if (c === '\n') {
      // every newline breaks the line (remark-breaks did this)
      lineBreak(true);
      i++;
      while (src[i] === ' ' || src[i] === '\t') i++;
    } else if (c === '`') {
      const run = /^`+/.exec(src.slice(i))![0];
      let close = -1;
      for (let j = i + run.length; (j = src.indexOf('`', j)) >= 0; ) {
        const r = /^`+/.exec(src.slice(j))![0];
        if (r.length === run.length) {
          close = j;
          break;
        }
        j += r.length;
      }
      if (close < 0) {
        text += run;
        i += run.length;
        continue;
      }
      let code = src.slice(i + run.length, close).replace(/\n/g, ' ');
      if (code.length >= 2 && code[0] === ' ' && code[code.length - 1] === ' ' && code.trim() !== '') code = code.slice(1, -1);
      // micromark drops the spaces a code span starts with on a line of its own
      if (lineStart && text === '') code = code.replace(/^[ \t]+/, '');
      flush();
      out.push({ k: 'code', v: code });
      i = close + run.length;
    } else if (c === '*' || c === '_') {
      const run = (c === '*' ? /^\*+/ : /^_+/).exec(src.slice(i))![0];
      const before = src[i - 1] ?? ' ';
      const after = src[i + run.length] ?? ' ';
      const spaceBefore = /\s/.test(before);
      const spaceAfter = /\s/.test(after);
      const left = !spaceAfter && (!PUNCT.test(after) || spaceBefore || PUNCT.test(before));
      const right = !spaceBefore && (!PUNCT.test(before) || spaceAfter || PUNCT.test(after));
      const open = c === '*' ? left : left && (!right || PUNCT.test(before));
      const close = c === '*' ? right : right && (!left || PUNCT.test(after));
      flush();
      const node = { k: 'text' as const, v: run };
      out.push(node);
      if (open || close) delims.push({ node, ch: c, count: run.length, open, close });
      i += run.length;
    } else if (c === '[' || (c === '!' && src[i + 1] === '[')) {
      flush();
      const node: Inline = { k: 'text', v: c === '!' ? '![' : '[' };
      out.push(node);
      brackets.push({ node, image: c === '!', active: true, bottom: delims.length });
      i += c === '!' ? 2 : 1;
    } else if (c === ']') {
      const opener = brackets.pop();
      const tail = opener?.active ? linkTail(src, i + 1) : null;
      if (!opener || !tail) {
        text += c;
        i++;
        continue;
      }
      flush();
      processEmphasis(out, delims, opener.bottom);
      const at = out.indexOf(opener.node);
      const kids = out.splice(at + 1);
      out[at] = opener.image ? { k: 'alt', v: plain(kids) } : { k: 'a', href: tail.href, kids };
      // no links inside a link
      if (!opener.image) for (const b of brackets) if (!b.image) b.active = false;
      i = tail.end;
    } else if (c === '<' && (m = /^<([a-zA-Z][a-zA-Z0-9+.-]{1,31}:[^\s<>]*)>/.exec(src.slice(i)))) {
      flush();
      out.push({ k: 'a', href: m[1]!, kids: [{ k: 'text', v: m[1]! }] });
      i += m[0].length;
    } else if (c === '<' && (m = /^<([a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*)>/.exec(src.slice(i)))) {
      flush();
      out.push({ k: 'a', href: `mailto:${m[1]}`, kids: [{ k: 'text', v: m[1]! }] });
      i += m[0].length;
    } else if (c === '<' && (m = INLINE_HTML.exec(src.slice(i)))) {
      // raw HTML shows as typed: nothing in it is Markdown
      text += m[0];
      i += m[0].length;
    } else if (c === '&' && (m = /^&(?:#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z][a-zA-Z0-9]{1,31});/.exec(src.slice(i)))) {
      text += decodeEntity(m[0]) ?? m[0];
      i += m[0].length;
    } else {
      text += c;
      i++;
    }
  }
  flush();
  processEmphasis(out, delims, 0);
  return out.filter((n) => n.k !== 'text' || n.v !== '');
}

// ---- drawing --------------------------------------------------------------

type Draw = (index: number) => ReactNode;

// words draws a text, each inline token in it by draw (when there is one).
function words(text: string, draw: Draw | undefined): ReactNode {
  if (!draw || !text.includes(TOKEN_START)) return text;
  const out: ReactNode[] = [];
  let last = 0;
  for (const m of text.matchAll(TOKEN)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    out.push(<Fragment key={m.index}>{draw(Number(m[1]))}</Fragment>);
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

const keyed = (nodes: ReactNode[]) => nodes.map((n, i) => <Fragment key={i}>{n}</Fragment>);

function drawInline(nodes: Inline[], draw: Draw | undefined): ReactNode[] {
  return keyed(
    nodes.flatMap((n): ReactNode[] => {
      switch (n.k) {
        case 'text':
          return [words(n.v, draw)];
        case 'code':
          return [<code>{words(n.v, draw)}</code>];
        case 'br':
          return [<br />, '\n'];
        case 'em':
          return [<em>{drawInline(n.kids, draw)}</em>];
        case 'strong':
          return [<strong>{drawInline(n.kids, draw)}</strong>];
        case 'alt':
          // an image shows as its alt text: nothing is loaded from elsewhere
          return n.v ? [<span className="md-image-alt">{words(n.v, draw)}</span>] : [];
        case 'a': {
          const href = safeUrl(normalizeUri(n.href));
          // a dropped address leaves its words as plain text
          if (!href) return [<span className="md-link-dropped">{drawInline(n.kids, draw)}</span>];
          return [
            <a href={href} target="_blank" rel="noopener noreferrer">
              {drawInline(n.kids, draw)}
            </a>,
          ];
        }
      }
    }),
  );
}

// between puts a newline text between the nodes, and around them when
// loose, as remark-rehype lays out blocks.
function between(nodes: ReactNode[], loose: boolean): ReactNode[] {
  const out: ReactNode[] = loose ? ['\n'] : [];
  nodes.forEach((n, i) => {
    if (i > 0) out.push('\n');
    out.push(n);
  });
  if (loose && nodes.length > 0) out.push('\n');
  return keyed(out);
}

function drawBlocks(blocks: Block[], draw: Draw | undefined, loose = false): ReactNode[] {
  return between(
    blocks.map((b) => drawBlock(b, draw)),
    loose,
  );
}

function drawBlock(b: Block, draw: Draw | undefined): ReactNode {
  switch (b.k) {
    case 'p':
      return <p>{drawInline(parseInline(b.text), draw)}</p>;
    case 'h':
      return createElement(`h${b.level}`, null, drawInline(parseInline(b.text), draw));
    case 'hr':
      return <hr />;
    case 'html':
      // raw HTML is text, and its tokens stay as typed (as remark-rehype had it)
      return b.text;
    case 'code':
      return (
        <pre>
          <code className={b.lang ? `language-${unescapeText(b.lang)}` : undefined}>{words(b.text ? `${b.text}\n` : '', draw)}</code>
        </pre>
      );
    case 'quote':
      return <blockquote>{drawBlocks(b.kids, draw, true)}</blockquote>;
    case 'list': {
      const items = b.items.map((kids) => <li>{drawItem(kids, b.loose, draw)}</li>);
      return b.ordered ? <ol start={b.start === 1 ? undefined : b.start}>{between(items, true)}</ol> : <ul>{between(items, true)}</ul>;
    }
  }
}

// drawItem draws a list item's blocks: in a tight list its paragraphs are
// bare text.
function drawItem(kids: Block[], loose: boolean, draw: Draw | undefined): ReactNode[] {
  const out: ReactNode[] = [];
  kids.forEach((b, i) => {
    const bare = !loose && b.k === 'p';
    if (loose || i !== 0 || b.k !== 'p') out.push('\n');
    out.push(bare ? drawInline(parseInline(b.text), draw) : drawBlock(b, draw));
  });
  const tail = kids[kids.length - 1];
  if (tail && (loose || tail.k !== 'p')) out.push('\n');
  return keyed(out);
}

export function Markdown({
  text,
  className,
  testId,
  inline,
}: {
  text: string;
  className?: string;
  testId?: string;
  // draws the inlineToken(i) of the text (none: the text has no tokens)
  inline?: (index: number) => ReactNode;
}) {
  // the last line ending ends the last line: it starts no empty one
  const blocks = parseBlocks(text.replace(/\r\n?/g, '\n').replace(/\n$/, '').replace(/\t/g, '    ').split('\n'));
  return (
    <div className={className ? `md ${className}` : 'md'} data-testid={testId}>
      {drawBlocks(blocks, inline)}
    </div>
  );
}
