// The script editor's CodeMirror 6 setup. This module is its own chunk,
// loaded on demand (see CodeEditor.tsx), so the app's main script does not
// carry the editor.
//
// The editor lives in a shadow root: there CodeMirror's styles go into
// constructed style sheets (adoptedStyleSheets), which the server's
// Content-Security-Policy (style-src 'self') allows, where the <style>
// element it would add to the document is refused. The app's CSS custom
// properties (--fg, --border, …) inherit into the shadow tree, so the
// theme below uses them.
import { javascript } from '@codemirror/lang-javascript';
import { indentWithTab } from '@codemirror/commands';
import { lintGutter, setDiagnostics, type Diagnostic } from '@codemirror/lint';
import { Compartment, EditorState, StateEffect, StateField, type Extension } from '@codemirror/state';
import { Decoration, keymap, type DecorationSet } from '@codemirror/view';
import { basicSetup, EditorView } from 'codemirror';

// LineMarker is an error to mark on a line (1-based).
export type LineMarker = { line: number; message: string };

export type EditorOptions = {
  value: string;
  label: string;
  description: string;
  invalid: boolean;
  onChange: (value: string) => void;
};

// MountedEditor is what CodeEditor drives.
export type MountedEditor = {
  setValue(value: string): void;
  setMarkers(markers: LineMarker[]): void;
  setAttributes(label: string, description: string, invalid: boolean): void;
  goToLine(line: number): void;
  focus(): void;
  destroy(): void;
};

const setMarks = StateEffect.define<LineMarker[]>();

// marks are the error lines' decorations: moved along with edits, replaced
// by the next set of markers.
const marks = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(deco, tr) {
    deco = deco.map(tr.changes);
    for (const e of tr.effects) {
      if (e.is(setMarks)) deco = lineDecorations(tr.state, e.value);
    }
    return deco;
  },
  provide: (f) => EditorView.decorations.from(f),
});

function validLines(state: EditorState, markers: LineMarker[]): LineMarker[] {
  const seen = new Set<number>();
  return markers
    .filter((m) => Number.isInteger(m.line) && m.line >= 1 && m.line <= state.doc.lines)
    .sort((a, b) => a.line - b.line)
    .filter((m) => !seen.has(m.line) && (seen.add(m.line), true));
}

function lineDecorations(state: EditorState, markers: LineMarker[]): DecorationSet {
  return Decoration.set(
    validLines(state, markers).map((m) =>
      Decoration.line({ class: 'at-error-line', attributes: { 'data-error-line': String(m.line) } }).range(
        state.doc.line(m.line).from,
      ),
    ),
  );
}

const theme = EditorView.theme({
  '&': {
    color: 'var(--fg)',
    backgroundColor: 'var(--panel)',
    border: '1px solid var(--border)',
    borderRadius: '6px',
    fontSize: '0.9rem',
    maxWidth: '100%',
    maxHeight: '32rem',
  },
  '&.cm-focused': { outline: '2px solid var(--accent)', outlineOffset: '1px' },
  '.cm-scroller': { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace', overflow: 'auto' },
  '.cm-content, .cm-gutter': { minHeight: '16rem' },
  '.cm-gutters': { backgroundColor: 'var(--bg)', color: 'var(--muted)', borderRight: '1px solid var(--border)' },
  '.cm-activeLine, .cm-activeLineGutter': { backgroundColor: 'color-mix(in srgb, var(--accent) 8%, transparent)' },
  '.cm-line.at-error-line': { backgroundColor: 'var(--err-bg)', boxShadow: 'inset 3px 0 0 var(--err-fg)' },
  '.cm-cursor': { borderLeftColor: 'var(--fg)' },
});

function contentAttributes(label: string, description: string, invalid: boolean): Extension {
  const attrs: Record<string, string> = { 'aria-label': label, 'aria-description': description };
  if (invalid) attrs['aria-invalid'] = 'true';
  return EditorView.contentAttributes.of(attrs);
}

// mountEditor puts a JavaScript editor with line numbers into host's shadow
// root. Tab indents (indentWithTab); Escape then Tab moves focus on, and
// Ctrl+M (Shift+Alt+M on macOS) toggles Tab between the two, so the
// keyboard is never trapped.
export function mountEditor(host: HTMLElement, opts: EditorOptions): MountedEditor {
  const root = host.shadowRoot ?? host.attachShadow({ mode: 'open' });
  const attributes = new Compartment();
  let emitted = opts.value;
  const view = new EditorView({
    root,
    parent: root,
    state: EditorState.create({
      doc: opts.value,
      extensions: [
        basicSetup,
        keymap.of([indentWithTab]),
        javascript(),
        lintGutter(),
        marks,
        theme,
        attributes.of(contentAttributes(opts.label, opts.description, opts.invalid)),
        EditorView.updateListener.of((u) => {
          if (!u.docChanged) return;
          emitted = u.state.doc.toString();
          opts.onChange(emitted);
        }),
      ],
    }),
  });
  return {
    setValue(value) {
      // the editor's own changes come back as value: nothing to do
      if (value === emitted) return;
      emitted = value;
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: value } });
    },
    setMarkers(markers) {
      const lines = validLines(view.state, markers);
      const diagnostics: Diagnostic[] = lines.map((m) => {
        const l = view.state.doc.line(m.line);
        return { from: l.from, to: l.to, severity: 'error', message: m.message };
      });
      view.dispatch(setDiagnostics(view.state, diagnostics));
      view.dispatch({ effects: setMarks.of(lines) });
    },
    setAttributes(label, description, invalid) {
      view.dispatch({ effects: attributes.reconfigure(contentAttributes(label, description, invalid)) });
    },
    goToLine(line) {
      const n = Math.min(Math.max(1, line), view.state.doc.lines);
      const at = view.state.doc.line(n).from;
      view.dispatch({ selection: { anchor: at }, effects: EditorView.scrollIntoView(at, { y: 'center' }) });
      view.focus();
    },
    focus: () => view.focus(),
    destroy: () => view.destroy(),
  };
}
