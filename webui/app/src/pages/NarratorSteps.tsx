// The narrator's steps (Insights for a table seat): for those who direct
// it, each recent step with its tokens, its tool calls and outcome, and on
// opening it the prompt's sections with their tokens, the tool calls with
// their arguments and the exact messages the model got. A DM narrator's
// prompt holds what only the DM may see; the server shows it to those who
// may direct it and no one else.
import { useCallback, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { ErrorNotice } from '../components/ErrorNotice';
import { useI18n } from '../i18n/I18nProvider';
import { format } from '../i18n/messages';
import { getNarratorStep, listNarratorSteps, type NarratorStepSummary } from '../table/api';
import { useApi } from '../useApi';
import { usePageTitle } from '../usePageTitle';

export function NarratorStepsPage() {
  const { seatId = '' } = useParams();
  const { t } = useI18n();
  usePageTitle('title.narratorSteps');
  const navigate = useNavigate();
  const load = useCallback((signal: AbortSignal) => listNarratorSteps(seatId, signal), [seatId]);
  const [steps, reload] = useApi(load);
  return (
    <div className="page narrator-steps-page">
      <p className="crumbs">
        <button type="button" className="link-button" onClick={() => navigate(-1)}>
          {t('narrator.steps.back')}
        </button>
      </p>
      <h1>{t('narrator.steps.title')}</h1>
      <p className="hint">{t('narrator.steps.intro')}</p>
      <p>
        <button type="button" onClick={reload} data-testid="narrator-steps-reload">
          {t('narrator.steps.reload')}
        </button>
      </p>
      {steps.state === 'error' && <ErrorNotice code={steps.code} onRetry={reload} />}
      {steps.state === 'ok' &&
        (steps.data.length === 0 ? (
          <p className="empty-state">{t('narrator.steps.none')}</p>
        ) : (
          <ol className="narrator-steps" data-testid="narrator-steps">
            {steps.data.map((s) => (
              <StepItem key={s.id} seatId={seatId} step={s} />
            ))}
          </ol>
        ))}
    </div>
  );
}

function StepItem({ seatId, step }: { seatId: string; step: NarratorStepSummary }) {
  const { t, lang, errorText } = useI18n();
  const [open, setOpen] = useState(false);
  const when = new Date(step.created_at).toLocaleTimeString(lang, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  return (
    <li className="narrator-step" data-testid="narrator-step" data-step-id={step.id}>
      <details onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)}>
        <summary>
          <time dateTime={step.created_at}>{when}</time>{' '}
          <span>
            {format(t('narrator.steps.summary'), {
              calls: step.tool_calls,
              prompt: step.prompt_tokens.toLocaleString(lang),
              completion: step.completion_tokens.toLocaleString(lang),
            })}
          </span>
          {step.outcome !== '' && (
            <span className="badge badge-off" data-testid="narrator-step-outcome" title={errorText(step.outcome)}>
              {step.outcome}
            </span>
          )}
        </summary>
        {open && <StepDetail seatId={seatId} stepId={step.id} />}
      </details>
    </li>
  );
}

function StepDetail({ seatId, stepId }: { seatId: string; stepId: number }) {
  const { t } = useI18n();
  const load = useCallback((signal: AbortSignal) => getNarratorStep(seatId, stepId, signal), [seatId, stepId]);
  const [step] = useApi(load);
  if (step.state === 'loading') return <p className="hint">{t('common.loading')}</p>;
  if (step.state === 'error') return <ErrorNotice code={step.code} />;
  const rec = step.data.record;
  const total = rec.sections.reduce((n, s) => n + s.tokens, 0) || 1;
  const calls = rec.messages.flatMap((m) => m.tool_calls ?? []);
  const results = new Map(rec.messages.filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, m.content]));
  return (
    <div className="narrator-step-detail" data-testid="narrator-step-detail">
      <h2>{t('narrator.steps.sections')}</h2>
      <table className="grid" data-testid="narrator-step-sections">
        <thead>
          <tr>
            <th scope="col">{t('solo.insights.section')}</th>
            <th scope="col">{t('solo.insights.tokens')}</th>
          </tr>
        </thead>
        <tbody>
          {rec.sections.map((s) => (
            <tr key={s.name} data-section={s.name}>
              <th scope="row">{s.name}</th>
              <td>
                <span className="token-bar" aria-hidden="true">
                  <span style={{ width: `${Math.max(2, Math.round((100 * s.tokens) / total))}%` }} />
                </span>{' '}
                {s.tokens.toLocaleString()}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>{t('narrator.steps.calls')}</h2>
      {calls.length === 0 ? (
        <p className="hint">{t('narrator.steps.noCalls')}</p>
      ) : (
        <ol className="narrator-step-calls" data-testid="narrator-step-calls">
          {calls.map((c, i) => (
            <li key={`${c.id}-${i}`} data-tool={c.name}>
              <code>{c.name}</code>
              <pre>{c.arguments}</pre>
              {results.has(c.id) && (
                <details>
                  <summary>{t('narrator.steps.result')}</summary>
                  <pre>{results.get(c.id)}</pre>
                </details>
              )}
            </li>
          ))}
        </ol>
      )}
      <details className="narrator-step-prompt">
        <summary>{t('solo.insights.messages')}</summary>
        {rec.messages.map((m, i) => (
          <section key={i} className="prompt-message" data-testid="prompt-message">
            <h3>{m.role}</h3>
            {m.content !== '' && <pre>{m.content}</pre>}
            {(m.tool_calls ?? []).map((c, j) => (
              <pre key={j}>{`→ ${c.name}(${c.arguments})`}</pre>
            ))}
          </section>
        ))}
      </details>
      <p className="hint">{format(t('narrator.steps.tools'), { tools: rec.tools.join(', ') })}</p>
    </div>
  );
}
