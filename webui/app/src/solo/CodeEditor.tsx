import { useEffect, useImperativeHandle, useRef, useState, type Ref } from 'react';
import { flushSync } from 'react-dom';
import type { LineMarker, MountedEditor } from './codemirror';

export type { LineMarker };

// loadCodeMirror fetches the editor's chunk (CodeMirror and the JavaScript
// language) the first time a code editor is shown.
export const loadCodeMirror = () => import('./codemirror');

// canEnhance says whether the browser lets the editor style itself under
// the server's Content-Security-Policy: constructed style sheets adopted by
// a shadow root. Without them (an old browser, or jsdom) CodeMirror would
// add a <style> element the policy refuses and be shown unstyled, so the
// text area stays.
export const canEnhance = () =>
  typeof ShadowRoot !== 'undefined' &&
  'adoptedStyleSheets' in ShadowRoot.prototype &&
  typeof CSSStyleSheet !== 'undefined' &&
  'replaceSync' in CSSStyleSheet.prototype;

// CodeEditorHandle focuses the editor, or moves its cursor to a line
// (1-based) and focuses it.
export type CodeEditorHandle = { focus(): void; goToLine(line: number): void };

// offsetOfLine is where line (1-based) starts in text, clamped to the text.
export function offsetOfLine(text: string, line: number): number {
  let at = 0;
  for (let n = 1; n < line; n++) {
    const next = text.indexOf('\n', at);
    if (next < 0) break;
    at = next + 1;
  }
  return at;
}

// CodeEditor is a JavaScript editor with highlighting, line numbers and the
// markers' lines marked (CodeMirror, in a shadow root: see codemirror.ts).
// Until its chunk has loaded, when it cannot load, or where the browser
// cannot style it (canEnhance), a plain text area stands in, with the same
// label and description.
export function CodeEditor({
  id,
  value,
  onChange,
  label,
  description,
  describedBy,
  invalid,
  markers,
  className,
  load = loadCodeMirror,
  enhance = canEnhance(),
  ref,
}: {
  id: string;
  value: string;
  onChange: (value: string) => void;
  // the accessible name and description; the text area refers to the page's
  // elements (describedBy), the editor in its shadow root carries the text
  label: string;
  description: string;
  describedBy: string;
  invalid: boolean;
  markers: LineMarker[];
  className?: string;
  load?: typeof loadCodeMirror;
  enhance?: boolean;
  ref?: Ref<CodeEditorHandle>;
}) {
  const host = useRef<HTMLDivElement>(null);
  const area = useRef<HTMLTextAreaElement>(null);
  const [editor, setEditor] = useState<MountedEditor | null>(null);
  // the latest props, for the editor's callbacks and first state
  const latest = useRef({ value, onChange, label, description, invalid });
  latest.current = { value, onChange, label, description, invalid };

  useEffect(() => {
    if (!enhance) return;
    let gone = false;
    let mounted: MountedEditor | null = null;
    load()
      .then((m) => {
        if (gone || !host.current) return;
        const p = latest.current;
        mounted = m.mountEditor(host.current, {
          value: p.value,
          label: p.label,
          description: p.description,
          invalid: p.invalid,
          onChange: (v) => latest.current.onChange(v),
        });
        // the text area goes in the same task the editor appears in: no
        // moment shows two fields with one label (a screen reader, or a
        // test looking the field up by its label, would find both)
        flushSync(() => setEditor(mounted));
      })
      .catch(() => {
        // the text area stays
      });
    return () => {
      gone = true;
      mounted?.destroy();
    };
  }, [load, enhance]);

  useEffect(() => editor?.setValue(value), [editor, value]);
  useEffect(() => editor?.setMarkers(markers), [editor, markers]);
  useEffect(() => editor?.setAttributes(label, description, invalid), [editor, label, description, invalid]);

  useImperativeHandle(
    ref,
    () => ({
      focus() {
        if (editor) editor.focus();
        else area.current?.focus();
      },
      goToLine(line: number) {
        if (editor) {
          editor.goToLine(line);
          return;
        }
        const el = area.current;
        if (!el) return;
        const at = offsetOfLine(el.value, line);
        el.focus();
        el.setSelectionRange(at, at);
      },
    }),
    [editor],
  );

  return (
    <>
      <div
        ref={host}
        className="code-editor"
        data-testid="code-editor"
        hidden={editor === null}
        onClick={(e) => {
          // a click beside the text (below the last line) still edits
          if (e.target === host.current) editor?.focus();
        }}
      />
      {editor === null && (
        <textarea
          ref={area}
          id={id}
          className={className}
          rows={14}
          value={value}
          spellCheck="false"
          autoCapitalize="off"
          autoCorrect="off"
          autoComplete="off"
          wrap="off"
          onChange={(e) => onChange(e.target.value)}
          aria-describedby={describedBy}
          aria-invalid={invalid || undefined}
        />
      )}
    </>
  );
}
