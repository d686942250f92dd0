import type { ComponentProps } from 'react';
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

export function Markdown({
  text,
  className,
  testId,
}: {
  text: string;
  className?: string;
  testId?: string;
}) {
  return (
    <div className={className ? `md ${className}` : 'md'} data-testid={testId}>
      <ReactMarkdown
        remarkPlugins={plugins}
        allowedElements={ALLOWED}
        unwrapDisallowed
        skipHtml={false}
        urlTransform={safeUrl}
        components={components}
      >
        {text}
      </ReactMarkdown>
    </div>
  );
}
