import { useId, useLayoutEffect, useState, type FormEvent, type ReactNode } from 'react';
import { Link } from 'react-router';
import { ErrorNotice } from '../components/ErrorNotice';
import { useI18n } from '../i18n/I18nProvider';
import { format } from '../i18n/messages';
import { controllerName as controllerShown, seatLabel } from '../i18n/serverText';
import { useAction } from '../useAction';
import {
  AIPresenceBadge,
  forgetHandoff,
  handedOff,
  latestTime,
  rememberHandoff,
  TokenDialog,
} from './ai';
import { handoffSeat, takeBackSeat, type MintedGrant, type Participant, type Seat, type SessionResume } from './api';
import { SheetRolls, SheetTotals } from './CardSheet';
import { NarratorOffer } from './narrator';
import { CardControls, ConditionChips, HpBar } from './CharacterState';

type T = ReturnType<typeof useI18n>['t'];

function controllerName(kind: Seat['controller_kind'], name: string | null, t: T, narrator = false) {
  if (kind === 'ai') return narrator ? t('narrator.isSeat') : t('room.seat.ai');
  if (kind === 'none') return t('room.seat.unassigned');
  return name ?? t('room.seat.unassigned');
}

// Controller shows who plays a seat now ("Played by: Ann", "Played by: AI · online").
function Controller({
  kind,
  name,
  lastSeen,
  you,
  narrator = false,
}: {
  kind: Seat['controller_kind'];
  name: string | null;
  lastSeen: string | null | undefined;
  you: ReactNode;
  // Adventure Table's narrator plays the seat (it is always there: no presence)
  narrator?: boolean;
}) {
  const { t } = useI18n();
  return (
    <p data-testid="controller" data-kind={kind}>
      {t('table.card.controller')}: {controllerName(kind, name, t, narrator)}
      {kind === 'ai' && !narrator && (
        <>
          {' '}
          <AIPresenceBadge lastSeen={lastSeen} />
        </>
      )}
      {you}
    </p>
  );
}

// HandoffForm: "Let AI control my seat" with an optional temporary instruction.
function HandoffForm({ seatId, onMinted }: { seatId: number; onMinted: (m: MintedGrant) => void }) {
  const { t } = useI18n();
  const [open, setOpen] = useState(false);
  const [instruction, setInstruction] = useState('');
  const action = useAction();
  const id = useId();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const m = await action.run(() => handoffSeat(seatId, instruction));
    if (m) {
      setInstruction('');
      setOpen(false);
      onMinted(m);
    }
  };
  if (!open) {
    return (
      <p>
        <button type="button" aria-expanded={false} onClick={() => setOpen(true)}>
          {t('ai.handoff.open')}
        </button>
      </p>
    );
  }
  return (
    <form className="handoff-form" onSubmit={submit} data-testid="handoff-form">
      <label htmlFor={id}>{t('ai.handoff.instruction')}</label>
      <textarea id={id} rows={3} maxLength={2000} value={instruction} onChange={(e) => setInstruction(e.target.value)} />
      <span className="inline-form">
        <button type="submit" disabled={action.busy}>
          {t('ai.handoff.submit')}
        </button>
        <button type="button" onClick={() => setOpen(false)}>
          {t('ai.handoff.cancel')}
        </button>
      </span>
      {action.error !== null && <ErrorNotice code={action.error} />}
    </form>
  );
}

function TakeBack({ seatId, onDone }: { seatId: number; onDone: () => void }) {
  const { t } = useI18n();
  const action = useAction();
  const take = async () => {
    if (await action.run(() => takeBackSeat(seatId))) {
      forgetHandoff(seatId);
      onDone();
    }
  };
  return (
    <>
      <p>
        <button type="button" onClick={take} disabled={action.busy}>
          {t('ai.takeBack')}
        </button>
      </p>
      {action.error !== null && <ErrorNotice code={action.error} />}
    </>
  );
}

// The name a participant seat goes by at the table: its character, else the seat label.
// With t, a label the server made (the DM seat's) is in the reader's language.
export function seatDisplayName(p: Participant | undefined, seat: Seat | undefined, t?: T): string {
  return p?.character?.name ?? seat?.character?.name ?? (seat ? (t ? seatLabel(t, seat) : seat.label) : '');
}

// PlayerCards: the DM seat, then one card per participant seat (character,
// level, HP bar and temporary HP, the sheet's AC, initiative, passive
// Perception and speed, conditions, who plays it), then player seats not at
// the table. The current DM gets "Act as …" (DM proxy), damage / heal /
// condition controls and the saves and skills to roll for the seat on
// participant cards; a player gets heal, temporary HP, resources, attacks
// and their saves and skills to roll on their own card.
export function PlayerCards({
  data,
  canProxy,
  proxySeatId,
  onActAs,
  onCharacterChanged,
  onControllerChanged,
  aiSeen,
  onlineSeats,
  resourcesVersion = 0,
  narratorSeats,
}: {
  data: SessionResume;
  canProxy: boolean;
  proxySeatId: number | null;
  onActAs: (seatId: number) => void;
  // after a state change (damage, heal, conditions, resources) went through
  onCharacterChanged?: () => void;
  // after a handoff or take-back went through (the resume is stale)
  onControllerChanged?: () => void;
  // the newest time each seat acted at the table (AI presence between resume reads)
  aiSeen?: Map<number, string>;
  // the seats whose controller is online now (the presence route); absent until known
  onlineSeats?: Set<number>;
  // bumped when a character changed at the table (the own card rereads its resources)
  resourcesVersion?: number;
  // the seats Adventure Table's narrator plays (its status panel directs them)
  narratorSeats?: Set<number>;
}) {
  const { t } = useI18n();
  const dmSeat = data.seats.find((s) => s.id === data.session.dm_seat_id) ?? data.seats.find((s) => s.role === 'dm');
  const bySeat = new Map(data.participants.map((p) => [p.seat_id, p]));
  const seatById = new Map(data.seats.map((s) => [s.id, s]));
  const participantSeats = data.participants.map((p) => ({ p, seat: seatById.get(p.seat_id) }));
  const others = data.seats.filter((s) => s.role === 'player' && !bySeat.has(s.id));
  const online = (seatId: number) =>
    onlineSeats?.has(seatId) ? (
      <span className="online-badge" data-testid="online">
        <span className="online-dot" aria-hidden="true" /> {t('table.presence.online')}
      </span>
    ) : null;
  const you = (seatId: number) => (seatId === data.me.seat_id ? <span className="hint"> {t('common.you')}</span> : null);
  const active = data.session.status === 'active';
  const isDM = data.me.role === 'dm';
  // The just-minted handoff token: held only while its dialog is open.
  const [minted, setMinted] = useState<MintedGrant | null>(null);
  const [, setHandoffs] = useState(0);
  const lastSeen = (seat: Seat | undefined) =>
    seat?.controller_kind === 'ai' ? latestTime(seat.ai_last_seen_at, aiSeen?.get(seat.id)) : null;
  // Forget handoffs of seats no longer held by an AI (taken back elsewhere,
  // or unassigned). In the commit of the seats it reads: Preact runs a plain
  // effect a frame later, and a handoff made in that frame would be
  // forgotten against the seats from before it.
  useLayoutEffect(() => {
    for (const s of data.seats) if (s.controller_kind !== 'ai' && handedOff(s.id)) forgetHandoff(s.id);
  }, [data.seats]);
  const controllerChanged = () => {
    setHandoffs((n) => n + 1);
    onControllerChanged?.();
  };

  // one participant's card
  const participantCard = ({ p, seat }: (typeof participantSeats)[number]) => {
    const c = p.character;
    const name = seatDisplayName(p, seat, t);
    return (
      <article
        key={p.id}
        className={`player-card${proxySeatId === p.seat_id ? ' is-proxied' : ''}`}
        data-testid="participant"
        data-seat={seat?.label ?? ''}
      >
        <h3>
          {name}
          {p.late && <span className="badge">{t('session.late')}</span>}
          {online(p.seat_id)}
        </h3>
        <p className="hint">
          {seat && seatLabel(t, seat)}
          {c && ` · ${format(t('common.levelN'), { n: c.level })}`}
        </p>
        {c && p.seat_id === data.me.seat_id && data.me.role === 'player' && (
          // The reader's own character: its sheet, to read and roll from.
          <Link to={`/characters/${c.id}/sheet`} className="button-link card-sheet-link" data-testid="card-sheet">
            {t('sheet.open')}
          </Link>
        )}
        {c ? (
          <>
            <HpBar hp={c.hp} />
            {c.derived && <SheetTotals derived={c.derived} />}
            <ConditionChips
              sessionId={data.session.id}
              seatId={p.seat_id}
              conditions={c.conditions}
              canRemove={isDM && active}
              onChanged={onCharacterChanged}
            />
            {active && (isDM || p.seat_id === data.me.seat_id) && (
              <CardControls
                sessionId={data.session.id}
                seatId={p.seat_id}
                characterId={c.id}
                attacks={c.derived?.attacks ?? []}
                name={name}
                asDm={isDM}
                conditions={c.conditions}
                resourcesVersion={resourcesVersion}
                onChanged={onCharacterChanged}
              />
            )}
            {c.derived && active && (isDM || p.seat_id === data.me.seat_id) && (
              <SheetRolls sessionId={data.session.id} seatId={p.seat_id} derived={c.derived} asDm={isDM} />
            )}
          </>
        ) : (
          <p className="hint">{t('session.noCharacter')}</p>
        )}
        {seat ? (
          <Controller
            kind={seat.controller_kind}
            name={controllerShown(t, seat)}
            lastSeen={lastSeen(seat)}
            you={you(p.seat_id)}
            narrator={narratorSeats?.has(p.seat_id)}
          />
        ) : (
          <Controller kind={p.controller_kind} name={controllerShown(t, p)} lastSeen={null} you={you(p.seat_id)} />
        )}
        {active && data.me.role === 'player' && p.seat_id === data.me.seat_id && seat?.controller_kind === 'human' && (
          <>
            <NarratorOffer seatId={p.seat_id} kind="own" onSeated={controllerChanged} />
            <HandoffForm
              seatId={p.seat_id}
              onMinted={(m) => {
                rememberHandoff(p.seat_id);
                setMinted(m);
                controllerChanged();
              }}
            />
          </>
        )}
        {!isDM &&
          seat?.controller_kind === 'ai' &&
          !narratorSeats?.has(p.seat_id) &&
          (handedOff(p.seat_id) || (data.me.take_back_seat_ids ?? []).includes(p.seat_id)) && (
          <TakeBack seatId={p.seat_id} onDone={controllerChanged} />
        )}
        {canProxy && (
          <button type="button" aria-pressed={proxySeatId === p.seat_id} onClick={() => onActAs(p.seat_id)}>
            {format(t('table.actAs'), { name })}
          </button>
        )}
      </article>
    );
  };
  // Your own card comes first (then the DM's, then the others): it is the
  // one you act from.
  const ownFirst = [...participantSeats].sort((a, b) => Number(b.p.seat_id === data.me.seat_id) - Number(a.p.seat_id === data.me.seat_id));
  const ownCards = ownFirst.filter((x) => x.p.seat_id === data.me.seat_id);
  const restCards = ownFirst.filter((x) => x.p.seat_id !== data.me.seat_id);

  return (
    <section className="player-cards" aria-label={t('table.cards')} data-testid="player-cards">
      {ownCards.map(participantCard)}
      {dmSeat && (
        <article className="player-card dm-card" data-testid="dm-card" data-seat={dmSeat.label}>
          <h3>
            {t('seatRole.dm')}
            {online(dmSeat.id)}
          </h3>
          <p className="hint">{seatLabel(t, dmSeat)}</p>
          <Controller
            kind={dmSeat.controller_kind}
            name={controllerShown(t, dmSeat)}
            lastSeen={lastSeen(dmSeat)}
            you={you(dmSeat.id)}
            narrator={narratorSeats?.has(dmSeat.id)}
          />
        </article>
      )}
      {restCards.map(participantCard)}
      {others.map((seat) => (
        <article key={seat.id} className="player-card is-away" data-testid="seat-card" data-seat={seat.label}>
          <h3>
            {seat.character?.name ?? seatLabel(t, seat)}
            {online(seat.id)}
          </h3>
          <p className="hint">
            {seatLabel(t, seat)} · {t('table.card.notAtTable')}
          </p>
          {seat.id === data.me.seat_id && (
            // The reader's own seat is not in the game yet: say what gets it in.
            <p className="seat-next" data-testid="seat-next">
              {seat.character ? t('table.card.waitForDm') : t('table.card.pickCharacter')}{' '}
              {!seat.character && <Link to={`/rooms/${data.room.id}`}>{t('table.card.toRoom')}</Link>}
            </p>
          )}
          <Controller
            kind={seat.controller_kind}
            name={controllerShown(t, seat)}
            lastSeen={lastSeen(seat)}
            you={you(seat.id)}
            narrator={narratorSeats?.has(seat.id)}
          />
        </article>
      ))}
      {minted !== null && <TokenDialog minted={minted} onClose={() => setMinted(null)} />}
    </section>
  );
}
