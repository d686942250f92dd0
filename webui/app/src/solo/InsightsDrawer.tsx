import { useCallback, useEffect, useId, useRef } from 'react';
import { ErrorNotice } from '../components/ErrorNotice';
import { ModalDialog } from '../components/ModalDialog';
import { useI18n } from '../i18n/I18nProvider';
import type { MessageKey } from '../i18n/messages';
import { useApi } from '../useApi';
import { getInsights, type InsightMemory, type Insights, type MemoryScorer } from './api';

const SECTIONS = [
  'static',
  'history',
  'authors_note',
  'summary',
  'lore',
  'memories',
  'stats',
  'front_memory',
  'length_hint',
  'refusal_note',
  'emit_reminder',
] as const;

const SCORERS: readonly MemoryScorer[] = ['pinned', 'bm25', 'embedding'];

// InsightsDrawer shows how the prompt of one narration was built: the token
// budget, each section's share, which story cards were triggered and fitted,
// which memories it carried (and what chose each), and the exact messages
// sent to the model. Once retention dropped the prompt, only the usage is left.
export function InsightsDrawer({ actionId, onClose }: { actionId: number; onClose: () => void }) {
  const { t } = useI18n();
  const id = useId();
  const load = useCallback((signal: AbortSignal) => getInsights(actionId, signal), [actionId]);
  const [ins, reload] = useApi(load);
  const close = useRef<HTMLButtonElement>(null);
  useEffect(() => close.current?.focus(), [actionId]);

  return (
    <ModalDialog kind="drawer" className="drawer" labelledBy={`${id}-title`} testId="insights" onClose={onClose}>
      <div className="drawer-head">
        <h2 id={`${id}-title`}>{t('solo.insights.title')}</h2>
        <button type="button" ref={close} onClick={onClose}>
          {t('solo.insights.close')}
        </button>
      </div>
      {ins.state === 'loading' && <p aria-busy="true">{t('common.loading')}</p>}
      {ins.state === 'error' && (
        <ErrorNotice
          code={ins.code}
          lead={ins.code === 'not_found' ? t('solo.insights.none') : t('solo.insights.failed')}
          onRetry={ins.code === 'not_found' ? undefined : reload}
        />
      )}
      {ins.state === 'ok' && <InsightsBody ins={ins.data} />}
    </ModalDialog>
  );
}

function InsightsBody({ ins }: { ins: Insights }) {
  const { t } = useI18n();
  const sectionName = (name: string) =>
    (SECTIONS as readonly string[]).includes(name) ? t(`solo.section.${name}` as MessageKey) : name;
  const yesNo = (b: boolean) => (b ? t('common.yes') : t('common.no'));
  const usage = (
    <>
      <dt>{t('solo.insights.usage')}</dt>
      <dd data-testid="insights-usage">
        {ins.usage.prompt_tokens} / {ins.usage.completion_tokens} / {ins.usage.cached_prompt_tokens}
        <span className="hint"> ({t('solo.insights.usageParts')})</span>
      </dd>
    </>
  );
  if (ins.expired)
    return (
      <div className="drawer-body">
        <p className="notice notice-warn" data-testid="insights-expired">
          {t('solo.insights.expired')}
        </p>
        <dl className="facts">{usage}</dl>
      </div>
    );
  return (
    <div className="drawer-body">
      <dl className="facts">
        <dt>{t('solo.insights.budget')}</dt>
        <dd data-testid="insights-budget">{ins.budget}</dd>
        <dt>{t('solo.insights.total')}</dt>
        <dd data-testid="insights-total">{ins.total_tokens}</dd>
        <dt>{t('solo.insights.historyTurns')}</dt>
        <dd>{ins.history_turns}</dd>
        {usage}
      </dl>

      <h3>{t('solo.insights.sections')}</h3>
      <table className="grid" data-testid="insights-sections">
        <thead>
          <tr>
            <th scope="col">{t('solo.insights.section')}</th>
            <th scope="col">{t('solo.insights.tokens')}</th>
            <th scope="col">{t('solo.insights.fixed')}</th>
          </tr>
        </thead>
        <tbody>
          {ins.sections.map((s, i) => (
            <tr key={`${s.name}-${i}`}>
              <th scope="row" title={s.name}>
                {sectionName(s.name)}
              </th>
              <td>{s.tokens}</td>
              <td>{yesNo(s.fixed)}</td>
            </tr>
          ))}
        </tbody>
      </table>

      <h3>{t('solo.insights.cards')}</h3>
      {ins.cards.length === 0 ? (
        <p className="hint">{t('solo.insights.noCards')}</p>
      ) : (
        <table className="grid" data-testid="insights-cards">
          <thead>
            <tr>
              <th scope="col">{t('solo.insights.card')}</th>
              <th scope="col">{t('solo.insights.trigger')}</th>
              <th scope="col">{t('solo.insights.tokens')}</th>
              <th scope="col">{t('solo.insights.included')}</th>
            </tr>
          </thead>
          <tbody>
            {ins.cards.map((c) => (
              <tr key={c.id} className={c.included ? undefined : 'is-excluded'}>
                <th scope="row">{c.title}</th>
                <td>{c.trigger}</td>
                <td>{c.tokens}</td>
                <td>{yesNo(c.included)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}

      <h3>{t('solo.insights.memories')}</h3>
      <InsightMemories memories={ins.memories ?? []} />

      <h3>{t('solo.insights.messages')}</h3>
      {ins.messages.map((m, i) => (
        <section key={i} className="prompt-message" data-testid="prompt-message">
          <h4>{m.role}</h4>
          <pre>{m.content}</pre>
        </section>
      ))}
    </div>
  );
}

// InsightMemories lists the memories a prompt carried, in story order, with
// what chose each (pinned, the lexical scorer or the embedding model) and its
// score.
function InsightMemories({ memories }: { memories: InsightMemory[] }) {
  const { t } = useI18n();
  if (memories.length === 0)
    return (
      <p className="hint" data-testid="insights-no-memories">
        {t('solo.insights.noMemories')}
      </p>
    );
  const scorerName = (s: string) =>
    (SCORERS as readonly string[]).includes(s) ? t(`solo.insights.scorer.${s as MemoryScorer}`) : s;
  return (
    <table className="grid insights-memories" data-testid="insights-memories">
      <thead>
        <tr>
          <th scope="col">{t('solo.insights.memory')}</th>
          <th scope="col">{t('solo.insights.scorer')}</th>
          <th scope="col">{t('solo.insights.score')}</th>
        </tr>
      </thead>
      <tbody>
        {memories.map((m) => (
          <tr key={m.id} data-testid="insight-memory" data-memory-id={m.id} data-scorer={m.scorer}>
            <td className="memory-text">{m.text}</td>
            <td data-testid="insight-memory-scorer">{scorerName(m.scorer)}</td>
            <td data-testid="insight-memory-score">{m.score.toFixed(2)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
