// Adventure Table's narrator in the browser: the offer to give it a seat
// (the room page: the DM seat, my own seat, a companion in a free seat),
// the model it will spend, and its compact status with Pause / Resume /
// Act now / Take back (the session page). The server decides who may do
// what; these show only what applies to the reader.
import { Bot, ListTree, Pause, Play, Settings, Zap } from 'lucide-react';
import { useCallback, useId, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { ErrorNotice, MODEL_SETTINGS_CODES, MODEL_SETTINGS_PATH } from '../components/ErrorNotice';
import { useI18n } from '../i18n/I18nProvider';
import { format, type MessageKey } from '../i18n/messages';
import { apiGet } from '../api';
import type { ProviderSettingsView } from '../solo/api';
import type { NarrationDraft } from './Feed';
import { useAction } from '../useAction';
import { useApi } from '../useApi';
import { usePolled, type Polled } from '../usePolled';
import {
  controlNarrator,
  listNarrators,
  seatNarrator,
  takeBackNarrator,
  listCharacters,
  type NarratorAction,
  type NarratorState,
  type NarratorView,
  type RoomView,
  type SessionResume,
} from './api';

// The narrator's quiet time, in seconds, as the person sets it (the server's bounds).
export const DEFAULT_QUIET_S = 4;
const MAX_QUIET_S = 60;

// NARRATOR_POLL_MS: how often an open session page rereads the narrators;
// NARRATOR_BUSY_POLL_MS while one of them is thinking or writing, so its
// narration streams into the feed as it is written.
export const NARRATOR_POLL_MS = 2000;
export const NARRATOR_BUSY_POLL_MS = 300;

const busy = (n: NarratorView) => n.state === 'thinking' || n.state === 'writing';

// useNarrators polls the room's narrators while the page is visible: every
// 2 s, faster while one of them is at work.
export function useNarrators(roomId: number, intervalMs = NARRATOR_POLL_MS) {
  const load = useCallback((signal: AbortSignal) => listNarrators(roomId, signal), [roomId]);
  const [fast, setFast] = useState(false);
  const polled = usePolled(load, fast ? Math.min(intervalMs, NARRATOR_BUSY_POLL_MS) : intervalMs);
  const working = (polled.data ?? []).some(busy);
  if (working !== fast) setFast(working);
  return polled;
}

// narrationDrafts is what the narrators are writing now, for the feed.
export function narrationDrafts(narrators: NarratorView[] | null): NarrationDraft[] {
  return (narrators ?? []).flatMap((n) => (n.state === 'writing' && n.draft ? [{ seatId: n.seat_id, text: n.draft }] : []));
}

// getProviderSettings reads the reader's model settings (solo/api's read,
// here so the session page goes without the solo pages' API module).
const getProviderSettings = (signal?: AbortSignal) => apiGet<ProviderSettingsView>('/api/solo/settings', signal);

// ModelLine says which model the narrator would spend (the reader's own
// settings, or the demo narrator) and links to the settings.
export function ModelLine() {
  const { t } = useI18n();
  const [settings] = useApi(getProviderSettings);
  let text: string | null = null;
  if (settings.state === 'ok') {
    const s = settings.data;
    if (s.demo?.available && s.demo.in_use) {
      text = format(t('narrator.model.demo'), { left: Math.max(0, s.demo.daily_tokens - s.demo.used_today) });
    } else if (s.model.trim() === '' || s.base_url.trim() === '') {
      text = t('narrator.model.none');
    } else {
      text = format(t('narrator.model.uses'), { model: s.model, host: hostOf(s.base_url) });
    }
  }
  return (
    <p className="hint narrator-model" data-testid="narrator-model">
      {text !== null && <span>{text} </span>}
      <Link to={MODEL_SETTINGS_PATH} data-testid="narrator-model-link">
        <Settings aria-hidden="true" size={14} /> {t('narrator.model.link')}
      </Link>
    </p>
  );
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

// QuietTime: the seconds the table stays quiet after a player's message
// before the narrator answers (a message with @DM is answered at once).
function QuietTime({ value, onChange }: { value: string; onChange: (v: string) => void }) {
  const { t } = useI18n();
  const id = useId();
  return (
    <span className="narrator-quiet">
      <label htmlFor={id}>{t('narrator.quiet.label')}</label>
      <input
        id={id}
        type="number"
        inputMode="decimal"
        min={0}
        max={MAX_QUIET_S}
        step={0.5}
        value={value}
        aria-describedby={`${id}-hint`}
        data-testid="narrator-quiet"
        onChange={(e) => onChange(e.target.value)}
      />
      <span className="hint" id={`${id}-hint`}>
        {t('narrator.quiet.hint')}
      </span>
    </span>
  );
}

// quietMs turns the seconds field into the route's debounce_ms (0: the default).
function quietMs(v: string): number {
  const n = Number(v.trim());
  if (!Number.isFinite(n) || n <= 0) return 0;
  return Math.round(Math.min(n, MAX_QUIET_S) * 1000);
}

export type NarratorOfferKind = 'dm' | 'own' | 'companion';

const OFFER: Record<NarratorOfferKind, { submit: MessageKey; hint: MessageKey; open: MessageKey }> = {
  dm: { submit: 'narrator.offer.dm', hint: 'narrator.offer.dmHint', open: 'narrator.offer.dm' },
  own: { submit: 'narrator.offer.ownSubmit', hint: 'narrator.offer.ownHint', open: 'narrator.offer.own' },
  companion: { submit: 'narrator.offer.companionSubmit', hint: 'narrator.offer.companionHint', open: 'narrator.offer.companion' },
};

// NarratorOffer gives a seat to the narrator, with its quiet time and the
// model it spends. The DM seat's offer is always open (it sits beside the
// outside-agent option); a seat row's offer opens from one button.
export function NarratorOffer({
  seatId,
  kind,
  pickCharacter = false,
  onSeated,
}: {
  seatId: number;
  kind: NarratorOfferKind;
  // a free seat without a character: the owner picks one of theirs for the companion
  pickCharacter?: boolean;
  onSeated: (n: NarratorView) => void;
}) {
  const { t } = useI18n();
  const [open, setOpen] = useState(kind === 'dm');
  const [quiet, setQuiet] = useState(String(DEFAULT_QUIET_S));
  const [characterId, setCharacterId] = useState('');
  const action = useAction();
  const texts = OFFER[kind];
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const input = pickCharacter ? { debounce_ms: quietMs(quiet), character_id: Number(characterId) } : { debounce_ms: quietMs(quiet) };
    const n = await action.run(() => seatNarrator(seatId, input));
    if (n) {
      if (kind !== 'dm') setOpen(false);
      onSeated(n);
    }
  };
  if (!open) {
    return (
      <button type="button" aria-expanded={false} data-testid={`narrator-open-${kind}`} onClick={() => setOpen(true)}>
        <Bot aria-hidden="true" size={16} /> {t(texts.open)}
      </button>
    );
  }
  return (
    <form className="narrator-offer" onSubmit={submit} data-testid={`narrator-offer-${kind}`}>
      <p className="hint">{t(texts.hint)}</p>
      {pickCharacter && <CompanionCharacter value={characterId} onChange={setCharacterId} />}
      <QuietTime value={quiet} onChange={setQuiet} />
      <ModelLine />
      <span className="inline-form">
        <button type="submit" className="primary" disabled={action.busy || (pickCharacter && characterId === '')} data-testid="narrator-seat">
          <Bot aria-hidden="true" size={16} /> {t(texts.submit)}
        </button>
        {kind !== 'dm' && (
          <button type="button" onClick={() => setOpen(false)}>
            {t('ai.handoff.cancel')}
          </button>
        )}
      </span>
      {action.error !== null && <ErrorNotice code={action.error} />}
    </form>
  );
}

// CompanionCharacter picks which of the owner's characters a companion plays.
function CompanionCharacter({ value, onChange }: { value: string; onChange: (id: string) => void }) {
  const { t } = useI18n();
  const id = useId();
  const [chars] = useApi(useCallback((signal: AbortSignal) => listCharacters(signal), []));
  const list = chars.state === 'ok' ? chars.data.characters : [];
  return (
    <span className="inline-form">
      <label htmlFor={id}>{t('room.seat.playAs')}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)} data-testid="narrator-companion-character">
        <option value="">{t('narrator.offer.pickCharacter')}</option>
        {list.map((c) => (
          <option key={c.id} value={String(c.id)}>
            {c.name}
          </option>
        ))}
      </select>
    </span>
  );
}

const STATE_TEXT: Record<NarratorState, MessageKey> = {
  idle: 'narrator.state.idle',
  thinking: 'narrator.state.thinking',
  writing: 'narrator.state.writing',
  paused: 'narrator.state.paused',
  stuck: 'narrator.state.stuck',
};

const stateOf = (n: NarratorView): NarratorState =>
  n.state === 'thinking' || n.state === 'writing' || n.state === 'paused' || n.state === 'stuck' ? n.state : 'idle';

// NarratorBadge: the narrator's state in a word (thinking…, waiting for the table, paused, stuck).
export function NarratorBadge({ narrator, waitingText }: { narrator: NarratorView; waitingText?: string }) {
  const { t } = useI18n();
  const state = stateOf(narrator);
  return (
    <span className={`badge narrator-state narrator-${state}`} data-testid="narrator-state" data-state={state}>
      {state === 'idle' && waitingText ? waitingText : t(STATE_TEXT[state])}
    </span>
  );
}

// NarratorStatus is one narrator at the table: who it plays, its state,
// the error of a stuck step, and what the reader may do about it.
export function NarratorStatus({
  narrator,
  name,
  canControl,
  canTakeBack,
  showCosts,
  lobby,
  waitingFor = [],
  onChanged,
}: {
  narrator: NarratorView;
  // the seat it plays, as the table names it
  name: string;
  // the players its open "What do you do?" window still waits for
  waitingFor?: string[];
  // the room owner (or a DM-key holder), or the player whose seat it plays
  canControl: boolean;
  canTakeBack: boolean;
  showCosts: boolean;
  // the session is in its lobby: the narrator starts it when told to act
  lobby: boolean;
  onChanged: (n?: NarratorView) => void;
}) {
  const { t, errorText } = useI18n();
  const action = useAction();
  const state = stateOf(narrator);
  const control = async (a: NarratorAction) => {
    const n = await action.run(() => controlNarrator(narrator.seat_id, a));
    if (n) onChanged(n);
  };
  const takeBack = async () => {
    if (await action.run((): Promise<RoomView> => takeBackNarrator(narrator.seat_id))) onChanged();
  };
  const label = format(t(narrator.role === 'dm' ? 'narrator.status.dm' : 'narrator.status.player'), { name });
  const headId = useId();
  return (
    <section
      className={`narrator-status narrator-${state}`}
      aria-labelledby={headId}
      data-testid="narrator-status"
      data-seat-id={narrator.seat_id}
      data-state={state}
    >
      <div className="narrator-line">
        <Bot aria-hidden="true" size={18} className="narrator-icon" />
        <h2 id={headId} className="narrator-name">
          {label}
        </h2>
        <span role="status" className="narrator-live">
          <NarratorBadge
            narrator={narrator}
            waitingText={
              lobby
                ? t('narrator.state.lobby')
                : waitingFor.length > 0
                  ? format(t('narrator.state.waitingFor'), { names: waitingFor.join(', ') })
                  : undefined
            }
          />
        </span>
        {(canControl || canTakeBack) && (
          <span className="narrator-buttons">
            {canControl && (
              <>
                {state === 'paused' ? (
                  <button type="button" disabled={action.busy} onClick={() => control('resume')} data-testid="narrator-resume">
                    <Play aria-hidden="true" size={14} /> {t('narrator.resume')}
                  </button>
                ) : (
                  <button
                    type="button"
                    disabled={action.busy || state === 'stuck'}
                    onClick={() => control('pause')}
                    data-testid="narrator-pause"
                  >
                    <Pause aria-hidden="true" size={14} /> {t('narrator.pause')}
                  </button>
                )}
                <button
                  type="button"
                  className={lobby || state === 'stuck' ? 'primary' : undefined}
                  disabled={action.busy || state === 'thinking' || state === 'writing'}
                  onClick={() => control('act_now')}
                  data-testid="narrator-act-now"
                >
                  <Zap aria-hidden="true" size={14} /> {t(state === 'stuck' ? 'narrator.retry' : 'narrator.actNow')}
                </button>
              </>
            )}
            {canTakeBack && (
              <button type="button" disabled={action.busy} onClick={takeBack} data-testid="narrator-take-back">
                {t(narrator.role === 'dm' ? 'narrator.takeBackDm' : 'ai.takeBack')}
              </button>
            )}
          </span>
        )}
      </div>
      {state === 'stuck' && canControl && (
        // what went wrong, for those who can fix it (the table reads "stuck")
        <p className="narrator-error" data-testid="narrator-error" data-code={narrator.last_error}>
          {narrator.last_error ? errorText(narrator.last_error) : t('narrator.stuck.unknown')} {t('narrator.stuck.retryHint')}
          {MODEL_SETTINGS_CODES.has(narrator.last_error) && (
            <>
              {' '}
              <Link to={MODEL_SETTINGS_PATH} data-testid="model-settings-link">
                {t('modelSettings.link')}
              </Link>
            </>
          )}
        </p>
      )}
      {state !== 'stuck' && narrator.last_error !== '' && canControl && (
        <p className="hint narrator-flag" data-testid="narrator-flag" data-code={narrator.last_error}>
          {errorText(narrator.last_error)}
        </p>
      )}
      {lobby && canControl && state === 'idle' && <p className="hint">{t('narrator.lobbyHint')}</p>}
      {showCosts && (
        <p className="hint narrator-costs" data-testid="narrator-tokens">
          {format(t('narrator.tokens'), {
            steps: narrator.steps,
            prompt: narrator.prompt_tokens.toLocaleString(),
            completion: narrator.completion_tokens.toLocaleString(),
            last: narrator.last_step_tokens.toLocaleString(),
          })}
        </p>
      )}
      {canControl && narrator.steps > 0 && (
        <p className="hint narrator-steps-link">
          <Link to={`/seats/${narrator.seat_id}/narrator`} data-testid="narrator-steps-link">
            <ListTree aria-hidden="true" size={14} /> {t('narrator.steps.link')}
          </Link>
        </p>
      )}
      {action.error !== null && <ErrorNotice code={action.error} />}
    </section>
  );
}

// NarratorPanel: the session page's narrators (those holding this
// campaign's seats), polled while the page is open. Pause / Resume / Act
// now for the room owner (or a DM-key holder) and the player whose seat it
// plays; Take back for whoever the server gives the seat back to; the
// tokens spent for the owner.
export function NarratorPanel({
  data,
  narrators,
  nameOf,
  onSeatsChanged,
}: {
  data: SessionResume;
  // the room's narrators (useNarrators)
  narrators: Polled<NarratorView[]>;
  // the name the table gives a seat
  nameOf: (seatId: number) => string;
  // after a take-back went through (the resume is stale)
  onSeatsChanged: () => void;
}) {
  const { t } = useI18n();
  const seatIds = new Set(data.seats.map((s) => s.id));
  const here = (narrators.data ?? []).filter((n) => seatIds.has(n.seat_id));
  if (here.length === 0) return null;
  const me = data.me;
  const status = data.session.status;
  const open = status === 'lobby' || status === 'active';
  const changed = (n?: NarratorView) => {
    if (n) narrators.set((narrators.data ?? []).map((x) => (x.seat_id === n.seat_id ? n : x)));
    else {
      narrators.reload();
      onSeatsChanged();
    }
  };
  return (
    <div className="narrator-panel" aria-label={t('narrator.list')} role="group" data-testid="narrator-panel">
      {here.map((n) => (
        <NarratorStatus
          key={n.grant_id}
          narrator={n}
          name={nameOf(n.seat_id)}
          waitingFor={(n.waiting_for ?? []).map(nameOf)}
          canControl={open && n.may_direct}
          canTakeBack={open && n.may_take_back}
          showCosts={me.authority === 'owner'}
          lobby={status === 'lobby' && n.role === 'dm'}
          onChanged={changed}
        />
      ))}
    </div>
  );
}
