import type { ComponentProps, ReactNode } from 'react';
import ReactMarkdown, { type Components, type UrlTransform } from 'react-markdown';
import remarkBreaks from 'remark-breaks';
import './Markdown.css';

// Markdown shows people's text (chat, stage, narration) with the safe part
// of Markdown: bold, italic, lists, code, quotes, links. It never renders
// HTML: tags someone typed show as plain text (react-markdown turns raw
// HTML into text; no rehype-raw here). Links keep only http(s) and mailto
// addresses and open in a new tab without a referrer or an opener. Images
// are dropped (their alt text stays): the page shows only the DM's stage
// images. A single newline is a line break, as people expect in chat.

const SAFE_SCHEMES = ['http:', 'https:', 'mailto:'];

// ALLOWED is every element the renderer may make (img only to be replaced
// by its alt text); anything else is unwrapped to its content.
const ALLOWED = [
  'p', 'br', 'strong', 'em', 'del', 'code', 'pre', 'blockquote', 'ul', 'ol', 'li', 'a', 'hr', 'img',
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6',
];

// safeUrl keeps an absolute http(s) or mailto address and drops everything
// else (javascript:, data:, vbscript:, relative and protocol-relative URLs).
export const safeUrl: UrlTransform = (url) => {
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

function Link({ href, children }: ComponentProps<'a'>) {
  // a dropped address leaves its words as plain text
  if (!href) return <span className="md-link-dropped">{children}</span>;
  return (
    <a href={href} target="_blank" rel="noopener noreferrer">
      {children}
    </a>
  );
}

// An image shows as its alt text: nothing is loaded from elsewhere.
function ImageAlt({ alt }: ComponentProps<'img'>) {
  return alt ? <span className="md-image-alt">{alt}</span> : null;
}

const components: Components = { a: Link, img: ImageAlt };
const plugins = [remarkBreaks];

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

interface HastNode {
  type: string;
  value?: string;
  tagName?: string;
  properties?: Record<string, unknown>;
  children?: HastNode[];
}

// splitTokens turns each token in a text node into <span data-inline-token="i">.
function splitTokens(node: HastNode) {
  if (!node.children) return;
  const out: HastNode[] = [];
  for (const child of node.children) {
    if (child.type !== 'text' || !child.value?.includes(TOKEN_START)) {
      splitTokens(child);
      out.push(child);
      continue;
    }
    let last = 0;
    for (const m of child.value.matchAll(TOKEN)) {
      if (m.index > last) out.push({ type: 'text', value: child.value.slice(last, m.index) });
      out.push({ type: 'element', tagName: 'span', properties: { dataInlineToken: m[1] }, children: [] });
      last = m.index + m[0].length;
    }
    if (last < child.value.length) out.push({ type: 'text', value: child.value.slice(last) });
  }
  node.children = out;
}
const rehypeTokens = () => splitTokens;
const tokenPlugins = [rehypeTokens];
const ALLOWED_WITH_TOKENS = [...ALLOWED, 'span'];

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
  const withTokens: Components | undefined = inline && {
    ...components,
    span: (props: ComponentProps<'span'> & { 'data-inline-token'?: string }) => {
      const token = props['data-inline-token'];
      return token === undefined ? <span className={props.className}>{props.children}</span> : inline(Number(token));
    },
  };
  return (
    <div className={className ? `md ${className}` : 'md'} data-testid={testId}>
      <ReactMarkdown
        remarkPlugins={plugins}
        rehypePlugins={inline ? tokenPlugins : undefined}
        allowedElements={inline ? ALLOWED_WITH_TOKENS : ALLOWED}
        unwrapDisallowed
        skipHtml={false}
        urlTransform={safeUrl}
        components={withTokens ?? components}
      >
        {text}
      </ReactMarkdown>
    </div>
  );
}
