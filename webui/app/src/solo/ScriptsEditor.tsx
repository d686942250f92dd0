import { useId, useMemo, useRef, useState } from 'react';
import { ErrorNotice } from '../components/ErrorNotice';
import { panelId, tabId, TabList } from '../components/Tabs';
import { format, type MessageKey } from '../i18n/messages';
import { useI18n } from '../i18n/I18nProvider';
import { SCRIPT_ERROR_KINDS } from '../i18n/serverText';
import { useAction } from '../useAction';
import type { ScenarioScripts } from './api';
import { CodeEditor, type CodeEditorHandle } from './CodeEditor';
import { SCRIPT_TABS } from './scenarioDraft';
import { markersByTab, testScripts, type ScriptTestHook, type ScriptTestResult } from './scriptTest';

type Tab = (typeof SCRIPT_TABS)[number];

// The server refuses a script over 1 MiB (of UTF-8); say so before saving.
const MAX_SCRIPT_BYTES = 1 << 20;
const tooLarge = (code: string) =>
  // a string of n UTF-16 units holds at most 3n bytes: skip the count for short ones
  code.length * 3 > MAX_SCRIPT_BYTES && new TextEncoder().encode(code).length > MAX_SCRIPT_BYTES;

// ScriptsEditor edits the scenario's four user scripts, one tab each: the
// library (prepended to every hook) and the input, context and output hooks.
// Every tab's panel stays mounted (hidden when not chosen) so nothing typed is
// lost when switching. "Test scripts" runs them as they are in the editor
// (saved or not) once against a sample story on the server; the errors of
// that run are marked on their lines, in the hook's tab and, for an error
// raised in the Library, in the Library's tab too.
export function ScriptsEditor({
  scripts,
  onChange,
  invalid,
}: {
  scripts: ScenarioScripts;
  onChange: (scripts: ScenarioScripts) => void;
  // invalid says whether the server named this script (or all scripts) as a bad field
  invalid: (tab: Tab) => boolean;
}) {
  const { t } = useI18n();
  const idp = useId();
  const [tab, setTab] = useState<Tab>('library');
  const editors = useRef<Partial<Record<Tab, CodeEditorHandle | null>>>({});
  const [result, setResult] = useState<ScriptTestResult | null>(null);
  const test = useAction();

  const hookName = (h: string) =>
    (SCRIPT_TABS as readonly string[]).includes(h) ? t(`solo.scripts.tab.${h as Tab}`) : h;
  const describe = (h: ScriptTestHook) => {
    const e = h.error;
    if (!e) return t('solo.scripts.test.ran');
    const vars = { line: e.line, library_line: e.library_line, message: e.message };
    if (h.hook !== 'library' && e.line > 0 && e.library_line > 0) return format(t('solo.scripts.error.libraryFrom'), vars);
    if (h.hook !== 'library' && e.line > 0) return format(t('solo.scripts.error.line'), vars);
    if (e.library_line > 0) return format(t('solo.scripts.error.library'), vars);
    const kind = (SCRIPT_ERROR_KINDS as readonly string[]).includes(e.kind)
      ? t(`server.script.kind.${e.kind}` as MessageKey)
      : e.kind;
    return format(t('solo.scripts.error.none'), { kind, message: e.message });
  };
  // describe depends on the language only through t; the markers follow the result
  const markers = useMemo(() => markersByTab(result, describe), [result, t]);
  // where "Go to line" leads for a hook's error: its own line, else the Library's
  const target = (h: ScriptTestHook): [Tab, number] | null => {
    const e = h.error;
    if (!e) return null;
    if (h.hook !== 'library' && e.line > 0) return [h.hook as Tab, e.line];
    if (e.library_line > 0) return ['library', e.library_line];
    return null;
  };
  const goTo = ([x, line]: [Tab, number]) => {
    setTab(x);
    // the panel is shown on the next render; the editor takes focus then
    setTimeout(() => editors.current[x]?.goToLine(line), 0);
  };
  const runTest = async () => {
    const r = await test.run(() => testScripts(scripts));
    if (r) setResult(r);
  };

  return (
    <fieldset className="scripts-editor">
      <legend>{t('solo.scripts.title')}</legend>
      <p className="hint">{t('solo.scripts.hint')}</p>
      {/* every panel stays mounted, hidden but the chosen one */}
      <TabList
        baseId={idp}
        label={t('solo.scripts.tabs')}
        className="script-tabs"
        items={SCRIPT_TABS.map((x) => ({
          id: x,
          describedBy: markers[x].length > 0 ? `${idp}-tab-errors` : undefined,
          label: (
            <>
              {t(`solo.scripts.tab.${x}`)}
              {scripts[x].trim() !== '' && (
                // a mark on tabs that hold code; the name of the tab stays the same
                <span className="script-mark" aria-hidden="true">
                  {' •'}
                </span>
              )}
              {markers[x].length > 0 && (
                // said as the tab's description, so the tab (and its panel) keep their name
                <span className="script-error-mark" data-testid="tab-error-mark" aria-hidden="true">
                  {' ⚠'}
                </span>
              )}
            </>
          ),
        }))}
        selected={tab}
        onSelect={setTab}
      />
        <span id={`${idp}-tab-errors`} className="visually-hidden">
          {t('solo.scripts.tabHasErrors')}
        </span>
        {SCRIPT_TABS.map((x) => {
          const big = tooLarge(scripts[x]);
          const described = [`${idp}-about-${x}`, ...(big ? [`${idp}-big-${x}`] : [])].join(' ');
          return (
            <div
              key={x}
              id={panelId(idp, x)}
              role="tabpanel"
              aria-labelledby={tabId(idp, x)}
              className="script-panel"
              hidden={tab !== x}
            >
              <label
                className="field-label"
                htmlFor={`${idp}-code-${x}`}
                // the code editor is in a shadow root, out of the label's reach
                onClick={() => editors.current[x]?.focus()}
              >
                {format(t('solo.scripts.code'), { hook: t(`solo.scripts.tab.${x}`) })}
              </label>
              <p className="hint" id={`${idp}-about-${x}`}>
                {t(`solo.scripts.about.${x}`)}
              </p>
              <CodeEditor
                ref={(h) => {
                  editors.current[x] = h;
                }}
                id={`${idp}-code-${x}`}
                className="script-code"
                value={scripts[x]}
                onChange={(v) => onChange({ ...scripts, [x]: v })}
                label={format(t('solo.scripts.code'), { hook: t(`solo.scripts.tab.${x}`) })}
                description={`${t(`solo.scripts.about.${x}`)} ${t('solo.scripts.keyboard')}`}
                describedBy={described}
                invalid={big || invalid(x)}
                markers={markers[x]}
              />
              {big && (
                <p className="field-error" id={`${idp}-big-${x}`}>
                  {t('solo.scripts.tooLarge')}
                </p>
              )}
            </div>
          );
        })}
      <p className="hint">
        {t('solo.scripts.keyboard')}
      </p>
      <div className="script-test">
        <p className="form-actions">
          <button type="button" onClick={() => void runTest()} disabled={test.busy} aria-describedby={`${idp}-test-about`}>
            {test.busy ? t('solo.scripts.test.running') : t('solo.scripts.test.run')}
          </button>
        </p>
        <p className="hint" id={`${idp}-test-about`}>
          {t('solo.scripts.test.about')}
        </p>
        {test.error !== null && <ErrorNotice code={test.error} lead={t('solo.scripts.test.failed')} />}
        <div aria-live="polite" data-testid="script-test-result">
          {result &&
            (result.hooks.length === 0 ? (
              <p>{t('solo.scripts.test.nothing')}</p>
            ) : (
              <ul className="script-test-hooks">
                {result.hooks.map((h) => {
                  const to = target(h);
                  return (
                    <li key={h.hook} data-hook={h.hook} data-ok={h.error ? 'false' : 'true'} className={h.error ? 'failed' : ''}>
                      <strong>{hookName(h.hook)}</strong>
                      {': '}
                      <span className="script-test-text">{describe(h)}</span>
                      {to && (
                        <>
                          {' '}
                          <button type="button" onClick={() => goTo(to)}>
                            {format(t('solo.scripts.test.goTo'), { line: to[1] })}
                          </button>
                        </>
                      )}
                      {h.logs.length > 0 && (
                        <details>
                          <summary>{format(t('solo.scripts.test.logs'), { count: h.logs.length })}</summary>
                          <pre className="script-test-logs">{h.logs.join('\n')}</pre>
                        </details>
                      )}
                    </li>
                  );
                })}
              </ul>
            ))}
        </div>
      </div>
    </fieldset>
  );
}
