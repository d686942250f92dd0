import { useCallback, useId } from 'react';
import { ErrorNotice } from '../components/ErrorNotice';
import { useI18n } from '../i18n/I18nProvider';
import type { MessageKey } from '../i18n/messages';
import { useAction } from '../useAction';
import { useApi } from '../useApi';
import { applyRefresh, getRefreshDiff, type AdventurePage, type Card, type RefreshDiff } from './api';

const FIELDS = [
  'plot_essentials',
  'ai_instructions',
  'authors_note',
  'premise',
  'stat_schema',
  'script_library',
  'script_input',
  'script_context',
  'script_output',
] as const;

const isEmpty = (d: RefreshDiff) =>
  d.fields.length === 0 &&
  d.cards_added.length === 0 &&
  d.cards_updated.length === 0 &&
  d.cards_removed.length === 0 &&
  d.state_paths_added.length === 0 &&
  d.state_paths_removed.length === 0;

// RefreshPanel shows what "Update from scenario" would change in the
// adventure (the scenario was edited since the adventure began) and applies it.
export function RefreshPanel({
  adventureId,
  onApplied,
  onClose,
}: {
  adventureId: number;
  onApplied: (page: AdventurePage) => void;
  onClose: () => void;
}) {
  const { t } = useI18n();
  const id = useId();
  const load = useCallback((signal: AbortSignal) => getRefreshDiff(adventureId, signal), [adventureId]);
  const [diff, reload] = useApi(load);
  const action = useAction();
  const apply = async () => {
    const page = await action.run(() => applyRefresh(adventureId));
    if (page) onApplied(page);
  };
  const fieldName = (f: string) => ((FIELDS as readonly string[]).includes(f) ? t(`solo.refresh.field.${f}` as MessageKey) : f);
  const cardLine = (c: Card) => `${c.title}${c.keys.length > 0 ? ` (${c.keys.join(', ')})` : ''}`;

  return (
    <section className="panel refresh-panel" aria-labelledby={`${id}-title`} data-testid="refresh">
      <h2 id={`${id}-title`}>{t('solo.refresh.title')}</h2>
      {diff.state === 'loading' && <p aria-busy="true">{t('common.loading')}</p>}
      {diff.state === 'error' && <ErrorNotice code={diff.code} lead={t('solo.refresh.failed')} onRetry={reload} />}
      {diff.state === 'ok' &&
        (isEmpty(diff.data) ? (
          <p data-testid="refresh-empty">{t('solo.refresh.none')}</p>
        ) : (
          <>
            <p className="hint">{t('solo.refresh.intro')}</p>
            {diff.data.fields.map((f) => (
              <div key={f.field} className="refresh-field" data-testid="refresh-field">
                <h3>{fieldName(f.field)}</h3>
                <div className="diff-pair">
                  <div>
                    <p className="field-label">{t('solo.refresh.old')}</p>
                    <pre className="diff-old">{f.old}</pre>
                  </div>
                  <div>
                    <p className="field-label">{t('solo.refresh.new')}</p>
                    <pre className="diff-new">{f.new}</pre>
                  </div>
                </div>
              </div>
            ))}
            {diff.data.cards_added.length > 0 && (
              <>
                <h3>{t('solo.refresh.cardsAdded')}</h3>
                <ul>
                  {diff.data.cards_added.map((c) => (
                    <li key={c.id}>{cardLine(c)}</li>
                  ))}
                </ul>
              </>
            )}
            {diff.data.cards_updated.length > 0 && (
              <>
                <h3>{t('solo.refresh.cardsUpdated')}</h3>
                <ul>
                  {diff.data.cards_updated.map((c) => (
                    <li key={c.new.id}>
                      {cardLine(c.old)} → {cardLine(c.new)}
                    </li>
                  ))}
                </ul>
              </>
            )}
            {diff.data.cards_removed.length > 0 && (
              <>
                <h3>{t('solo.refresh.cardsRemoved')}</h3>
                <ul>
                  {diff.data.cards_removed.map((c) => (
                    <li key={c.id}>{cardLine(c)}</li>
                  ))}
                </ul>
              </>
            )}
            {diff.data.state_paths_added.length > 0 && (
              <p>
                {t('solo.refresh.statsAdded')} <code>{diff.data.state_paths_added.join(', ')}</code>
              </p>
            )}
            {diff.data.state_paths_removed.length > 0 && (
              <p>
                {t('solo.refresh.statsRemoved')} <code>{diff.data.state_paths_removed.join(', ')}</code>
              </p>
            )}
          </>
        ))}
      {action.error !== null && <ErrorNotice code={action.error} />}
      <p className="form-actions">
        {diff.state === 'ok' && !isEmpty(diff.data) && (
          <>
            <button type="button" onClick={apply} disabled={action.busy}>
              {t('solo.refresh.apply')}
            </button>{' '}
          </>
        )}
        <button type="button" onClick={onClose}>
          {t('solo.refresh.close')}
        </button>
      </p>
    </section>
  );
}
