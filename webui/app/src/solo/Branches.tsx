import { useCallback } from 'react';
import { ErrorNotice } from '../components/ErrorNotice';
import { format } from '../i18n/messages';
import { useI18n } from '../i18n/I18nProvider';
import { useApi } from '../useApi';
import { listBranches, type BranchView } from './api';

// BranchList shows every line of the adventure; the current one is marked and
// any other can be switched to. version changes whenever the page changes
// (a turn, a fork, a switch), which reloads the list.
export function BranchList({
  adventureId,
  version,
  busy,
  onSwitch,
}: {
  adventureId: number;
  version: string;
  busy: boolean;
  onSwitch: (branchId: number) => void;
}) {
  const { t } = useI18n();
  // version is only a reload trigger: a new value makes a new loader.
  const load = useCallback(
    (signal: AbortSignal) => (void version, listBranches(adventureId, signal)),
    [adventureId, version],
  );
  const [list, reload] = useApi(load);
  const name = (b: BranchView) => {
    if (b.name.trim() !== '') return b.name;
    return b.parent_branch_id === null ? t('solo.branches.main') : format(t('solo.branches.nameN'), { id: b.id });
  };
  return (
    <section className="panel" aria-labelledby="solo-branches-title" data-testid="branches">
      <h2 id="solo-branches-title">{t('solo.branches.title')}</h2>
      {list.state === 'loading' && <p aria-busy="true">{t('common.loading')}</p>}
      {list.state === 'error' && <ErrorNotice code={list.code} lead={t('solo.branches.failed')} onRetry={reload} />}
      {list.state === 'ok' && (
        <ul className="item-list">
          {list.data.branches.map((b) => (
            <li
              key={b.id}
              data-testid="branch"
              data-branch-id={b.id}
              data-current={b.is_head || undefined}
              aria-current={b.is_head ? 'true' : undefined}
              className={b.is_head ? 'is-current' : undefined}
            >
              <span className="branch-name">{name(b)}</span>
              <span className="hint">
                {b.parent_branch_id === null
                  ? format(t('solo.branches.length'), { tip: b.tip_depth })
                  : format(t('solo.branches.forked'), { fork: b.fork_depth, tip: b.tip_depth })}
              </span>
              {b.is_head ? (
                <span className="badge badge-on">{t('solo.branches.current')}</span>
              ) : (
                <button
                  type="button"
                  disabled={busy}
                  onClick={() => onSwitch(b.id)}
                  aria-label={format(t('solo.branches.switchTo'), { name: name(b) })}
                >
                  {t('solo.branches.switch')}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
