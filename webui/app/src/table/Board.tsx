import { useMemo, useRef, useState } from 'react';
import { ErrorNotice } from '../components/ErrorNotice';
import { useI18n } from '../i18n/I18nProvider';
import type { MessageKey } from '../i18n/messages';
import type { RollBoard, RollRequestView, RollResultView } from './api';
import { RequestCard } from './Checks';
import { QuickRoll } from './Dice';
import type { TableNames } from './names';
import { RollHistory } from './RollHistory';

// What the dice, checks and actions panels share.
export interface BoardCtx {
  sessionId: number;
  board: RollBoard | null;
  boardError: string | null;
  reloadBoard: () => void;
  names: TableNames;
  isDM: boolean;
  mySeatId: number | null;
  // the session is running and the reader sits at the table (DM or player)
  canAct: boolean;
  // why nothing can be rolled now (null: open)
  closedReason: MessageKey | null;
  // results this page got as answers, by request id (shown before the board is read again)
  own: Map<number, RollResultView>;
  onResult: (r: RollResultView) => void;
}

export const resultOf = (ctx: BoardCtx, r: RollRequestView) => r.result ?? ctx.own.get(r.id) ?? null;

const DM_DONE_SHOWN = 12;

// DicePanel: the DM's checks (with DC and outcome), the quick roll box, and
// the history of results.
export function DicePanel({
  ctx,
  results,
  proxySeatId,
  onRequestCheck,
}: {
  ctx: BoardCtx;
  results: RollResultView[];
  proxySeatId: number | null;
  onRequestCheck: () => void;
}) {
  const { t } = useI18n();
  const requests = useMemo(() => new Map((ctx.board?.requests ?? []).map((r) => [r.id, r])), [ctx.board]);
  return (
    <div className="dice-panel">
      {ctx.boardError !== null && <ErrorNotice code={ctx.boardError} lead={t('dice.failed')} onRetry={ctx.reloadBoard} />}
      {ctx.isDM && <DmChecks ctx={ctx} onRequestCheck={onRequestCheck} />}
      <QuickRoll
        sessionId={ctx.sessionId}
        subjectSeatId={ctx.isDM ? proxySeatId : null}
        attacks={ctx.names.sheet(ctx.isDM ? proxySeatId : ctx.mySeatId)?.attacks ?? []}
        disabledReason={ctx.closedReason}
        onRolled={(r) => {
          ctx.onResult(r);
          ctx.reloadBoard();
        }}
      />
      <RollHistory sessionId={ctx.sessionId} live={results} names={ctx.names} requests={requests} />
    </div>
  );
}

function DmChecks({ ctx, onRequestCheck }: { ctx: BoardCtx; onRequestCheck: () => void }) {
  const { t } = useI18n();
  const all = [...(ctx.board?.requests ?? [])].sort((a, b) => b.id - a.id);
  const open = all.filter((r) => r.status === 'pending' && !ctx.own.has(r.id));
  const done = all.filter((r) => !open.includes(r)).slice(0, DM_DONE_SHOWN);
  const card = (r: RollRequestView) => (
    <RequestCard
      key={r.id}
      request={r}
      result={resultOf(ctx, r)}
      name={ctx.names.character(r.target_character_id, r.target_seat_id) ?? t('table.speaker.unknown')}
      asDm
      canAct={ctx.canAct}
      onResult={(x) => {
        ctx.onResult(x);
        ctx.reloadBoard();
      }}
      onChanged={ctx.reloadBoard}
    />
  );
  return (
    <section className="dm-checks" aria-labelledby="dm-checks-title">
      <div className="panel-head">
        <h3 id="dm-checks-title">{t('check.list')}</h3>
        <button type="button" disabled={!ctx.canAct} onClick={onRequestCheck}>
          {t('check.request')}
        </button>
      </div>
      {all.length === 0 && <p className="hint">{t('check.list.empty')}</p>}
      <div className="request-list" data-testid="dm-requests">
        {open.map(card)}
        {done.map(card)}
      </div>
    </section>
  );
}

// PromptBar is what a player must answer now, always in view above the
// input bar: the DM's open question ("What does everyone do?") and the
// checks asked of their seat that the loaded feed does not show as a card
// (asked before its oldest loaded event): a check shows once, as its feed
// card (which takes the answer) or here. A check answered here resolves in
// place and stays (the newest only) until the next check or dismissed; the
// feed keeps every result.
export function PromptBar({ ctx, inFeed }: { ctx: BoardCtx; inFeed?: ReadonlySet<number> }) {
  const { t } = useI18n();
  const seen = useRef(new Set<number>());
  const [dismissed, setDismissed] = useState<Set<number>>(() => new Set());
  if (ctx.isDM || ctx.mySeatId === null || !ctx.board) return null;
  const mine = ctx.board.requests
    .filter((r) => r.target_seat_id === ctx.mySeatId && !inFeed?.has(r.id))
    .sort((a, b) => a.id - b.id);
  for (const r of mine) if (r.status === 'pending') seen.current.add(r.id);
  const pending = mine.filter((r) => !dismissed.has(r.id) && r.status === 'pending' && resultOf(ctx, r) === null);
  // an answered check resolves in place; only the newest answer stays (until the next check or dismissed)
  const answered = mine.filter((r) => !dismissed.has(r.id) && seen.current.has(r.id) && resultOf(ctx, r) !== null);
  const newestAnswered = answered[answered.length - 1];
  const shown = newestAnswered && pending.length === 0 ? [newestAnswered] : pending;
  const windows = ctx.board.windows.filter((w) => w.status === 'open');
  if (shown.length === 0 && windows.length === 0) return null;
  return (
    <section className="prompt-bar" aria-label={t('check.bar')} data-testid="prompt-bar">
      {windows.map((w) => (
        <p key={w.id} className="window-prompt" data-testid="window-prompt">
          <strong>{t('actions.window.asks')}</strong> {w.prompt} <span className="hint">{t('actions.window.hint')}</span>
        </p>
      ))}
      {shown.map((r) => (
        <RequestCard
          key={r.id}
          request={r}
          result={resultOf(ctx, r)}
          name={ctx.names.character(r.target_character_id, r.target_seat_id) ?? ''}
          asDm={false}
          canAct={ctx.canAct}
          onResult={(x) => {
            ctx.onResult(x);
            ctx.reloadBoard();
          }}
          onChanged={ctx.reloadBoard}
          onDismiss={() => setDismissed((cur) => new Set(cur).add(r.id))}
        />
      ))}
    </section>
  );
}
