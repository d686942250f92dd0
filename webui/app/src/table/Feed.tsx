import { ChevronDown, ChevronRight, Pencil, Trash2 } from 'lucide-react';
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { ApiError } from '../api';
import { ConfirmButton } from '../components/ConfirmButton';
import { inlineToken, Markdown, stripTokens } from '../components/Markdown';
import { useI18n } from '../i18n/I18nProvider';
import { format, type MessageKey } from '../i18n/messages';
import { messageText } from '../i18n/serverText';
import {
  type ActionPayload,
  type CharacterChangedPayload,
  deleteMessage,
  editMessage,
  type EventView,
  MESSAGE_EDIT_WINDOW_MS,
  type MessageDeletedPayload,
  type MessageEditedPayload,
  type MessagePayload,
  type ParticipantJoinedPayload,
  type PendingActionStatus,
  type RollOutcomePayload,
  type RollQuickPayload,
  type RollRequestedPayload,
  type RollRevealedPayload,
  type RollRequestView,
  type RollResolvedPayload,
  type RollResultView,
  type WindowPayload,
} from './api';
import { CheckAnswer } from './Checks';
import { DiceView, Outcome, whoRolled } from './Dice';
import { DcSeal, type DcReveal } from './DcSeal';
import { encounterCard, isEncounterCard, secretsByEvent } from './EncounterFeed';
import { checkName, conditionName, quickRollName, requestName, requestNote } from './labels';
import type { TableNames } from './names';
import { focusOnMount } from '../focus';

type T = (key: MessageKey) => string;

export const isMessage = (e: EventView) => e.kind === 'message.posted';

// MessageChange: what later message.edited / message.deleted events did to a message.
export interface MessageChange {
  text?: string;
  editedAt?: string;
  deleted?: boolean;
}

// messageChanges folds the edit and delete events of the feed by message id.
export function messageChanges(events: EventView[]): Map<number, MessageChange> {
  const out = new Map<number, MessageChange>();
  for (const e of events) {
    if (e.kind === 'message.edited') {
      const p = e.payload as unknown as MessageEditedPayload;
      out.set(p.message_id, { ...out.get(p.message_id), text: p.text, editedAt: p.edited_at ?? e.created_at });
    } else if (e.kind === 'message.deleted') {
      const p = e.payload as unknown as MessageDeletedPayload;
      out.set(p.message_id, { ...out.get(p.message_id), deleted: true });
    }
  }
  return out;
}

// MessageEdit: who may change which lines, and where the server's answer goes.
export interface MessageEditCtx {
  isDM: boolean;
  mySeatId: number | null;
  // the message.edited / message.deleted event of a change that went through
  onEvent: (e: EventView) => void;
}

// changeUntil: until when the reader may change a line — Infinity for the
// DM (any line, any time), the end of the edit window for the author's own
// line, null for someone else's line.
export function changeUntil(e: EventView, edit: MessageEditCtx): number | null {
  if (edit.isDM) return Infinity;
  if (edit.mySeatId == null || e.acting_seat_id !== edit.mySeatId || e.execution_mode === 'dm_proxy') return null;
  const at = new Date(e.created_at).getTime();
  return Number.isNaN(at) ? null : at + MESSAGE_EDIT_WINDOW_MS;
}

// canChange: the DM any line; the author their own within 10 minutes.
export function canChange(e: EventView, edit: MessageEditCtx, now: number = Date.now()): boolean {
  const until = changeUntil(e, edit);
  return until !== null && now < until;
}

// useRerenderAt renders the component again once the clock passes `at`
// (nothing to do for a past, infinite or absent time); the timer is cleared
// on unmount.
function useRerenderAt(at: number | null) {
  const [, setTick] = useState(0);
  useEffect(() => {
    if (at === null || !Number.isFinite(at)) return;
    const wait = at - Date.now();
    if (wait < 0) return;
    const id = setTimeout(() => setTick((n) => n + 1), wait + 1);
    return () => clearTimeout(id);
  }, [at]);
}

// ChatPayload: a message.posted payload with the results of its inline rolls.
type ChatPayload = MessagePayload & { rolls?: RollResultView[] };

// INLINE_ROLL is the server's inline roll marker (gameplay/table/chat.go):
// its i-th match in a message's text was rolled as the payload's rolls[i].
const INLINE_ROLL = /\[\[([^[\]]*)\]\]/g;

// rollTokens: a message's text with each [[…]] marker that has its roll
// replaced by inlineToken(i), i being the marker's place among all markers
// (Markdown draws the token as a chip wherever it ends up). An edit never
// rolls again (the message keeps the rolls it was posted with): in edited
// text the i-th marker is rolls[i] only while it still says the dice that
// were rolled; a marker the edit added or changed stays text.
export function rollTokens(text: string, rolls: RollResultView[], edited: boolean): string {
  let i = 0;
  return stripTokens(text).replace(INLINE_ROLL, (marker, dice: string) => {
    const n = i++;
    const r = rolls[n];
    if (!r || (edited && r.audit?.formula?.trim() !== dice.trim())) return marker;
    return inlineToken(n);
  });
}

// InlineRoll: an inline roll's chip in its chat line — formula → total.
function InlineRoll({ r, index }: { r: RollResultView; index: number }) {
  const nat = naturalOf(r);
  return (
    <span
      className={`inline-roll${nat ? ` is-nat${nat}` : ''}`}
      data-testid="inline-roll"
      data-index={index}
      data-natural={nat ?? undefined}
    >
      <code className="roll-formula">{r.formula}</code> <span aria-hidden="true">→</span>{' '}
      <strong className="roll-total">{r.total}</strong>
    </span>
  );
}

// RequestCheckShortcut is the DM's "Request this check" on a player's /check line.
export type RequestCheckShortcut = (check: string, seatId: number | null) => void;

function timeOf(iso: string, lang: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : d.toLocaleTimeString(lang, { hour: '2-digit', minute: '2-digit' });
}

// Stick to the bottom of a scrolling list when new lines arrive, unless the
// reader has scrolled up.
function useStickToBottom(count: number) {
  const ref = useRef<HTMLOListElement>(null);
  const atBottom = useRef(true);
  useEffect(() => {
    const el = ref.current;
    if (el && atBottom.current) el.scrollTop = el.scrollHeight;
  }, [count]);
  // a list shown again (a phone tab; hiding it lost its scroll position) or
  // resized (a card resolved) stays at its foot
  const shownHeight = useRef(0);
  useEffect(() => {
    const el = ref.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver(() => {
      const wasHidden = shownHeight.current === 0;
      shownHeight.current = el.clientHeight;
      if (el.clientHeight > 0 && (atBottom.current || wasHidden)) {
        el.scrollTop = el.scrollHeight;
        atBottom.current = true;
      }
    });
    ro.observe(el);
    for (const child of Array.from(el.children)) ro.observe(child);
    return () => ro.disconnect();
  }, [count]);
  const onScroll = () => {
    const el = ref.current;
    // a hidden list (another tab) says nothing about where the reader was
    if (el && el.clientHeight > 0) atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
  };
  return { ref, onScroll };
}

export function ChatList({
  events,
  names,
  onRequestCheck,
}: {
  events: EventView[];
  names: TableNames;
  // the DM's shortcut from a /check line to the "Request check" dialog
  onRequestCheck?: RequestCheckShortcut;
}) {
  const { t, lang } = useI18n();
  const lines = events.filter(isMessage);
  const stick = useStickToBottom(lines.length);
  return (
    <section className="feed chat" aria-labelledby="table-chat">
      <h2 id="table-chat">{t('table.chat')}</h2>
      {lines.length === 0 && <p className="hint">{t('table.chat.empty')}</p>}
      <ol className="feed-lines" data-testid="chat" ref={stick.ref} onScroll={stick.onScroll} aria-live="polite">
        {lines.map((e) => (
          <ChatLine key={e.seq} e={e} names={names} t={t} lang={lang} onRequestCheck={onRequestCheck} />
        ))}
      </ol>
    </section>
  );
}

function ChatLine({
  e,
  names,
  t,
  lang,
  onRequestCheck,
  change,
  edit,
}: {
  e: EventView;
  names: TableNames;
  t: T;
  lang: string;
  onRequestCheck?: RequestCheckShortcut;
  change?: MessageChange;
  edit?: MessageEditCtx;
}) {
  const p = e.payload as unknown as ChatPayload;
  const deleted = change?.deleted === true;
  const rolls = p.rolls ?? [];
  const text = change?.text ?? messageText(t, p);
  // the text as shown: inline rolls as chips
  const shown = rolls.length > 0 ? rollTokens(text, rolls, change?.text !== undefined) : text;
  const chip = rolls.length > 0 ? (i: number) => <InlineRoll r={rolls[i]!} index={i} /> : undefined;
  const rollCtx: LogCtx = { names, t, isDM: edit?.isDM ?? false, requests: new Map() };
  const until = edit !== undefined && !deleted ? changeUntil(e, edit) : null;
  // the author's Edit and Delete go when the window closes, without waiting for an event
  useRerenderAt(until);
  const editable = edit !== undefined && !deleted && canChange(e, edit);
  const unknown = t('table.speaker.unknown');
  const fromDm = e.acting_seat_id != null && e.acting_seat_id === names.dmSeatId;
  let speaker: string;
  if (e.execution_mode === 'dm_proxy') {
    speaker = format(t('table.speaker.dmFor'), { name: names.character(e.subject_character_id, e.subject_seat_id) ?? unknown });
  } else if (p.speaker) {
    speaker = format(t('table.speaker.npc'), { name: p.speaker });
  } else if (p.kind === 'narration' || fromDm) {
    speaker = t('table.speaker.dm');
  } else {
    speaker = names.character(e.subject_character_id, e.subject_seat_id ?? e.acting_seat_id) ?? unknown;
  }

  const tags: string[] = [];
  if (p.kind === 'ooc') tags.push(t('table.tag.ooc'));
  if (p.kind === 'action' && !p.intent) tags.push(t('table.tag.action'));
  if (p.intent === 'search') tags.push(t('table.tag.search'));
  if (p.intent === 'check') tags.push(format(t('table.tag.check'), { check: checkName(p.check, t) }));
  const recipients = (p.recipient_seat_ids ?? []).map((id) => names.bySeat(id) ?? unknown).join(', ');
  if (p.kind === 'whisper_dm') {
    tags.push(fromDm ? format(t('table.tag.whisperTo'), { name: recipients }) : t('table.tag.whisperToDm'));
  }
  let seenBy: string | null = null;
  if (e.visibility === 'actor_and_dm') {
    seenBy = format(t('table.seenBy'), { name: names.character(e.subject_character_id, e.subject_seat_id ?? e.acting_seat_id) ?? unknown });
  } else if (e.visibility === 'seat_private') {
    seenBy = format(t('table.seenBy'), { name: recipients });
  } else if (e.visibility === 'dm_only') {
    seenBy = t('table.seenByDm');
  }
  const privateLine = e.visibility !== 'public';

  return (
    <li
      className={`chat-line kind-${p.kind}${privateLine ? ' is-private' : ''}${e.execution_mode === 'dm_proxy' ? ' is-proxy' : ''}${deleted ? ' is-deleted' : ''}`}
      data-testid="chat-line"
      data-seq={e.seq}
      data-kind={p.kind}
      data-visibility={e.visibility}
      data-edited={change?.editedAt && !deleted ? 'true' : undefined}
      data-deleted={deleted ? 'true' : undefined}
    >
      <div className="chat-head">
        <span className="speaker" data-testid="speaker">
          {speaker}
        </span>
        {tags.map((tag) => (
          <span key={tag} className="tag">
            {tag}
          </span>
        ))}
        <time dateTime={e.created_at}>{timeOf(e.created_at, lang)}</time>
        {change?.editedAt && !deleted && (
          <span className="edited-mark hint" data-testid="edited-mark" title={change.editedAt}>
            ({t('table.msg.edited')})
          </span>
        )}
      </div>
      {deleted ? (
        <p className="chat-text chat-deleted hint" data-testid="chat-text">
          {t('table.msg.deleted')}
        </p>
      ) : until !== null && edit ? (
        // an edit under way when the window closes stays open (the server then says why it can't be saved)
        <EditableText messageId={p.message_id} text={text} shown={shown} inline={chip} edit={edit} open={editable} t={t} />
      ) : (
        <Markdown className="chat-text" testId="chat-text" text={shown} inline={chip} />
      )}
      {rolls.length > 0 && (
        <div className="inline-rolls">
          {rolls.map((r) => (
            <RollCard key={r.id} r={r} what={t('dice.inline')} ctx={rollCtx} />
          ))}
        </div>
      )}
      {seenBy && (
        <p className="seen-by" data-testid="seen-by">
          {seenBy}
        </p>
      )}
      {onRequestCheck && !deleted && p.intent === 'check' && !fromDmVoice(e, names) && (
        <button
          type="button"
          className="link-button request-this"
          onClick={() => onRequestCheck(p.check ?? '', e.subject_seat_id ?? e.acting_seat_id)}
        >
          {t('check.requestThis')}
        </button>
      )}
    </li>
  );
}

// EditableText: a line's text with its Edit and Delete controls (shown on
// hover or focus); Edit turns it into a textarea (Save, Cancel; Escape
// cancels), Delete asks first. An error shows its text at the line.
function EditableText({
  messageId,
  text,
  shown,
  inline,
  edit,
  open,
  t,
}: {
  messageId: number;
  // the line's text, and as shown (inline roll tokens drawn by inline)
  text: string;
  shown: string;
  inline?: (index: number) => ReactNode;
  edit: MessageEditCtx;
  // the line may still be changed (false once the author's window closed)
  open: boolean;
  t: T;
}) {
  const { errorText } = useI18n();
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(text);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const editButton = useRef<HTMLButtonElement>(null);
  const areaId = useId();

  const run = async (fn: () => Promise<{ event: EventView }>) => {
    setBusy(true);
    setError(null);
    try {
      const r = await fn();
      edit.onEvent(r.event);
      return true;
    } catch (err) {
      setError(err instanceof ApiError ? err.code : '');
      return false;
    } finally {
      setBusy(false);
    }
  };
  const cancel = () => {
    setEditing(false);
    setError(null);
    setTimeout(() => editButton.current?.focus(), 0);
  };
  const save = async () => {
    const next = draft.trim();
    if (next === '' || busy) return;
    if (next === text) return cancel();
    if (await run(() => editMessage(messageId, next))) {
      setEditing(false);
      setTimeout(() => editButton.current?.focus(), 0);
    }
  };

  return (
    <>
      {editing ? (
        <div className="chat-edit" data-testid="chat-edit">
          <label htmlFor={areaId} className="visually-hidden">
            {t('table.msg.editLabel')}
          </label>
          <textarea
            id={areaId}
            value={draft}
            ref={focusOnMount}
            rows={Math.min(6, Math.max(2, draft.split('\n').length))}
            onChange={(ev) => setDraft(ev.target.value)}
            onKeyDown={(ev) => {
              if (ev.key === 'Escape') {
                ev.preventDefault();
                ev.stopPropagation();
                cancel();
              }
            }}
          />
          <div className="inline-form">
            <button type="button" className="primary" disabled={busy || draft.trim() === ''} onClick={() => void save()}>
              {t('common.save')}
            </button>
            <button type="button" onClick={cancel}>
              {t('common.cancel')}
            </button>
          </div>
        </div>
      ) : (
        <Markdown className="chat-text" testId="chat-text" text={shown} inline={inline} />
      )}
      {!editing && open && (
        <div className="chat-tools" role="group" aria-label={t('table.msg.actions')} data-testid="chat-tools">
          <button
            ref={editButton}
            type="button"
            className="icon-only"
            aria-label={t('table.msg.edit')}
            title={t('table.msg.edit')}
            disabled={busy}
            onClick={() => {
              setDraft(text);
              setError(null);
              setEditing(true);
            }}
          >
            <Pencil aria-hidden="true" size={16} />
          </button>
          <ConfirmButton
            testId="chat-delete"
            question={t('table.msg.deleteConfirm')}
            yes={t('table.msg.deleteYes')}
            disabled={busy}
            onConfirm={() => run(() => deleteMessage(messageId))}
            label={t('table.msg.delete')}
            className="icon-only"
          >
            <Trash2 aria-hidden="true" size={16} />
          </ConfirmButton>
        </div>
      )}
      {error !== null && (
        <p className="chat-error notice-error" role="alert" data-testid="chat-error">
          {errorText(error)}
        </p>
      )}
    </>
  );
}

// fromDmVoice: a line the DM wrote in their own voice (not for a player seat).
const fromDmVoice = (e: EventView, names: TableNames) =>
  e.execution_mode !== 'dm_proxy' && e.acting_seat_id != null && e.acting_seat_id === names.dmSeatId && e.subject_seat_id == null;

interface LogCtx {
  names: TableNames;
  t: T;
  isDM: boolean;
  requests: Map<number, RollRequestView>;
}

function diffList(before: string[] | undefined, after: string[] | undefined): { added: string[]; removed: string[] } {
  const b = before ?? [];
  const a = after ?? [];
  return { added: a.filter((x) => !b.includes(x)), removed: b.filter((x) => !a.includes(x)) };
}

// quickWhat names a quick roll of the sheet: an attack ("Longsword: to
// hit", "Longsword: damage (slashing)") or a check ("Dexterity save"); null
// for plain dice.
function quickWhat(p: RollQuickPayload, t: LogCtx['t']): string | null {
  return quickRollName({ check: p.check, attack_name: p.attack_name, attack_roll: p.attack_roll, damage_type: p.damage_type }, t);
}

function RollSummary({ r, what, ctx }: { r: RollResultView; what: string | null; ctx: LogCtx }) {
  const who = whoRolled(r, ctx.names, ctx.t);
  return (
    <>
      {what === null ? format(ctx.t('log.rolledQuick'), { who }) : format(ctx.t('log.rolled'), { who, what })}{' '}
      <code className="roll-formula">{r.formula}</code> <DiceView audit={r.audit} /> ={' '}
      <strong className="roll-total">{r.total}</strong> <Outcome result={r} />
    </>
  );
}

// RecapCard is the "Previously on…" recap that opened the session.
function RecapCard({ text, t }: { text: string; t: T }) {
  return (
    <div className="recap-card" data-testid="recap-card">
      <strong className="recap-title">{t('recap.title')}</strong>
      {text.split(/\n+/).map((para, i) => (
        <p key={i}>{para}</p>
      ))}
    </div>
  );
}

function logContent(e: EventView, ctx: LogCtx): ReactNode | null {
  const { names, t } = ctx;
  const unknown = t('table.speaker.unknown');
  switch (e.kind) {
    case 'session.started':
      return t('table.event.started');
    case 'session.ended':
      return t('table.event.ended');
    case 'session.abandoned':
      return t('table.event.abandoned');
    case 'stage.updated':
      return t('table.event.stage');
    case 'participant.joined': {
      const p = e.payload as unknown as ParticipantJoinedPayload;
      const name = names.character(p.character_id, p.seat_id) ?? unknown;
      return format(t(p.late ? 'table.event.joinedLate' : 'table.event.joined'), { name });
    }
    case 'roll.requested': {
      const p = e.payload as unknown as RollRequestedPayload;
      const name = names.character(e.subject_character_id, e.subject_seat_id) ?? unknown;
      const mode = p.mode && p.mode !== 'normal' ? ` (${t(`check.mode.${p.mode}`)})` : '';
      return format(t('log.requested'), { name, check: requestName(p, t) }) + mode;
    }
    case 'roll.resolved': {
      const p = e.payload as unknown as RollResolvedPayload;
      if (!p.result) return null;
      const req = ctx.requests.get(p.request_id);
      return <RollSummary r={p.result} what={req ? requestName(req, t) : t('dice.check')} ctx={ctx} />;
    }
    case 'roll.outcome': {
      // dm_only: the server never sends it to players; the page shows it to the DM only
      if (!ctx.isDM) return null;
      const p = e.payload as unknown as RollOutcomePayload;
      const req = ctx.requests.get(p.request_id);
      const name = names.character(e.subject_character_id, e.subject_seat_id ?? req?.target_seat_id) ?? unknown;
      return (
        <span data-testid="log-outcome">
          {format(t('log.outcome'), { name, check: req ? requestName(req, t) : t('dice.check'), dc: p.dc })}{' '}
          <span className={`outcome ${p.success ? 'is-pass' : 'is-fail'}`}>{t(p.success ? 'check.pass' : 'check.fail')}</span>
        </span>
      );
    }
    case 'roll.cancelled': {
      const name = names.character(e.subject_character_id, e.subject_seat_id) ?? unknown;
      return format(t('log.cancelled'), { name });
    }
    case 'roll.quick': {
      const p = e.payload as unknown as RollQuickPayload;
      if (!p.result) return null;
      return <RollSummary r={p.result} what={quickWhat(p, t)} ctx={ctx} />;
    }
    case 'action.declared':
    case 'action.updated': {
      const a = (e.payload as unknown as ActionPayload).action;
      if (!a) return null;
      const name = names.character(a.subject_character_id, a.subject_seat_id) ?? unknown;
      const who = a.execution_mode === 'dm_proxy' ? format(t('table.speaker.dmFor'), { name }) : name;
      return e.kind === 'action.declared'
        ? format(t('log.declared'), { who, text: a.text })
        : format(t('log.actionUpdated'), { who, status: t(`actions.status.${a.status as PendingActionStatus}`) });
    }
    case 'window.opened':
    case 'window.closed': {
      const w = (e.payload as unknown as WindowPayload).window;
      if (!w) return null;
      return format(t(e.kind === 'window.opened' ? 'log.windowOpened' : 'log.windowClosed'), { prompt: w.prompt });
    }
    case 'character.changed': {
      const p = e.payload as unknown as CharacterChangedPayload;
      const name = names.character(p.character_id ?? e.subject_character_id, p.seat_id ?? e.subject_seat_id) ?? unknown;
      const hp = p.after?.hp;
      const hpText = hp ? `${hp.current}/${hp.max}` : '';
      switch (p.op) {
        case 'damage':
          return format(t('log.damage'), { name, hp: hpText });
        case 'heal':
          return format(t('log.heal'), { name, hp: hpText });
        case 'set_temp_hp':
          return format(t('log.tempHp'), { name, n: hp?.temp ?? 0 });
        case 'add_condition':
        case 'remove_condition': {
          const d = diffList(p.before?.conditions, p.after?.conditions);
          const list = (p.op === 'add_condition' ? d.added : d.removed).map((c) => conditionName(c, t)).join(', ');
          return format(t(p.op === 'add_condition' ? 'log.conditionAdded' : 'log.conditionRemoved'), { name, condition: list });
        }
        case 'spend_resource':
        case 'restore_resource': {
          const after = p.after?.resources ?? [];
          const before = p.before?.resources ?? [];
          const changed = after.find((r) => before.find((b) => b.name === r.name)?.current !== r.current) ?? after[0];
          return format(t(p.op === 'spend_resource' ? 'log.resourceSpent' : 'log.resourceRestored'), {
            name,
            resource: changed ? `${changed.name} ${changed.current}/${changed.max}` : '',
          });
        }
        default:
          return format(t('log.characterChanged'), { name });
      }
    }
    default:
      return null;
  }
}

export function LogList({
  events,
  names,
  isDM = false,
  requests,
}: {
  events: EventView[];
  names: TableNames;
  isDM?: boolean;
  // the roll requests the reader may see (names the check of a result)
  requests?: Map<number, RollRequestView>;
}) {
  const { t, lang } = useI18n();
  const ctx: LogCtx = { names, t, isDM, requests: requests ?? new Map() };
  const lines = events
    .filter((e) => !isMessage(e))
    .map((e) => ({ e, content: logContent(e, ctx) }))
    .filter((x): x is { e: EventView; content: ReactNode } => x.content !== null && x.content !== undefined);
  const stick = useStickToBottom(lines.length);
  return (
    <section className="feed log" aria-labelledby="table-log">
      <h2 id="table-log">{t('table.log')}</h2>
      {lines.length === 0 && <p className="hint">{t('table.log.empty')}</p>}
      <ol className="feed-lines" data-testid="log" ref={stick.ref} onScroll={stick.onScroll}>
        {lines.map(({ e, content }) => (
          <li key={e.seq} className="log-line" data-testid="log-line" data-seq={e.seq} data-kind={e.kind}>
            <time dateTime={e.created_at}>{timeOf(e.created_at, lang)}</time> {content}
          </li>
        ))}
      </ol>
    </section>
  );
}

// ---- the table feed: chat, rolls, checks and log in one column ----------

// natural: "20" when a kept d20 shows 20, "1" when a kept d20 shows 1.
export function naturalOf(r: RollResultView): '20' | '1' | null {
  let nat: '20' | '1' | null = null;
  for (const g of r.audit?.groups ?? []) {
    if (g.sides !== 20 || g.fudge) continue;
    for (const d of g.dice ?? []) {
      if (!d.kept || d.dropped) continue;
      if (d.value === 20) return '20';
      if (d.value === 1) nat = '1';
    }
  }
  return nat;
}

// RollCard: one result in the feed — who, what, the formula, every die
// (kept, dropped, rerolled, exploded), the total and pass / fail.
function RollCard({ r, what, ctx }: { r: RollResultView; what: string | null; ctx: LogCtx }) {
  const nat = naturalOf(r);
  // Folded, a card is its total: the dice open on demand (Foundry's way).
  const [open, setOpen] = useState(true);
  return (
    <div className={`feed-card roll-card${nat ? ` is-nat${nat}` : ''}${open ? '' : ' is-folded'}`} data-testid="roll-card" data-natural={nat ?? undefined}>
      <div className="roll-head">
        <span className="speaker">{whoRolled(r, ctx.names, ctx.t)}</span>
        <span className="roll-what">{what ?? ctx.t('dice.quick')}</span>
        {r.source === 'physical' && <span className="tag">{ctx.t('dice.physical')}</span>}
        {r.visibility !== 'public' && <span className="tag">{ctx.t('dice.private')}</span>}
        <button
          type="button"
          className="roll-fold"
          aria-expanded={open}
          aria-label={ctx.t(open ? 'dice.fold' : 'dice.unfold')}
          data-testid="roll-fold"
          onClick={() => setOpen(!open)}
        >
          {open ? <ChevronDown aria-hidden="true" size={18} /> : <ChevronRight aria-hidden="true" size={18} />}
        </button>
      </div>
      <div className="roll-body">
        {open && (
          <>
            <code className="roll-formula">{r.formula}</code> <DiceView audit={r.audit} /> <span className="roll-eq">=</span>{' '}
          </>
        )}
        <strong className="roll-total" data-testid="feed-roll-total">
          {r.total}
        </strong>{' '}
        <Outcome result={r} />
      </div>
    </div>
  );
}

// CheckCard: a check the DM asked for; it resolves in place when the roll
// comes in (or shows that it was cancelled). The DC shows to the DM only.
// While pending it carries `answer` (its player's Roll / Enter my dice, the
// DM's cancel).
function CheckCard({
  e,
  ctx,
  request,
  result,
  cancelled,
  revealed,
  answer,
}: {
  e: EventView;
  ctx: LogCtx;
  request: RollRequestView | undefined;
  result: RollResultView | null;
  cancelled: boolean;
  // its roll.revealed, once the feed has it
  revealed?: RollRevealedPayload;
  answer?: ReactNode;
}) {
  const { t, names } = ctx;
  const p = e.payload as unknown as RollRequestedPayload;
  const name = names.character(e.subject_character_id, e.subject_seat_id ?? request?.target_seat_id) ?? t('table.speaker.unknown');
  const status = result ? 'resolved' : cancelled || request?.status === 'cancelled' ? 'cancelled' : 'pending';
  const nat = result ? naturalOf(result) : null;
  const mode = p.mode ?? request?.mode;
  // the secret DC's commitment, and once revealed the DC and salt that open it
  const commitment = p.dc_commitment ?? request?.dc_commitment;
  const reveal: DcReveal | null = revealed
    ? { dc: revealed.dc, salt: revealed.dc_salt }
    : request?.dc_salt && request.dc != null
      ? { dc: request.dc, salt: request.dc_salt }
      : null;
  const dc = ctx.isDM && !(commitment && reveal) ? request?.dc : undefined;
  return (
    <div
      className={`feed-card check-card status-${status}${nat ? ` is-nat${nat}` : ''}`}
      data-testid="feed-check"
      data-status={status}
      data-natural={nat ?? undefined}
    >
      <div className="roll-head">
        <span className="speaker">{name}</span>
        <span className="roll-what">{requestName(request ?? p, t)}</span>
        {requestNote(request ?? p) && <span className="request-note">{requestNote(request ?? p)}</span>}
        {mode && mode !== 'normal' && <span className="tag">{t(`check.mode.${mode}`)}</span>}
        {dc !== undefined && dc !== null && <span className="tag dc">{format(t('check.dc'), { dc })}</span>}
        <DcSeal commitment={commitment} reveal={reveal} />
        {/* (a pending card with its answer's buttons needs no "Waiting for the roll") */}
        {status !== 'resolved' && !(status === 'pending' && answer) && <span className="tag">{t(`check.status.${status}`)}</span>}
      </div>
      {result && (
        <div className="roll-body">
          <code className="roll-formula">{result.formula}</code> <DiceView audit={result.audit} /> <span className="roll-eq">=</span>{' '}
          <strong className="roll-total" data-testid="feed-check-total">
            {result.total}
          </strong>{' '}
          <Outcome result={result} />
        </div>
      )}
      {status === 'pending' && answer}
    </div>
  );
}

// CheckAnswerCtx: what a check card needs to take its answer (the session
// page's BoardCtx has it): whose page this is, whether the session is in
// play, and where an answer or a cancel goes.
export interface CheckAnswerCtx {
  mySeatId: number | null;
  canAct: boolean;
  onResult: (r: RollResultView) => void;
  reloadBoard: () => void;
}

// requestsInFeed: the check requests that events show as check cards (their roll.requested).
export function requestsInFeed(events: EventView[]): Set<number> {
  const out = new Set<number>();
  for (const e of events) if (e.kind === 'roll.requested') out.add((e.payload as unknown as RollRequestedPayload).request_id);
  return out;
}

const sessionOver = (e: EventView) => e.kind === 'session.ended' || e.kind === 'session.abandoned';

// TableFeed is the table's one feed, oldest first: chat lines, roll and check
// cards, and the log of what happened, in the order it happened.
export function TableFeed({
  events,
  names,
  isDM = false,
  requests,
  resultFor,
  onRequestCheck,
  edit,
  checks,
  drafts = [],
}: {
  events: EventView[];
  names: TableNames;
  isDM?: boolean;
  requests?: Map<number, RollRequestView>;
  // the result of a check request, when known (board, own answer, feed)
  resultFor?: (requestId: number) => RollResultView | null;
  onRequestCheck?: RequestCheckShortcut;
  // the Edit and Delete controls of chat lines (none when absent)
  edit?: MessageEditCtx;
  // answering check cards in place; absent: the reader's seat is edit's and
  // the session is in play until it ends
  checks?: CheckAnswerCtx;
  // what the server's narrators are writing now, shown as it is written
  drafts?: NarrationDraft[];
}) {
  const { t, lang } = useI18n();
  const changes = messageChanges(events);
  const ctx: LogCtx = { names, t, isDM, requests: requests ?? new Map() };
  // answers and cancels made here show at once, before the feed or the board says so
  const [answered, setAnswered] = useState<Map<number, RollResultView>>(() => new Map());
  const [cancelledHere, setCancelledHere] = useState<Set<number>>(() => new Set());
  const mySeatId = checks ? checks.mySeatId : (edit?.mySeatId ?? null);
  const canAct = checks ? checks.canAct : edit !== undefined && !events.some(sessionOver);
  const answerFor = (id: number): ReactNode => {
    const request = ctx.requests.get(id);
    if (!request || request.status !== 'pending') return null;
    const mine = !isDM && mySeatId !== null && request.target_seat_id === mySeatId;
    if (!mine && !(isDM && canAct)) return null;
    return (
      <CheckAnswer
        request={request}
        name={names.character(request.target_character_id, request.target_seat_id) ?? t('table.speaker.unknown')}
        answer={mine ? 'mine' : null}
        cancel={isDM}
        canAct={canAct}
        compact
        onResult={(r) => {
          setAnswered((cur) => new Map(cur).set(id, r));
          checks?.onResult(r);
          checks?.reloadBoard();
        }}
        onChanged={() => {
          setCancelledHere((cur) => new Set(cur).add(id));
          checks?.reloadBoard();
        }}
      />
    );
  };
  const asked = new Set<number>();
  const resolvedBy = new Map<number, RollResultView>();
  const cancelled = new Set<number>();
  const revealedBy = new Map<number, RollRevealedPayload>();
  for (const e of events) {
    if (e.kind === 'roll.revealed') {
      const p = e.payload as unknown as RollRevealedPayload;
      revealedBy.set(p.request_id, p);
    }
    if (e.kind === 'roll.requested') asked.add((e.payload as unknown as RollRequestedPayload).request_id);
    if (e.kind === 'roll.resolved') {
      const p = e.payload as unknown as RollResolvedPayload;
      if (p.result) resolvedBy.set(p.request_id, p.result);
    }
    if (e.kind === 'roll.cancelled') {
      const id = (e.payload as { request_id?: number }).request_id;
      if (typeof id === 'number') cancelled.add(id);
    }
  }
  const items: { e: EventView; node: ReactNode }[] = [];
  // a fight's DM-only details go on the card of the event they complete
  const secrets = secretsByEvent(events);
  const shownSeqs = new Set(events.map((e) => e.seq));
  for (const e of events) {
    if (isMessage(e)) {
      const id = (e.payload as unknown as MessagePayload).message_id;
      items.push({
        e,
        node: (
          <ChatLine
            key={e.seq}
            e={e}
            names={names}
            t={t}
            lang={lang}
            onRequestCheck={onRequestCheck}
            change={changes.get(id)}
            edit={edit}
          />
        ),
      });
      continue;
    }
    let content: ReactNode | null = null;
    let card = false;
    if (e.kind === 'roll.requested') {
      const id = (e.payload as unknown as RollRequestedPayload).request_id;
      const result = resultFor?.(id) ?? resolvedBy.get(id) ?? ctx.requests.get(id)?.result ?? answered.get(id) ?? null;
      content = (
        <CheckCard
          e={e}
          ctx={ctx}
          request={ctx.requests.get(id)}
          result={result}
          cancelled={cancelled.has(id) || cancelledHere.has(id)}
          revealed={revealedBy.get(id)}
          answer={answerFor(id)}
        />
      );
      card = true;
    } else if (e.kind === 'roll.resolved') {
      const p = e.payload as unknown as RollResolvedPayload;
      // its check card above shows the result
      if (!p.result || asked.has(p.request_id)) continue;
      const req = ctx.requests.get(p.request_id);
      content = <RollCard r={p.result} what={req ? requestName(req, t) : t('dice.check')} ctx={ctx} />;
      card = true;
    } else if (e.kind === 'roll.quick') {
      const p = e.payload as unknown as RollQuickPayload;
      if (!p.result) continue;
      content = <RollCard r={p.result} what={quickWhat(p, t)} ctx={ctx} />;
      card = true;
    } else if (e.kind === 'roll.cancelled') {
      const id = (e.payload as { request_id?: number }).request_id;
      // its check card above says so
      if (typeof id === 'number' && asked.has(id)) continue;
      content = logContent(e, ctx);
    } else if (e.kind === 'recap.posted') {
      content = <RecapCard text={String((e.payload as { text?: unknown }).text ?? '')} t={t} />;
      card = true;
    } else if (e.kind.startsWith('encounter.')) {
      content = encounterCard(e, { t, isDM, secrets, shownSeqs });
      card = isEncounterCard(e);
    } else {
      content = logContent(e, ctx);
    }
    if (content === null || content === undefined) continue;
    items.push({
      e,
      node: (
        <li key={e.seq} className={`log-line${card ? ' has-card' : ''}`} data-testid="log-line" data-seq={e.seq} data-kind={e.kind}>
          {!card && <time dateTime={e.created_at}>{timeOf(e.created_at, lang)}</time>} {content}
        </li>
      ),
    });
  }
  const writing = drafts.filter((d) => !postedAlready(d, events));
  const stick = useStickToBottom(items.length + writing.length);
  return (
    <section className="feed table-feed" aria-labelledby="table-chat">
      <h2 id="table-chat" className="feed-title">
        {t('table.chat')}
      </h2>
      {items.length === 0 && <p className="hint">{t('table.chat.empty')}</p>}
      <ol className="feed-lines" data-testid="chat" ref={stick.ref} onScroll={stick.onScroll} aria-live="polite">
        {items.map((x) => x.node)}
        {writing.map((d) => (
          <DraftLine
            key={d.seatId}
            d={d}
            dm={d.seatId === names.dmSeatId}
            speaker={d.seatId === names.dmSeatId ? t('table.speaker.dm') : (names.bySeat(d.seatId) ?? t('table.speaker.unknown'))}
            t={t}
          />
        ))}
      </ol>
    </section>
  );
}

// NarrationDraft is what a narrator at seatId is writing now.
export interface NarrationDraft {
  seatId: number;
  text: string;
}

// postedAlready: the narration was posted while its draft was still being
// read (the step records its end just after its post).
function postedAlready(d: NarrationDraft, events: EventView[]): boolean {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!;
    if (!isMessage(e) || e.acting_seat_id !== d.seatId) continue;
    return ((e.payload as unknown as ChatPayload).text ?? '').startsWith(d.text);
  }
  return false;
}

// DraftLine is a narration as it is being written. Screen readers hear the
// line once it is posted, not every word of it (aria-hidden here).
function DraftLine({ d, dm, speaker, t }: { d: NarrationDraft; dm: boolean; speaker: string; t: T }) {
  return (
    <li className={`chat-line ${dm ? 'kind-narration' : 'kind-say'} is-draft`} data-testid="narrator-draft" data-seat-id={d.seatId} aria-hidden="true">
      <div className="chat-head">
        <span className="speaker">{speaker}</span>
        <span className="tag writing-tag">{t('narrator.state.writing')}</span>
      </div>
      <p className="chat-text">
        {d.text}
        <span className="writing-caret" />
      </p>
    </li>
  );
}
