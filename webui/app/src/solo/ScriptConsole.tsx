import { useCallback, useId } from 'react';
import { ErrorNotice } from '../components/ErrorNotice';
import { ModalDialog } from '../components/ModalDialog';
import { useI18n } from '../i18n/I18nProvider';
import { serverText } from '../i18n/serverText';
import { useApi } from '../useApi';
import { getScriptConsole, type ScriptHook, type ScriptLevel } from './api';
import { focusOnMount } from '../focus';

const HOOKS = ['input', 'context', 'output'] as const;
const LEVELS = ['log', 'error', 'message'] as const;

const timeOf = (iso: string, lang: string) => {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : d.toLocaleTimeString(lang, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
};

// ScriptConsole is the drawer of the adventure's script console: what the
// scripts log()ged, their state.message notices and their failures, oldest
// first. It loads when opened (it is mounted only while open) and again when
// version changes (a turn ended while it was open).
export function ScriptConsole({
  adventureId,
  version,
  onClose,
}: {
  adventureId: number;
  version: string;
  onClose: () => void;
}) {
  const { t, lang } = useI18n();
  const id = useId();
  // version is only a reload trigger: a new value makes a new loader.
  const load = useCallback(
    (signal: AbortSignal) => (void version, getScriptConsole(adventureId, signal)),
    [adventureId, version],
  );
  const [list, reload] = useApi(load);

  const hookName = (h: string) => ((HOOKS as readonly string[]).includes(h) ? t(`solo.scripts.tab.${h as ScriptHook}`) : h);
  const levelName = (l: string) =>
    (LEVELS as readonly string[]).includes(l) ? t(`solo.console.level.${l as ScriptLevel}`) : l;

  return (
    <ModalDialog kind="drawer" className="drawer" labelledBy={`${id}-title`} testId="script-console" onClose={onClose}>
      <div className="drawer-head">
        <h2 id={`${id}-title`}>{t('solo.console.title')}</h2>
        <span>
          <button type="button" onClick={reload} disabled={list.state === 'loading'}>
            {t('solo.console.reload')}
          </button>{' '}
          <button type="button" ref={focusOnMount} onClick={onClose}>
            {t('solo.console.close')}
          </button>
        </span>
      </div>
      <p className="hint">{t('solo.console.intro')}</p>
      {list.state === 'loading' && <p aria-busy="true">{t('common.loading')}</p>}
      {list.state === 'error' && <ErrorNotice code={list.code} lead={t('solo.console.failed')} onRetry={reload} />}
      {list.state === 'ok' &&
        (list.data.entries.length === 0 ? (
          <p data-testid="console-empty">{t('solo.console.empty')}</p>
        ) : (
          <table className="grid console-table" data-testid="console-entries">
            <thead>
              <tr>
                <th scope="col">{t('solo.console.time')}</th>
                <th scope="col">{t('solo.console.hook')}</th>
                <th scope="col">{t('solo.console.level')}</th>
                <th scope="col">{t('solo.console.text')}</th>
              </tr>
            </thead>
            <tbody>
              {list.data.entries.map((e) => (
                <tr
                  key={e.id}
                  className={`level-${e.level}`}
                  data-testid="console-entry"
                  data-hook={e.hook}
                  data-level={e.level}
                >
                  <td>
                    <time dateTime={e.created_at}>{timeOf(e.created_at, lang)}</time>
                  </td>
                  <td>{hookName(e.hook)}</td>
                  <td>{levelName(e.level)}</td>
                  <td className="console-text" data-testid="console-text">
                    {serverText(t, e.code, e.params, e.text)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
    </ModalDialog>
  );
}
