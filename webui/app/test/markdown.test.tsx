// The shared Markdown renderer: the safe part of Markdown, never HTML, and
// links only to http(s) and mailto addresses.
import { cleanup, render } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { Markdown, safeUrl } from '../src/components/Markdown';

afterEach(cleanup);

const md = (text: string) => render(<Markdown text={text} testId="md" />).getByTestId('md');

describe('Markdown', () => {
  it('renders bold, italic and inline code', () => {
    const el = md('**bold** and *italic* and `x = 1`');
    expect(el.querySelector('strong')?.textContent).toBe('bold');
    expect(el.querySelector('em')?.textContent).toBe('italic');
    expect(el.querySelector('code')?.textContent).toBe('x = 1');
    expect(el.textContent).toBe('bold and italic and x = 1');
  });

  it('renders lists and code blocks', () => {
    const el = md('- one\n- two\n\n1. first\n2. second\n\n```\nlet a = 1;\n<b>raw</b>\n```');
    expect([...el.querySelectorAll('ul > li')].map((li) => li.textContent)).toEqual(['one', 'two']);
    expect([...el.querySelectorAll('ol > li')].map((li) => li.textContent)).toEqual(['first', 'second']);
    const pre = el.querySelector('pre > code');
    expect(pre?.textContent).toBe('let a = 1;\n<b>raw</b>\n');
    expect(el.querySelector('b')).toBeNull();
  });

  it('turns a single newline into a line break', () => {
    const el = md('line one\nline two');
    expect(el.querySelectorAll('p')).toHaveLength(1);
    expect(el.querySelectorAll('br')).toHaveLength(1);
  });

  it('never renders HTML: tags show as text or nothing', () => {
    const el = md('hi <img src=x onerror="alert(1)"> <script>alert(2)</script> <b>b</b>\n\n<div onclick="alert(3)">block</div>');
    expect(el.querySelector('img')).toBeNull();
    expect(el.querySelector('script')).toBeNull();
    expect(el.querySelector('b')).toBeNull();
    expect(el.querySelector('div')).toBeNull();
    expect(el.querySelector('[onerror], [onclick]')).toBeNull();
    // the typed tags are visible as plain text
    expect(el.textContent).toContain('<img src=x onerror="alert(1)">');
    expect(el.textContent).toContain('<script>');
  });

  it('drops images (no remote loads)', () => {
    const el = md('![a cat](https://example.com/cat.png)');
    expect(el.querySelector('img')).toBeNull();
    expect(el.textContent).toBe('a cat');
  });

  it('links only http(s) and mailto, in a new tab without opener or referrer', () => {
    const el = md('[ok](https://example.com/a?b=1) [mail](mailto:dm@example.com) [x](javascript:alert(1)) [y](JaVaScRiPt:alert(1)) [z](data:text/html,hi) [r](/api/me) <javascript:alert(1)>');
    const links = [...el.querySelectorAll('a')];
    expect(links.map((a) => a.getAttribute('href'))).toEqual(['https://example.com/a?b=1', 'mailto:dm@example.com']);
    for (const a of links) {
      expect(a.getAttribute('target')).toBe('_blank');
      expect(a.getAttribute('rel')).toBe('noopener noreferrer');
    }
    expect(el.innerHTML.toLowerCase()).not.toContain('javascript:alert(1)"');
    expect(el.querySelector('[href^="javascript" i], [href^="data" i]')).toBeNull();
    // the words of a dropped link stay
    expect(el.textContent).toContain('x');
  });

  it('safeUrl keeps only absolute http(s) and mailto addresses', () => {
    const t = (u: string) => safeUrl(u, 'href', { type: 'element', tagName: 'a', properties: {}, children: [] });
    expect(t('https://example.com')).toBe('https://example.com/');
    expect(t('http://example.com/x')).toBe('http://example.com/x');
    expect(t('mailto:a@b.c')).toBe('mailto:a@b.c');
    for (const bad of ['javascript:alert(1)', ' javascript:alert(1)', 'java\nscript:alert(1)', 'data:text/html,x', 'vbscript:x', '/rel', '//evil.example', 'https:evil.example', 'file:///etc/passwd']) {
      expect(t(bad), bad).toBeFalsy();
    }
  });
});
