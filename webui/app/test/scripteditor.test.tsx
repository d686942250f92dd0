// The script editor: the errors of a test run placed on their lines and
// tabs, the CodeMirror editor (run for real in jsdom, in its shadow root)
// with its line markers and its two-way value, and the text area that
// stands in where the editor cannot load.
import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { EditorView } from 'codemirror';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { en } from '../src/i18n/en';
import { format, LANGUAGE_STORAGE_KEY } from '../src/i18n/messages';
import { zhTW } from '../src/i18n/zh-TW';
import { CodeEditor, type CodeEditorHandle } from '../src/solo/CodeEditor';
import { markersByTab, type ScriptTestResult } from '../src/solo/scriptTest';
import { callsTo, json, renderApp, resetEachTest, scenarioView, stubServer } from './fixtures';

resetEachTest();

beforeAll(() => {
  // jsdom lays nothing out; CodeMirror measures text ranges when it draws.
  const none = () => ({ length: 0, item: () => null, [Symbol.iterator]: [][Symbol.iterator] }) as unknown as DOMRectList;
  Range.prototype.getClientRects ??= none;
  Range.prototype.getBoundingClientRect ??= () => new DOMRect();
});

const RESULT: ScriptTestResult = {
  hooks: [
    { hook: 'library', text: 'x', stop: false, message: '', logs: [], error: null },
    { hook: 'input', text: 'x', stop: false, message: '', logs: ['got x'], error: null },
    {
      hook: 'output',
      text: 'x',
      stop: false,
      message: '',
      logs: [],
      error: { kind: 'throw', message: 'Error: no x', line: 2, library_line: 3 },
    },
    {
      hook: 'context',
      text: 'x',
      stop: false,
      message: '',
      logs: [],
      error: { kind: 'timeout', message: 'interrupted', line: 0, library_line: 0 },
    },
  ],
};

describe('markersByTab', () => {
  it('puts a hook error on its line and, raised in the Library, on the Library line too', () => {
    const m = markersByTab(RESULT, (h) => `${h.hook}!`);
    expect(m.output).toEqual([{ line: 2, message: 'output!' }]);
    expect(m.library).toEqual([{ line: 3, message: 'output!' }]);
    // an error without a line (a timeout) marks no line
    expect(m.context).toEqual([]);
    expect(m.input).toEqual([]);
    expect(markersByTab(null, () => '')).toEqual({ library: [], input: [], context: [], output: [] });
  });

  it("puts the Library's own run on the Library tab only", () => {
    const m = markersByTab(
      {
        hooks: [
          { hook: 'library', text: '', stop: false, message: '', logs: [], error: { kind: 'compile', message: 'SyntaxError', line: 0, library_line: 4 } },
        ],
      },
      () => 'm',
    );
    expect(m).toEqual({ library: [{ line: 4, message: 'm' }], input: [], context: [], output: [] });
  });
});

describe('CodeEditor', () => {
  const props = {
    id: 'code',
    label: 'Output script',
    description: 'Runs on the reply.',
    describedBy: 'about',
    invalid: false,
  };

  it('is CodeMirror in a shadow root: JavaScript highlighting, line numbers, error lines marked, edits both ways', async () => {
    const onChange = vi.fn();
    const { container, rerender } = render(
      <CodeEditor {...props} enhance value={'const a = 1\nnull.x\n'} onChange={onChange} markers={[{ line: 2, message: 'TypeError' }]} />,
    );
    const host = container.querySelector<HTMLElement>('[data-testid="code-editor"]')!;
    await waitFor(() => expect(host.hidden).toBe(false));
    // the text area gave way to the editor
    expect(container.querySelector('textarea')).toBeNull();
    const root = host.shadowRoot!;
    expect(root.querySelector('.cm-editor')).not.toBeNull();
    const content = root.querySelector('.cm-content')!;
    expect(content.getAttribute('aria-label')).toBe('Output script');
    expect(content.getAttribute('aria-description')).toBe('Runs on the reply.');
    // line numbers
    const numbers = [...root.querySelectorAll('.cm-lineNumbers .cm-gutterElement')].map((e) => e.textContent);
    expect(numbers).toEqual(expect.arrayContaining(['1', '2', '3']));
    // highlighting: the keyword is a token of its own
    const keyword = [...root.querySelectorAll('.cm-line span')].find((s) => s.textContent === 'const');
    expect(keyword?.className).toMatch(/ͼ/);
    // the error's line is marked, and only it
    const marked = () => [...root.querySelectorAll('.cm-line')].map((l) => l.classList.contains('at-error-line'));
    await waitFor(() => expect(marked()).toEqual([false, true, false]));
    expect(root.querySelectorAll('.cm-line')[1]!.getAttribute('data-error-line')).toBe('2');

    // new markers replace the old; a line past the end is left out
    rerender(
      <CodeEditor
        {...props}
        enhance
        value={'const a = 1\nnull.x\n'}
        onChange={onChange}
        markers={[{ line: 1, message: 'x' }, { line: 9, message: 'y' }]}
      />,
    );
    await waitFor(() => expect(marked()).toEqual([true, false, false]));

    // an edit in the editor reaches onChange; a new value reaches the editor
    const view = EditorView.findFromDOM(root.querySelector('.cm-editor') as HTMLElement)!;
    act(() => view.dispatch({ changes: { from: 0, insert: '// hi\n' } }));
    expect(onChange).toHaveBeenLastCalledWith('// hi\nconst a = 1\nnull.x\n');
    rerender(<CodeEditor {...props} enhance value={'let b = 2'} onChange={onChange} markers={[]} invalid />);
    await waitFor(() => expect(view.state.doc.toString()).toBe('let b = 2'));
    expect(root.querySelector('.cm-content')!.getAttribute('aria-invalid')).toBe('true');
    expect(root.querySelectorAll('.at-error-line')).toHaveLength(0);
  });

  it('swaps the text area for the editor in one task: no moment shows two fields with the label', async () => {
    // Checked at the first microtask after the editor mounts: anything
    // React leaves for a later task would be seen by a screen reader, or a
    // browser test looking the field up by its label, as a second field.
    const seen: { areas: number; editors: number }[] = [];
    const load = async () => {
      const m = await import('../src/solo/codemirror');
      return {
        ...m,
        mountEditor: (host: HTMLElement, opts: Parameters<typeof m.mountEditor>[1]) => {
          const mounted = m.mountEditor(host, opts);
          queueMicrotask(() =>
            seen.push({
              areas: document.querySelectorAll('textarea').length,
              editors: host.shadowRoot?.querySelectorAll('.cm-content').length ?? 0,
            }),
          );
          return mounted;
        },
      };
    };
    render(<CodeEditor {...props} enhance load={load} value="a" onChange={() => {}} markers={[]} />);
    await waitFor(() => expect(seen).toHaveLength(1));
    expect(seen[0]).toEqual({ areas: 0, editors: 1 });
  });

  it('keeps the labelled text area when the editor cannot load, and goes to a line in it', async () => {
    const ref: { current: CodeEditorHandle | null } = { current: null };
    let fail: (e: Error) => void = () => {};
    const load = () => new Promise<never>((_, reject) => (fail = reject));
    render(
      <>
        <label htmlFor="code">Output script</label>
        <CodeEditor {...props} ref={ref} enhance load={load} value={'a\nbb\nccc'} onChange={() => {}} markers={[]} />
      </>,
    );
    await act(async () => fail(new Error('chunk failed')));
    const area = screen.getByLabelText<HTMLTextAreaElement>('Output script');
    expect(area.tagName).toBe('TEXTAREA');
    expect(area.getAttribute('aria-describedby')).toBe('about');
    act(() => ref.current!.goToLine(3));
    expect(document.activeElement).toBe(area);
    expect(area.selectionStart).toBe(5);
  });

  it('stays a text area where the browser cannot style the editor under the CSP', () => {
    const load = vi.fn(() => import('../src/solo/codemirror'));
    render(<CodeEditor {...props} enhance={false} load={load} value="x" onChange={() => {}} markers={[]} />);
    expect(load).not.toHaveBeenCalled();
    expect(screen.getByRole('textbox').tagName).toBe('TEXTAREA');
  });
});

describe('test run in the scenario editor', () => {
  const stored = scenarioView({
    scripts: { library: 'function check(t) {\n  return t\n  throw new Error("no")\n}', input: 'modifier(text)', context: '', output: 'const a = 1\ncheck(text)\n' },
  });

  it('sends the scripts as edited, lists each hook, marks the tabs with errors and goes to the line', async () => {
    stubServer({
      'GET /api/scenarios/5': () => json(200, stored),
      'POST /api/scripts/test': () => json(200, RESULT),
    });
    renderApp('/solo/scenarios/5');
    const tablist = await screen.findByRole('tablist', { name: en['solo.scripts.tabs'] });
    const code = (hook: 'library' | 'input' | 'context' | 'output') =>
      screen.getByLabelText<HTMLTextAreaElement>(format(en['solo.scripts.code'], { hook: en[`solo.scripts.tab.${hook}`] }));
    fireEvent.change(code('input'), { target: { value: 'log("x")\nmodifier(text)' } });
    fireEvent.click(screen.getByRole('button', { name: en['solo.scripts.test.run'] }));
    await waitFor(() => expect(callsTo('POST', '/api/scripts/test')).toHaveLength(1));
    // the unsaved edit is what is tested
    expect(callsTo('POST', '/api/scripts/test')[0]!.body).toEqual({ scripts: { ...stored.scripts, input: 'log("x")\nmodifier(text)' } });

    const results = screen.getByTestId('script-test-result');
    const item = async (hook: string) => {
      await waitFor(() => expect(results.querySelector(`li[data-hook="${hook}"]`)).not.toBeNull());
      return results.querySelector<HTMLElement>(`li[data-hook="${hook}"]`)!;
    };
    expect((await item('input')).dataset.ok).toBe('true');
    expect((await item('input')).textContent).toContain(en['solo.scripts.test.ran']);
    const output = await item('output');
    expect(output.textContent).toContain(format(en['solo.scripts.error.libraryFrom'], { library_line: 3, line: 2, message: 'Error: no x' }));
    // a timeout names no line, and says what happened in the reader's words
    expect((await item('context')).textContent).toContain(
      format(en['solo.scripts.error.none'], { kind: en['server.script.kind.timeout'], message: 'interrupted' }),
    );
    expect(within(await item('context')).queryByRole('button')).toBeNull();

    // the tabs whose scripts have an error line carry a mark with words
    const marked = within(tablist)
      .getAllByRole('tab')
      .filter((tab) => within(tab).queryByTestId('tab-error-mark'))
      .map((tab) => tab.id.split('-tab-')[1]);
    expect(marked).toEqual(['library', 'output']);
    // said as the tab's description; its name stays the hook's
    const outputTab = within(tablist).getByRole('tab', { name: en['solo.scripts.tab.output'] });
    expect(document.getElementById(outputTab.getAttribute('aria-describedby')!)?.textContent).toBe(en['solo.scripts.tabHasErrors']);
    expect(within(tablist).getByRole('tab', { name: en['solo.scripts.tab.input'] }).hasAttribute('aria-describedby')).toBe(false);

    // Go to line opens the output tab and puts the cursor at line 2
    fireEvent.click(within(output).getByRole('button', { name: format(en['solo.scripts.test.goTo'], { line: 2 }) }));
    expect(within(tablist).getByRole('tab', { name: new RegExp(en['solo.scripts.tab.output']) }).getAttribute('aria-selected')).toBe('true');
    await waitFor(() => expect(document.activeElement).toBe(code('output')));
    expect(code('output').selectionStart).toBe('const a = 1\n'.length);
  });

  it('reads in zh-TW', async () => {
    localStorage.setItem(LANGUAGE_STORAGE_KEY, 'zh-TW');
    stubServer({
      'GET /api/scenarios/5': () => json(200, stored),
      'POST /api/scripts/test': () => json(200, RESULT),
    });
    renderApp('/solo/scenarios/5');
    fireEvent.click(await screen.findByRole('button', { name: zhTW['solo.scripts.test.run'] }));
    await waitFor(() =>
      expect(screen.getByTestId('script-test-result').textContent).toContain(
        format(zhTW['solo.scripts.error.libraryFrom'], { library_line: 3, line: 2, message: 'Error: no x' }),
      ),
    );
  });
});
