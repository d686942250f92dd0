import { Ellipsis, UserRound } from 'lucide-react';
import { useEffect, useMemo, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { ErrorNotice } from '../components/ErrorNotice';
import { Markdown } from '../components/Markdown';
import { format, type MessageKey } from '../i18n/messages';
import { useI18n } from '../i18n/I18nProvider';
import type { ActionView, Outcome, TurnInput } from './api';
import { Menu } from './Menu';
import { chipText, chipTitle, chipTrend, shortNames } from './outcomes';
import { liveText, type StopReason } from './sse';
import { focusOnMount, useFocusAfterRender } from '../focus';

// LiveTurn is a turn while its reply streams in.
export interface LiveTurn {
  kind: 'turn' | 'retry' | 'continue';
  // what the player sent, shown until the server's stored player action arrives
  sent: TurnInput | null;
  player: ActionView | null;
  text: string;
  reasoning: string;
  stopped: { reason: StopReason } | null;
}

// TipActions are the buttons the newest node offers in place: a stopped
// take can be continued or retried, a player action still waiting for its
// narration can be narrated (Retry) or removed (Undo). null while a turn
// runs or another action is busy.
export interface TipActions {
  onRetry: () => void;
  onUndo: () => void;
  onContinue: () => void;
}

// NodeFailure is the failed edit or delete of one node, shown at that node.
export interface NodeFailure {
  id: number;
  op: 'edit' | 'delete';
  code: string;
}

export interface NodeHandlers {
  busy: boolean;
  onTake: (actionId: number) => void;
  onFork: (actionId: number) => void;
  onInsights: (actionId: number) => void;
  // onEdit saves a node's new text; onDelete removes a node. Both resolve
  // true once the page shows the server's answer, false when refused.
  onEdit: (actionId: number, text: string) => Promise<boolean>;
  onDelete: (actionId: number) => Promise<boolean>;
  // onDismiss forgets the failure shown at a node (its edit was cancelled)
  onDismiss: () => void;
  failure: NodeFailure | null;
}

// Story lists the head line in story order, then the turn being streamed.
export function Story({
  story,
  statPaths,
  reasoningById,
  live,
  handlers,
  tipActions = null,
  editRequest = 0,
}: {
  story: ActionView[];
  statPaths: string[];
  reasoningById: Record<number, string>;
  live: LiveTurn | null;
  handlers: NodeHandlers;
  tipActions?: TipActions | null;
  // editRequest: each new value opens the newest turn's text for editing
  // (the reader's Edit action)
  editRequest?: number;
}) {
  const { t } = useI18n();
  // Name stats as the state line does; paths only an outcome mentions join in.
  const names = useMemo(() => {
    const all = new Set(statPaths);
    for (const a of story) for (const o of a.outcomes ?? []) all.add(o.path);
    return shortNames([...all]);
  }, [statPaths, story]);
  return (
    <>
      <ol className="solo-story" data-testid="story" aria-label={t('solo.story.label')}>
        {story.map((a, i) => (
          <StoryNode
            key={a.id}
            a={a}
            names={names}
            reasoning={reasoningById[a.id]}
            h={handlers}
            // a player action at the tip has no narration yet (its turn
            // failed or was stopped before any text), unless one streams now
            tip={
              i === story.length - 1 ? { waiting: a.kind === 'player' && live === null, actions: tipActions, editRequest } : null
            }
          />
        ))}
      </ol>
      <div className="live-region" aria-live="polite" aria-busy={live !== null}>
        {live && <LiveBlock live={live} />}
      </div>
    </>
  );
}

// PlayerText is what the player wrote: marked "You" (an icon and a word,
// not only a colour) with its mode, set apart from the narration.
function PlayerText({ mode, text }: { mode: string; text: string }) {
  const { t } = useI18n();
  const known = mode === 'do' || mode === 'say' || mode === 'story';
  return (
    <>
      <span className="author-mark" data-testid="author-mark">
        <UserRound aria-hidden="true" size={14} />
        {t('reader.you')}
      </span>
      {known && <span className="tag mode-tag">{t(`solo.mode.${mode}` as MessageKey)}</span>}
      <p className="solo-text" data-testid="node-text">
        {text}
      </p>
    </>
  );
}

function StoryNode({
  a,
  names,
  reasoning,
  h,
  tip,
}: {
  a: ActionView;
  names: Map<string, string>;
  reasoning: string | undefined;
  h: NodeHandlers;
  tip: { waiting: boolean; actions: TipActions | null; editRequest: number } | null;
}) {
  const { t } = useI18n();
  const takes = a.takes ?? { index: 1, count: 1, ids: [a.id] };
  const outcomes = a.outcomes ?? [];
  // draft is the text being edited (null: not editing); confirming asks
  // before a delete
  const [draft, setDraft] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  // the control to focus once the row has re-rendered (the one clicked went away)
  const focusAfterRender = useFocusAfterRender();
  const editButton = useRef<HTMLButtonElement>(null);
  const deleteButton = useRef<HTMLButtonElement>(null);
  const noButton = useRef<HTMLButtonElement>(null);

  const failure = h.failure?.id === a.id ? h.failure : null;
  const startEdit = () => {
    setConfirming(false);
    setDraft(a.text);
  };
  // the reader's Edit action asks the newest turn to open its editor
  const editRequest = tip?.editRequest ?? 0;
  const seenRequest = useRef(editRequest);
  useEffect(() => {
    if (editRequest === seenRequest.current) return;
    seenRequest.current = editRequest;
    setConfirming(false);
    setDraft(a.text);
  }, [editRequest, a.text]);
  const cancelEdit = () => {
    setDraft(null);
    if (failure?.op === 'edit') h.onDismiss();
    focusAfterRender(editButton);
  };
  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (draft === null || h.busy) return;
    if (draft === a.text) {
      cancelEdit();
      return;
    }
    if (await h.onEdit(a.id, draft)) {
      setDraft(null);
      focusAfterRender(editButton);
    }
  };
  const remove = async () => {
    if (h.busy) return;
    // on success the node leaves the page; on failure the error shows here
    if (!(await h.onDelete(a.id))) {
      setConfirming(false);
      focusAfterRender(deleteButton);
    }
  };
  const depth = { depth: a.depth };

  return (
    <li
      className={`solo-node kind-${a.kind}${a.mode === 'continue' ? ' is-continue' : ''}${a.stopped ? ' is-stopped' : ''}${tip?.waiting ? ' is-waiting' : ''}`}
      data-testid="story-node"
      data-kind={a.kind}
      data-stopped={a.stopped ? 'true' : undefined}
      data-waiting={tip?.waiting ? 'true' : undefined}
      data-depth={a.depth}
      data-action-id={a.id}
    >
      {draft !== null ? (
        <form className="node-edit" onSubmit={save} data-testid="node-edit">
          {a.kind === 'player' && (a.mode === 'do' || a.mode === 'say' || a.mode === 'story') && (
            <span className="tag mode-tag">{t(`solo.mode.${a.mode}` as MessageKey)}</span>
          )}
          <textarea
            aria-label={format(t('solo.edit.text'), depth)}
            value={draft}
            rows={Math.min(12, Math.max(3, draft.split('\n').length + 1))}
            ref={focusOnMount}
            onChange={(e) => setDraft(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Escape') {
                e.preventDefault();
                cancelEdit();
              }
            }}
          />
          <span className="node-tools">
            <button type="submit" className="tool" disabled={h.busy}>
              {t('common.save')}
            </button>
            <button type="button" className="tool" onClick={cancelEdit}>
              {t('common.cancel')}
            </button>
          </span>
        </form>
      ) : a.kind === 'player' ? (
        <PlayerText mode={a.mode} text={a.text} />
      ) : (
        <Markdown className="solo-text" testId="node-text" text={a.text} />
      )}
      {a.truncated && <CutShort reason={a.finish_reason === 'length' ? 'length' : 'dropped'} />}
      {a.kind === 'narration' && a.stopped && (
        <div className="node-state" data-testid="stopped-take">
          <p>
            <span className="tag">{t('solo.story.stopped')}</span> {t('solo.story.stoppedHint')}
          </p>
          {tip?.actions && (
            <span className="node-tools">
              <button
                type="button"
                className="tool"
                aria-label={t('solo.story.stoppedContinue')}
                onClick={tip.actions.onContinue}
              >
                {t('solo.continue')}
              </button>
              <button type="button" className="tool" aria-label={t('solo.story.stoppedRetry')} onClick={tip.actions.onRetry}>
                {t('solo.retry')}
              </button>
            </span>
          )}
        </div>
      )}
      {tip?.waiting && (
        <div className="node-state" data-testid="awaiting-narration">
          <p>
            <span className="tag">{t('solo.story.waiting')}</span> {t('solo.story.waitingHint')}
          </p>
          {tip.actions && (
            <span className="node-tools">
              <button type="button" className="tool" aria-label={t('solo.story.waitingRetry')} onClick={tip.actions.onRetry}>
                {t('solo.retry')}
              </button>
              <button type="button" className="tool" aria-label={t('solo.story.waitingUndo')} onClick={tip.actions.onUndo}>
                {t('solo.undo')}
              </button>
            </span>
          )}
        </div>
      )}
      {outcomes.length > 0 && <Chips outcomes={outcomes} names={names} />}
      {reasoning && <Reasoning text={reasoning} />}
      {failure && (
        <ErrorNotice
          code={failure.code}
          lead={
            failure.op === 'edit'
              ? t('solo.edit.failed')
              : failure.code === 'action_not_editable'
                ? t('solo.delete.notEditable')
                : t('solo.delete.failed')
          }
        />
      )}
      {takes.count > 1 && (
        <div className="node-tools">
          <TakePager takes={takes} h={h} />
        </div>
      )}
      <TurnMenu depth={a.depth} keepOpen={confirming}>
        <button
          type="button"
          className="tool"
          disabled={h.busy}
          onClick={() => h.onFork(a.id)}
          aria-label={format(t('solo.fork.label'), depth)}
          title={t('solo.fork.hint')}
        >
          {t('solo.fork')}
        </button>
        {a.has_prompt && (
          <button type="button" className="tool" onClick={() => h.onInsights(a.id)}>
            {t('solo.insights.open')}
          </button>
        )}
        {draft === null && (
          <button
            type="button"
            className="tool"
            ref={editButton}
            disabled={h.busy}
            onClick={startEdit}
            aria-label={format(t('solo.edit.label'), depth)}
          >
            {t('solo.edit')}
          </button>
        )}
        {a.kind !== 'opening' &&
          (confirming ? (
            <span className="node-confirm" role="group" aria-label={format(t('solo.delete.label'), depth)}>
              <span>{t('solo.delete.confirm')}</span>
              <button type="button" className="tool" disabled={h.busy} onClick={() => void remove()}>
                {t('common.yes')}
              </button>
              <button
                type="button"
                className="tool"
                ref={noButton}
                onClick={() => {
                  setConfirming(false);
                  focusAfterRender(deleteButton);
                }}
              >
                {t('common.no')}
              </button>
            </span>
          ) : (
            <button
              type="button"
              className="tool"
              ref={deleteButton}
              disabled={h.busy}
              onClick={() => {
                setConfirming(true);
                focusAfterRender(noButton);
              }}
              aria-label={format(t('solo.delete.label'), depth)}
            >
              {t('solo.delete')}
            </button>
          ))}
      </TurnMenu>
    </li>
  );
}

// TurnMenu holds a turn's actions (Fork, Insights, Edit, Delete) out of the
// reading text: a small ⋯ button in the turn's gutter (see Menu); the items
// also show while the pointer is over the turn.
export function TurnMenu({ depth, keepOpen = false, children }: { depth: number; keepOpen?: boolean; children: ReactNode }) {
  const { t } = useI18n();
  return (
    <Menu
      className="turn-menu"
      testId="turn-menu"
      label={format(t('solo.menu.label'), { depth })}
      itemsLabel={format(t('solo.menu.items'), { depth })}
      toggle={<Ellipsis aria-hidden="true" size={18} />}
      keepOpen={keepOpen}
    >
      {children}
    </Menu>
  );
}

function TakePager({ takes, h }: { takes: { index: number; count: number; ids: number[] }; h: NodeHandlers }) {
  const { t } = useI18n();
  const prev = takes.ids[takes.index - 2];
  const next = takes.ids[takes.index];
  return (
    <span
      className="take-pager"
      role="group"
      aria-label={format(t('solo.takes.label'), { index: takes.index, count: takes.count })}
    >
      <button
        type="button"
        className="tool"
        aria-label={t('solo.takes.prev')}
        disabled={h.busy || takes.index <= 1 || prev === undefined}
        onClick={() => prev !== undefined && h.onTake(prev)}
      >
        ‹
      </button>
      <span data-testid="take-pager">{`${takes.index}/${takes.count}`}</span>
      <button
        type="button"
        className="tool"
        aria-label={t('solo.takes.next')}
        disabled={h.busy || takes.index >= takes.count || next === undefined}
        onClick={() => next !== undefined && h.onTake(next)}
      >
        ›
      </button>
    </span>
  );
}

function Chips({ outcomes, names }: { outcomes: Outcome[]; names: Map<string, string> }) {
  const { t } = useI18n();
  return (
    <ul className="stat-chips" aria-label={t('solo.chips.label')}>
      {outcomes.map((o, i) => (
        <li
          key={`${o.path}-${i}`}
          className={`stat-chip is-${o.status} trend-${chipTrend(o)}`}
          data-testid="stat-chip"
          data-status={o.status}
          data-trend={chipTrend(o)}
          data-path={o.path}
          title={chipTitle(t, o)}
        >
          {chipText(t, o, names.get(o.path) ?? o.path)}
        </li>
      ))}
    </ul>
  );
}

function CutShort({ reason }: { reason: 'length' | 'dropped' }) {
  const { t } = useI18n();
  return (
    <p className="cut-short" data-testid="cut-short">
      <strong>{t('solo.cutShort')}</strong> {t(reason === 'length' ? 'solo.cutShort.length' : 'solo.cutShort.dropped')}
    </p>
  );
}

function Reasoning({ text, open }: { text: string; open?: boolean }) {
  const { t } = useI18n();
  return (
    <details className="reasoning" data-testid="reasoning" open={open}>
      <summary>{t('solo.reasoning')}</summary>
      <div className="reasoning-text">{text}</div>
    </details>
  );
}

function LiveBlock({ live }: { live: LiveTurn }) {
  const { t } = useI18n();
  const shown = liveText(live.text);
  const player = live.player ?? (live.sent && live.sent.mode !== 'continue' ? live.sent : null);
  return (
    <div className="solo-live" data-testid="live-turn">
      {player && (
        <div className="solo-node kind-player" data-testid="live-player">
          <PlayerText mode={player.mode} text={player.text} />
        </div>
      )}
      <div className="solo-node kind-narration is-live" data-testid="live-narration">
        {live.reasoning && <Reasoning text={live.reasoning} />}
        {shown === '' ? (
          <p className="hint" aria-busy="true">
            {t('solo.live.waiting')}
          </p>
        ) : (
          <Markdown className="solo-text" testId="live-text" text={shown} />
        )}
        {live.stopped && live.stopped.reason !== 'player' && <CutShort reason={live.stopped.reason} />}
      </div>
    </div>
  );
}
