import { useEffect, useRef } from 'react';
import { useI18n } from '../i18n/I18nProvider';
import { format, type MessageKey } from '../i18n/messages';
import {
  ABILITIES,
  SKILLS,
  type EventView,
  type MessagePayload,
  type ParticipantJoinedPayload,
} from './api';
import type { TableNames } from './names';

type T = (key: MessageKey) => string;

export const isMessage = (e: EventView) => e.kind === 'message.posted';

function checkName(check: string, t: T): string {
  if ((SKILLS as readonly string[]).includes(check)) return t(`skill.${check}` as MessageKey);
  if ((ABILITIES as readonly string[]).includes(check)) return t(`ability.${check}` as MessageKey);
  return check;
}

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
  const onScroll = () => {
    const el = ref.current;
    if (el) atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
  };
  return { ref, onScroll };
}

export function ChatList({ events, names }: { events: EventView[]; names: TableNames }) {
  const { t, lang } = useI18n();
  const lines = events.filter(isMessage);
  const stick = useStickToBottom(lines.length);
  return (
    <section className="feed chat" aria-labelledby="table-chat">
      <h2 id="table-chat">{t('table.chat')}</h2>
      {lines.length === 0 && <p className="hint">{t('table.chat.empty')}</p>}
      <ol className="feed-lines" data-testid="chat" ref={stick.ref} onScroll={stick.onScroll} aria-live="polite">
        {lines.map((e) => (
          <ChatLine key={e.seq} e={e} names={names} t={t} lang={lang} />
        ))}
      </ol>
    </section>
  );
}

function ChatLine({ e, names, t, lang }: { e: EventView; names: TableNames; t: T; lang: string }) {
  const p = e.payload as unknown as MessagePayload;
  const unknown = t('table.speaker.unknown');
  const fromDm = e.acting_seat_id != null && e.acting_seat_id === names.dmSeatId;
  let speaker: string;
  if (e.execution_mode === 'dm_proxy') {
    speaker = format(t('table.speaker.dmFor'), { name: names.character(e.subject_character_id, e.subject_seat_id) ?? unknown });
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
      className={`chat-line kind-${p.kind}${privateLine ? ' is-private' : ''}${e.execution_mode === 'dm_proxy' ? ' is-proxy' : ''}`}
      data-testid="chat-line"
      data-seq={e.seq}
      data-kind={p.kind}
      data-visibility={e.visibility}
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
      </div>
      <p className="chat-text" data-testid="chat-text">
        {p.text}
      </p>
      {seenBy && (
        <p className="seen-by" data-testid="seen-by">
          {seenBy}
        </p>
      )}
    </li>
  );
}

function logText(e: EventView, names: TableNames, t: T): string | null {
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
      const name = names.character(p.character_id, p.seat_id) ?? t('table.speaker.unknown');
      return format(t(p.late ? 'table.event.joinedLate' : 'table.event.joined'), { name });
    }
    default:
      return null;
  }
}

export function LogList({ events, names }: { events: EventView[]; names: TableNames }) {
  const { t, lang } = useI18n();
  const lines = events
    .filter((e) => !isMessage(e))
    .map((e) => ({ e, text: logText(e, names, t) }))
    .filter((x): x is { e: EventView; text: string } => x.text !== null);
  const stick = useStickToBottom(lines.length);
  return (
    <section className="feed log" aria-labelledby="table-log">
      <h2 id="table-log">{t('table.log')}</h2>
      {lines.length === 0 && <p className="hint">{t('table.log.empty')}</p>}
      <ol className="feed-lines" data-testid="log" ref={stick.ref} onScroll={stick.onScroll}>
        {lines.map(({ e, text }) => (
          <li key={e.seq} className="log-line" data-testid="log-line" data-seq={e.seq} data-kind={e.kind}>
            <time dateTime={e.created_at}>{timeOf(e.created_at, lang)}</time> {text}
          </li>
        ))}
      </ol>
    </section>
  );
}
