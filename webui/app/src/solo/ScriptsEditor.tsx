import { useId, useRef, useState, type KeyboardEvent } from 'react';
import { format } from '../i18n/messages';
import { useI18n } from '../i18n/I18nProvider';
import type { ScenarioScripts } from './api';
import { SCRIPT_TABS } from './scenarioDraft';

type Tab = (typeof SCRIPT_TABS)[number];

// The server refuses a script over 1 MiB (of UTF-8); say so before saving.
const MAX_SCRIPT_BYTES = 1 << 20;
const tooLarge = (code: string) =>
  // a string of n UTF-16 units holds at most 3n bytes: skip the count for short ones
  code.length * 3 > MAX_SCRIPT_BYTES && new TextEncoder().encode(code).length > MAX_SCRIPT_BYTES;

// ScriptsEditor edits the scenario's four user scripts, one tab each: the
// library (prepended to every hook) and the input, context and output hooks.
// Every tab's panel stays mounted (hidden when not chosen) so nothing typed is
// lost when switching.
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
  const tabRefs = useRef<Partial<Record<Tab, HTMLButtonElement | null>>>({});

  const choose = (next: Tab) => {
    setTab(next);
    tabRefs.current[next]?.focus();
  };
  // arrow keys move along the tabs (wrapping), Home and End jump to the ends
  const onKeyDown = (e: KeyboardEvent) => {
    const i = SCRIPT_TABS.indexOf(tab);
    const n = SCRIPT_TABS.length;
    let next: Tab | undefined;
    if (e.key === 'ArrowRight') next = SCRIPT_TABS[(i + 1) % n];
    else if (e.key === 'ArrowLeft') next = SCRIPT_TABS[(i + n - 1) % n];
    else if (e.key === 'Home') next = SCRIPT_TABS[0];
    else if (e.key === 'End') next = SCRIPT_TABS[n - 1];
    if (!next) return;
    e.preventDefault();
    choose(next);
  };

  return (
    <fieldset className="scripts-editor">
      <legend>{t('solo.scripts.title')}</legend>
      <p className="hint">{t('solo.scripts.hint')}</p>
      <div className="script-tabs" role="tablist" aria-label={t('solo.scripts.tabs')} onKeyDown={onKeyDown}>
        {SCRIPT_TABS.map((x) => (
          <button
            key={x}
            ref={(el) => {
              tabRefs.current[x] = el;
            }}
            type="button"
            role="tab"
            id={`${idp}-tab-${x}`}
            aria-selected={tab === x}
            aria-controls={`${idp}-panel-${x}`}
            tabIndex={tab === x ? 0 : -1}
            onClick={() => setTab(x)}
          >
            {t(`solo.scripts.tab.${x}`)}
            {scripts[x].trim() !== '' && (
              // a mark on tabs that hold code; the name of the tab stays the same
              <span className="script-mark" aria-hidden="true">
                {' •'}
              </span>
            )}
          </button>
        ))}
      </div>
      {SCRIPT_TABS.map((x) => {
        const big = tooLarge(scripts[x]);
        const described = [`${idp}-about-${x}`, ...(big ? [`${idp}-big-${x}`] : [])].join(' ');
        return (
          <div
            key={x}
            className="script-panel"
            role="tabpanel"
            id={`${idp}-panel-${x}`}
            aria-labelledby={`${idp}-tab-${x}`}
            hidden={tab !== x}
          >
            <label className="field-label" htmlFor={`${idp}-code-${x}`}>
              {format(t('solo.scripts.code'), { hook: t(`solo.scripts.tab.${x}`) })}
            </label>
            <p className="hint" id={`${idp}-about-${x}`}>
              {t(`solo.scripts.about.${x}`)}
            </p>
            <textarea
              id={`${idp}-code-${x}`}
              className="script-code"
              rows={14}
              value={scripts[x]}
              spellCheck={false}
              autoCapitalize="off"
              autoCorrect="off"
              autoComplete="off"
              wrap="off"
              onChange={(e) => onChange({ ...scripts, [x]: e.target.value })}
              aria-describedby={described}
              aria-invalid={big || invalid(x) || undefined}
            />
            {big && (
              <p className="field-error" id={`${idp}-big-${x}`}>
                {t('solo.scripts.tooLarge')}
              </p>
            )}
          </div>
        );
      })}
    </fieldset>
  );
}
