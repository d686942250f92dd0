import { useCallback, useLayoutEffect, useRef, useState, type FormEvent } from 'react';
import { ErrorNotice } from '../components/ErrorNotice';
import { format } from '../i18n/messages';
import { useI18n } from '../i18n/I18nProvider';
import { useAction } from '../useAction';
import { useApi } from '../useApi';
import { isServerTextCode, serverText } from '../i18n/serverText';
import { listBranches, renameBranch, type BranchView } from './api';
import { focusOnMount } from '../focus';

// BranchList shows every line of the adventure; the current one is marked and
// any other can be switched to. version changes whenever the page changes
// (a turn, a fork, a switch), which reloads the list. Any branch can be
// renamed in place.
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
  // the branch being renamed and its new name
  const [renaming, setRenaming] = useState<{ id: number; draft: string } | null>(null);
  const rename = useAction();
  const renameButtons = useRef(new Map<number, HTMLButtonElement>());
  // the Rename button to focus once the form is gone; after a save, once the
  // list shown is no longer stale (a list other than stale)
  const [focusTo, setFocusTo] = useState<{ id: number; stale: typeof list | null } | null>(null);
  useLayoutEffect(() => {
    if (focusTo === null || list.state !== 'ok' || list === focusTo.stale) return;
    renameButtons.current.get(focusTo.id)?.focus();
    setFocusTo(null);
  }, [focusTo, list]);
  const stopRenaming = (branchId: number) => {
    setRenaming(null);
    rename.clear();
    setFocusTo({ id: branchId, stale: null });
  };
  const saveName = async (e: FormEvent) => {
    e.preventDefault();
    if (!renaming || busy || rename.busy) return;
    const name = renaming.draft.trim();
    if (name === '') return;
    const saved = await rename.run(() => renameBranch(adventureId, renaming.id, name));
    if (!saved) return;
    setRenaming(null);
    setFocusTo({ id: saved.id, stale: list });
    reload();
  };
  // A name the server gave comes with a code, written in the reader's
  // language; a name the player chose is shown as it is.
  const name = (b: BranchView) => {
    if (isServerTextCode(b.name_code)) return serverText(t, b.name_code, b.name_params, b.name);
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
              {renaming?.id === b.id ? (
                <form className="branch-rename" onSubmit={saveName}>
                  <input
                    aria-label={format(t('solo.branches.newName'), { name: name(b) })}
                    value={renaming.draft}
                    maxLength={120}
                    ref={focusOnMount}
                    aria-invalid={rename.error !== null || undefined}
                    onChange={(e) => setRenaming({ id: b.id, draft: e.target.value })}
                    onKeyDown={(e) => {
                      if (e.key === 'Escape') {
                        e.preventDefault();
                        stopRenaming(b.id);
                      }
                    }}
                  />{' '}
                  <button type="submit" className="tool" disabled={busy || rename.busy || renaming.draft.trim() === ''}>
                    {t('common.save')}
                  </button>{' '}
                  <button type="button" className="tool" onClick={() => stopRenaming(b.id)}>
                    {t('common.cancel')}
                  </button>
                </form>
              ) : (
                <span className="branch-name">{name(b)}</span>
              )}
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
              {renaming?.id !== b.id && (
                <button
                  type="button"
                  className="tool"
                  ref={(el) => {
                    if (el) renameButtons.current.set(b.id, el);
                    else renameButtons.current.delete(b.id);
                  }}
                  disabled={busy}
                  onClick={() => {
                    rename.clear();
                    setRenaming({ id: b.id, draft: isServerTextCode(b.name_code) ? '' : b.name });
                  }}
                  aria-label={format(t('solo.branches.renameLabel'), { name: name(b) })}
                >
                  {t('solo.branches.rename')}
                </button>
              )}
              {renaming?.id === b.id && rename.error !== null && (
                <ErrorNotice code={rename.error} lead={t('solo.branches.renameFailed')} />
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
