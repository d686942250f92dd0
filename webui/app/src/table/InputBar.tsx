import { Lock, SendHorizontal } from 'lucide-react';
import { useId, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import './InputBar.css';
import { ErrorNotice } from '../components/ErrorNotice';
import { useI18n } from '../i18n/I18nProvider';
import type { MessageKey } from '../i18n/messages';
import { useAction } from '../useAction';
import {
  declareAction,
  postInput,
  postMessage,
  type EventView,
  type MessageInput,
  type PendingActionView,
  type Posted,
  type TextInput,
} from './api';

// Who is writing: a player for their own seat, the DM in their own voice,
// or the DM acting for a player seat (DM proxy).
export type InputMode = 'player' | 'dm' | 'proxy';

interface QuickAction {
  id: string;
  label: MessageKey;
  kind: MessageInput['kind'];
  intent?: 'search';
  // declare a pending action for the DM to adjudicate (POST /pending-actions)
  declare?: true;
}

const PLAYER_ACTIONS: QuickAction[] = [
  { id: 'say', label: 'table.input.say', kind: 'character_dialogue' },
  { id: 'act', label: 'table.input.act', kind: 'action' },
  { id: 'search', label: 'table.input.search', kind: 'action', intent: 'search' },
  { id: 'declare', label: 'table.input.declare', kind: 'action', declare: true },
  { id: 'whisper', label: 'table.input.whisperDm', kind: 'whisper_dm' },
  { id: 'ooc', label: 'table.input.ooc', kind: 'ooc' },
];
const PROXY_ACTIONS = PLAYER_ACTIONS.filter((a) => a.kind !== 'whisper_dm');
const DM_ACTIONS: QuickAction[] = [
  { id: 'narrate', label: 'table.input.narrate', kind: 'narration' },
  { id: 'whisper', label: 'table.input.whisper', kind: 'whisper_dm' },
  { id: 'ooc', label: 'table.input.ooc', kind: 'ooc' },
];

const SLASH: { cmd: string; hint: MessageKey; modes: InputMode[] }[] = [
  { cmd: '/action', hint: 'table.slash.action', modes: ['player', 'proxy'] },
  { cmd: '/search', hint: 'table.slash.search', modes: ['player', 'proxy'] },
  { cmd: '/whisper', hint: 'table.slash.whisper', modes: ['player', 'dm'] },
  { cmd: '/ooc', hint: 'table.slash.ooc', modes: ['player', 'dm', 'proxy'] },
  { cmd: '/check', hint: 'table.slash.check', modes: ['player', 'proxy'] },
  { cmd: '/check', hint: 'table.slash.checkDm', modes: ['dm'] },
  { cmd: '/npc', hint: 'table.slash.npc', modes: ['dm'] },
];

// newKey makes an idempotency key; randomUUID needs a secure context, so
// fall back to getRandomValues on plain-http hosts.
export function newKey(): string {
  const c = globalThis.crypto;
  if (typeof c?.randomUUID === 'function') return c.randomUUID();
  const b = c.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

// the chat box grows to this many lines, then scrolls
const MAX_ROWS = 6;

export interface WhisperTarget {
  seatId: number;
  name: string;
}

export function InputBar({
  sessionId,
  mode,
  subjectSeatId,
  targets,
  closedReason,
  onPosted,
  windowId = null,
  onDeclared,
}: {
  sessionId: number;
  mode: InputMode;
  // the seat the DM acts for (mode 'proxy')
  subjectSeatId: number | null;
  // participant seats the DM can whisper to
  targets: WhisperTarget[];
  // why nothing can be sent now (null: posting is open)
  closedReason: MessageKey | null;
  onPosted: (event: EventView) => void;
  // the open action window a declared action answers
  windowId?: number | null;
  onDeclared?: (action: PendingActionView) => void;
}) {
  const { t } = useI18n();
  const [text, setText] = useState('');
  const [target, setTarget] = useState('');
  const action = useAction();
  // The key of the message being sent: kept while the same message is
  // retried after a failure, so the server stores it once.
  const pending = useRef<{ sig: string; key: string } | null>(null);
  const inputId = useId();
  const targetId = useId();

  const closed = closedReason !== null;
  const trimmed = text.trim();
  const targetSeat = mode === 'dm' && target !== '' && targets.some((x) => String(x.seatId) === target) ? Number(target) : null;
  const subject = mode === 'proxy' && subjectSeatId !== null ? { subject_seat_id: subjectSeatId } : {};

  const send = async (path: 'messages' | 'input', body: Omit<MessageInput, 'idempotency_key'> | Omit<TextInput, 'idempotency_key'>) => {
    const sig = JSON.stringify([path, body]);
    if (pending.current?.sig !== sig) pending.current = { sig, key: newKey() };
    const key = pending.current.key;
    const posted = await action.run<Posted>(() =>
      path === 'messages'
        ? postMessage(sessionId, { ...(body as MessageInput), idempotency_key: key })
        : postInput(sessionId, { ...(body as TextInput), idempotency_key: key }),
    );
    if (posted) {
      pending.current = null;
      setText('');
      if (posted.event) onPosted(posted.event);
    }
  };

  const declare = async () => {
    const body = { text: trimmed, ...subject, ...(windowId !== null ? { window_id: windowId } : {}) };
    const declared = await action.run(() => declareAction(sessionId, body));
    if (declared) {
      setText('');
      onDeclared?.(declared);
    }
  };

  const submit = (e?: FormEvent) => {
    e?.preventDefault();
    if (closed || trimmed === '' || action.busy) return;
    if (mode === 'dm') {
      // "/w Mira text" whispers Mira (Roll20's way); "/w text" the chosen target
      const named = namedWhisper(trimmed, targets);
      if (named) {
        setTarget(String(named.seatId));
        void send('messages', { kind: 'whisper_dm', text: named.text, to_seat_id: named.seatId });
        return;
      }
    }
    const whisper = mode === 'dm' && /^\/(w|whisper)(\s|$)/i.test(trimmed) && targetSeat !== null ? { to_seat_id: targetSeat } : {};
    void send('input', { text: trimmed, ...subject, ...whisper });
  };

  const quick = (a: QuickAction) => {
    if (closed || trimmed === '' || action.busy) return;
    if (a.declare) {
      void declare();
      return;
    }
    const body: Omit<MessageInput, 'idempotency_key'> = { kind: a.kind, text: trimmed, ...subject };
    if (a.intent) body.intent = a.intent;
    if (mode === 'dm' && a.kind === 'whisper_dm' && targetSeat !== null) body.to_seat_id = targetSeat;
    void send('messages', body);
  };

  // Enter sends, Shift+Enter breaks the line; never while an IME composes.
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key !== 'Enter' || e.shiftKey || e.nativeEvent.isComposing || e.keyCode === 229) return;
    e.preventDefault();
    submit();
  };

  const actions = mode === 'dm' ? DM_ACTIONS : mode === 'proxy' ? PROXY_ACTIONS : PLAYER_ACTIONS;
  const hints = slashHints(text, mode);

  return (
    <section className="input-bar" aria-labelledby={`${inputId}-title`}>
      <h2 id={`${inputId}-title`} className="visually-hidden">
        {t('table.input')}
      </h2>
      {closed && <p className="hint" data-testid="input-closed">{t(closedReason)}</p>}
      {hints && (
        <div className="slash-hints" data-testid="slash-hints">
          <p className="hint">{hints.matched ? t('table.slash') : t('table.slash.none')}</p>
          <ul>
            {hints.list.map((h) => (
              <li key={h.cmd}>
                <button type="button" className="link-button" onClick={() => setText(`${h.cmd} `)}>
                  {h.cmd}
                </button>{' '}
                <span className="hint">{t(mode === 'dm' && h.cmd === '/whisper' ? 'table.slash.whisperDm' : h.hint)}</span>
              </li>
            ))}
          </ul>
        </div>
      )}
      {mode === 'dm' && targets.length > 0 && (
        // A row of small chips, not a select beside the text: the text
        // keeps the width (a select squeezed it to 41 px on a phone).
        <div className="whisper-targets" role="group" aria-labelledby={targetId}>
          <span id={targetId} className="hint">
            {t('table.input.whisperTo')}
          </span>
          {targets.map((x) => {
            const on = String(x.seatId) === target;
            return (
              <button
                key={x.seatId}
                type="button"
                className="chip"
                aria-pressed={on}
                disabled={closed}
                onClick={() => setTarget(on ? '' : String(x.seatId))}
              >
                {on && <Lock aria-hidden="true" size={14} />}
                {x.name}
              </button>
            );
          })}
        </div>
      )}
      <form className="input-row" onSubmit={submit}>
        <label htmlFor={inputId} className="visually-hidden">
          {t('table.input.message')}
        </label>
        <textarea
          id={inputId}
          className="message-input"
          value={text}
          // grows with its lines up to a few, then scrolls
          rows={Math.min(MAX_ROWS, text.split('\n').length)}
          maxLength={4000}
          autoComplete="off"
          disabled={closed}
          placeholder={t(mode === 'dm' ? 'table.input.placeholderDm' : 'table.input.placeholder')}
          aria-describedby={`${inputId}-keys`}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={onKeyDown}
        />
        <span id={`${inputId}-keys`} className="visually-hidden">
          {t('table.input.keys')}
        </span>
        <button type="submit" className="primary send" disabled={closed || trimmed === '' || action.busy}>
          <SendHorizontal aria-hidden="true" size={18} />
          {t('table.input.send')}
        </button>
      </form>
      <div className="quick-actions" role="group" aria-label={t('table.input.quick')}>
        {actions.map((a) => (
          <button
            key={a.id}
            type="button"
            disabled={
              closed || trimmed === '' || action.busy || (mode === 'dm' && a.kind === 'whisper_dm' && targetSeat === null)
            }
            onClick={() => quick(a)}
          >
            {t(a.label)}
          </button>
        ))}
      </div>
      {action.error !== null && <ErrorNotice code={action.error} />}
    </section>
  );
}

// namedWhisper reads the DM's "/w Name text" (or "/whisper Name text"):
// the longest target name the line starts with, matched without case.
export function namedWhisper(line: string, targets: WhisperTarget[]): { seatId: number; text: string } | null {
  const m = /^\/(?:w|whisper)\s+([\s\S]*)$/i.exec(line);
  if (!m) return null;
  const rest = m[1]!;
  const lower = rest.toLowerCase();
  let best: { seatId: number; text: string; len: number } | null = null;
  for (const x of targets) {
    const name = x.name.trim().toLowerCase();
    if (name === '' || !lower.startsWith(name)) continue;
    const after = rest.slice(name.length);
    if (after !== '' && !/^[\s:,]/.test(after)) continue;
    const text = after.replace(/^[\s:,]+/, '').trim();
    if (text !== '' && (best === null || name.length > best.len)) best = { seatId: x.seatId, text, len: name.length };
  }
  return best && { seatId: best.seatId, text: best.text };
}

// slashHints lists the commands matching what is typed after "/"; when
// nothing matches it lists them all (matched=false).
function slashHints(text: string, mode: InputMode) {
  if (!text.startsWith('/')) return null;
  const typed = text.split(/\s/, 1)[0]!.toLowerCase();
  const word = typed === '/w' ? '/whisper' : typed;
  const mine = SLASH.filter((s) => s.modes.includes(mode));
  const typedWhole = /\s/.test(text);
  const matching = mine.filter((s) => (typedWhole ? s.cmd === word : s.cmd.startsWith(word)));
  if (matching.length > 0) return { matched: true, list: matching };
  return { matched: false, list: mine };
}
