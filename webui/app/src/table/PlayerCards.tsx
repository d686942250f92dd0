import { useI18n } from '../i18n/I18nProvider';
import { format } from '../i18n/messages';
import type { Participant, Seat, SessionResume } from './api';
import { CardControls, ConditionChips, HpBar } from './CharacterState';

type T = ReturnType<typeof useI18n>['t'];

function controllerName(kind: Seat['controller_kind'], name: string | null, t: T) {
  if (kind === 'ai') return t('room.seat.ai');
  if (kind === 'none') return t('room.seat.unassigned');
  return name ?? t('room.seat.unassigned');
}

// The name a participant seat goes by at the table: its character, else the seat label.
export function seatDisplayName(p: Participant | undefined, seat: Seat | undefined): string {
  return p?.character?.name ?? seat?.character?.name ?? seat?.label ?? '';
}

// PlayerCards: the DM seat, then one card per participant seat (character,
// level, HP bar and temporary HP, conditions, who plays it), then player
// seats not at the table. The current DM gets "Act as …" (DM proxy) and
// damage / heal / condition controls on participant cards; a player gets
// heal, temporary HP and resources on their own card.
export function PlayerCards({
  data,
  canProxy,
  proxySeatId,
  onActAs,
  onCharacterChanged,
  resourcesVersion = 0,
}: {
  data: SessionResume;
  canProxy: boolean;
  proxySeatId: number | null;
  onActAs: (seatId: number) => void;
  // after a state change (damage, heal, conditions, resources) went through
  onCharacterChanged?: () => void;
  // bumped when a character changed at the table (the own card rereads its resources)
  resourcesVersion?: number;
}) {
  const { t } = useI18n();
  const dmSeat = data.seats.find((s) => s.id === data.session.dm_seat_id) ?? data.seats.find((s) => s.role === 'dm');
  const bySeat = new Map(data.participants.map((p) => [p.seat_id, p]));
  const participantSeats = data.participants.map((p) => ({ p, seat: data.seats.find((s) => s.id === p.seat_id) }));
  const others = data.seats.filter((s) => s.role === 'player' && !bySeat.has(s.id));
  const you = (seatId: number) => (seatId === data.me.seat_id ? <span className="hint"> {t('common.you')}</span> : null);
  const active = data.session.status === 'active';
  const isDM = data.me.role === 'dm';

  return (
    <section className="player-cards" aria-label={t('table.cards')} data-testid="player-cards">
      {dmSeat && (
        <article className="player-card dm-card" data-testid="dm-card" data-seat={dmSeat.label}>
          <h3>{t('seatRole.dm')}</h3>
          <p className="hint">{dmSeat.label}</p>
          <p>
            {t('table.card.controller')}: {controllerName(dmSeat.controller_kind, dmSeat.controller_display_name, t)}
            {you(dmSeat.id)}
          </p>
        </article>
      )}
      {participantSeats.map(({ p, seat }) => {
        const c = p.character;
        const name = seatDisplayName(p, seat);
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
            </h3>
            <p className="hint">
              {seat?.label}
              {c && ` · ${format(t('common.levelN'), { n: c.level })}`}
            </p>
            {c ? (
              <>
                <HpBar hp={c.hp} />
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
                    name={name}
                    asDm={isDM}
                    conditions={c.conditions}
                    resourcesVersion={resourcesVersion}
                    onChanged={onCharacterChanged}
                  />
                )}
              </>
            ) : (
              <p className="hint">{t('session.noCharacter')}</p>
            )}
            <p>
              {t('table.card.controller')}: {controllerName(p.controller_kind, p.controller_display_name, t)}
              {you(p.seat_id)}
            </p>
            {canProxy && (
              <button type="button" aria-pressed={proxySeatId === p.seat_id} onClick={() => onActAs(p.seat_id)}>
                {format(t('table.actAs'), { name })}
              </button>
            )}
          </article>
        );
      })}
      {others.map((seat) => (
        <article key={seat.id} className="player-card is-away" data-testid="seat-card" data-seat={seat.label}>
          <h3>{seat.character?.name ?? seat.label}</h3>
          <p className="hint">
            {seat.label} · {t('table.card.notAtTable')}
          </p>
          <p>
            {t('table.card.controller')}: {controllerName(seat.controller_kind, seat.controller_display_name, t)}
            {you(seat.id)}
          </p>
        </article>
      ))}
    </section>
  );
}
