import { useId, useState, type FormEvent } from 'react';
import { ErrorNotice } from '../components/ErrorNotice';
import { useI18n } from '../i18n/I18nProvider';
import { format, type MessageKey } from '../i18n/messages';
import { useAction } from '../useAction';
import {
  closeActionWindow,
  openActionWindow,
  transitionAction,
  type ActionWindowView,
  type PendingActionStatus,
  type PendingActionView,
} from './api';
import type { BoardCtx } from './Board';

const TERMINAL: PendingActionStatus[] = ['resolved', 'cancelled'];
const statusKey = (s: PendingActionStatus): MessageKey => `actions.status.${s}`;

// The moves the DM is offered on an open action. The server decides what is
// legal: an illegal move comes back as pending_action_invalid_transition.
const DM_MOVES: { to: PendingActionStatus; label: MessageKey }[] = [
  { to: 'processing', label: 'actions.move.processing' },
  { to: 'resolved', label: 'actions.move.resolved' },
  { to: 'cancelled', label: 'actions.move.cancelled' },
];

// ActionsPanel: declared actions with their status, the DM's moves
// (processing, "Request check" → waiting_for_roll, resolved, cancelled), and
// the action window ("What does everyone do?").
export function ActionsPanel({
  ctx,
  onRequestCheck,
}: {
  ctx: BoardCtx;
  onRequestCheck: (a: PendingActionView) => void;
}) {
  const { t } = useI18n();
  const actions = [...(ctx.board?.pending_actions ?? [])].sort((a, b) => a.id - b.id);
  const windows = ctx.board?.windows ?? [];
  const byWindow = new Map(windows.map((w) => [w.id, w]));
  return (
    <div className="actions-panel">
      {ctx.boardError !== null && <ErrorNotice code={ctx.boardError} lead={t('dice.failed')} onRetry={ctx.reloadBoard} />}
      <WindowControls ctx={ctx} windows={windows} />
      <h3>{t('actions.list')}</h3>
      {actions.length === 0 && <p className="hint">{t('actions.empty')}</p>}
      <ol className="action-lines" data-testid="pending-actions">
        {actions.map((a) => (
          <ActionLine key={a.id} a={a} ctx={ctx} window={a.window_id != null ? byWindow.get(a.window_id) : undefined} onRequestCheck={onRequestCheck} />
        ))}
      </ol>
    </div>
  );
}

function WindowControls({ ctx, windows }: { ctx: BoardCtx; windows: ActionWindowView[] }) {
  const { t } = useI18n();
  const action = useAction();
  const [prompt, setPrompt] = useState('');
  const promptId = useId();
  const open = windows.filter((w) => w.status === 'open');

  const openOne = async (e: FormEvent) => {
    e.preventDefault();
    if (action.busy) return;
    const text = prompt.trim() || t('actions.window.open');
    if (await action.run(() => openActionWindow(ctx.sessionId, text))) {
      setPrompt('');
      ctx.reloadBoard();
    }
  };
  const close = async (id: number) => {
    if (await action.run(() => closeActionWindow(id))) ctx.reloadBoard();
  };

  return (
    <section className="action-windows">
      {open.map((w) => (
        <p key={w.id} className="window-prompt" data-testid="open-window">
          <strong>{t('actions.window.asks')}</strong> {w.prompt}{' '}
          {ctx.isDM && (
            <button type="button" disabled={action.busy} onClick={() => close(w.id)}>
              {t('actions.window.close')}
            </button>
          )}
        </p>
      ))}
      {ctx.isDM && (
        <form className="inline-form" onSubmit={openOne}>
          <label htmlFor={promptId} className="visually-hidden">
            {t('actions.window.prompt')}
          </label>
          <input
            id={promptId}
            value={prompt}
            maxLength={500}
            placeholder={t('actions.window.open')}
            disabled={!ctx.canAct}
            onChange={(e) => setPrompt(e.target.value)}
          />
          <button type="submit" disabled={!ctx.canAct || action.busy}>
            {t('actions.window.open')}
          </button>
        </form>
      )}
      {action.error !== null && <ErrorNotice code={action.error} />}
    </section>
  );
}

function ActionLine({
  a,
  ctx,
  window,
  onRequestCheck,
}: {
  a: PendingActionView;
  ctx: BoardCtx;
  window: ActionWindowView | undefined;
  onRequestCheck: (a: PendingActionView) => void;
}) {
  const { t } = useI18n();
  const action = useAction();
  const unknown = t('table.speaker.unknown');
  const name = ctx.names.character(a.subject_character_id, a.subject_seat_id) ?? unknown;
  const who = a.execution_mode === 'dm_proxy' ? format(t('table.speaker.dmFor'), { name }) : name;
  const status = a.status as PendingActionStatus;
  const done = TERMINAL.includes(status);
  const mine = !ctx.isDM && ctx.mySeatId !== null && a.subject_seat_id === ctx.mySeatId;

  const move = async (to: PendingActionStatus) => {
    if (await action.run(() => transitionAction(a.id, to))) ctx.reloadBoard();
  };

  return (
    <li className={`action-line status-${a.status}`} data-testid="pending-action" data-status={a.status}>
      <div className="chat-head">
        <span className="speaker">{who}</span>
        {a.intent === 'search' && <span className="tag">{t('table.tag.search')}</span>}
        <span className={`tag action-status`} data-testid="action-status">
          {t(statusKey(status))}
        </span>
      </div>
      <p className="chat-text" data-testid="action-text">
        {a.text}
      </p>
      {window && <p className="hint">{format(t('actions.inWindow'), { prompt: window.prompt })}</p>}
      {!done && ctx.canAct && (ctx.isDM || mine) && (
        <div className="inline-form action-moves">
          {ctx.isDM && (
            <>
              {a.status !== 'processing' && (
                <button type="button" disabled={action.busy} onClick={() => move('processing')}>
                  {t(DM_MOVES[0]!.label)}
                </button>
              )}
              <button type="button" disabled={action.busy} onClick={() => onRequestCheck(a)}>
                {t('check.request')}
              </button>
              {DM_MOVES.slice(1).map((m) => (
                <button key={m.to} type="button" disabled={action.busy} onClick={() => move(m.to)}>
                  {t(m.label)}
                </button>
              ))}
            </>
          )}
          {mine && (
            <button type="button" disabled={action.busy} onClick={() => move('cancelled')}>
              {t('actions.move.cancelMine')}
            </button>
          )}
        </div>
      )}
      {action.error !== null && <ErrorNotice code={action.error} />}
    </li>
  );
}
