import { useCallback, useId, useState } from 'react';
import { Link, useParams } from 'react-router';
import { ErrorNotice } from '../components/ErrorNotice';
import { useI18n } from '../i18n/I18nProvider';
import { format } from '../i18n/messages';
import {
  CONDITIONS,
  abandonSession,
  endSession,
  getSession,
  lateJoin,
  startSession,
  type Condition,
  type Participant,
  type Seat,
  type SessionResume,
} from '../table/api';
import { useAction } from '../useAction';
import { usePolled } from '../usePolled';

export function SessionPage() {
  const { t } = useI18n();
  const { id = '' } = useParams();
  const load = useCallback((signal: AbortSignal) => getSession(id, signal), [id]);
  const session = usePolled(load);

  if (!session.data) {
    return (
      <>
        <h1>{t('room.session.title')}</h1>
        {session.loading && <p aria-busy="true">{t('common.loading')}</p>}
        {session.error !== null && (
          <ErrorNotice code={session.error} lead={t('session.failed')} onRetry={session.reload} />
        )}
      </>
    );
  }
  return <SessionView data={session.data} pollError={session.error} onSession={session.set} />;
}

function SessionView({
  data,
  pollError,
  onSession,
}: {
  data: SessionResume;
  pollError: string | null;
  onSession: (s: SessionResume) => void;
}) {
  const { t } = useI18n();
  const action = useAction();
  const [lateSeat, setLateSeat] = useState('');
  const lateId = useId();
  const s = data.session;
  const participating = new Set(data.participants.map((p) => p.seat_id));
  // Only player seats take part; the DM seat runs the session.
  const freeSeats = data.seats.filter((seat) => seat.role === 'player' && !participating.has(seat.id));

  const doIt = async (fn: () => Promise<SessionResume>) => {
    const next = await action.run(fn);
    if (next) onSession(next);
    return next;
  };

  return (
    <>
      <p className="crumbs">
        <Link to={`/rooms/${data.room.id}`}>{t('session.backToRoom')}</Link>
      </p>
      <h1>{format(t('session.title'), { campaign: data.campaign.name })}</h1>
      <div className={`session-status status-${s.status}`}>
        <span>{t('session.status')}:</span>{' '}
        <strong data-testid="session-status" data-status={s.status}>
          {t(`sessionStatus.${s.status}`)}
        </strong>
      </div>
      <dl className="facts">
        <dt>{t('session.room')}</dt>
        <dd>{data.room.name}</dd>
        <dt>{t('session.myRole')}</dt>
        <dd data-testid="my-role">{t(`role.${data.me.role}`)}</dd>
      </dl>
      {pollError !== null && <ErrorNotice code={pollError} lead={t('session.failed')} />}

      <section className="panel" aria-labelledby="session-controls">
        <h2 id="session-controls">{t('session.controls')}</h2>
        <div className="inline-form">
          <button type="button" disabled={!data.can.start || action.busy} onClick={() => doIt(() => startSession(s.id))}>
            {t('session.start')}
          </button>
          <button type="button" disabled={!data.can.end || action.busy} onClick={() => doIt(() => endSession(s.id))}>
            {t('session.end')}
          </button>
          <button
            type="button"
            disabled={!data.can.abandon || action.busy}
            onClick={() => doIt(() => abandonSession(s.id))}
          >
            {t('session.abandon')}
          </button>
        </div>
        <div className="inline-form">
          <label htmlFor={lateId}>{t('session.lateJoin.seat')}</label>
          <select
            id={lateId}
            value={lateSeat}
            disabled={!data.can.late_join}
            onChange={(e) => setLateSeat(e.target.value)}
          >
            <option value="">{t('session.lateJoin.choose')}</option>
            {freeSeats.map((seat) => (
              <option key={seat.id} value={String(seat.id)}>
                {seat.label}
              </option>
            ))}
          </select>
          <button
            type="button"
            disabled={!data.can.late_join || action.busy || lateSeat === '' || !freeSeats.some((x) => String(x.id) === lateSeat)}
            onClick={async () => {
              if (await doIt(() => lateJoin(s.id, Number(lateSeat)))) setLateSeat('');
            }}
          >
            {t('session.lateJoin')}
          </button>
        </div>
        {action.error !== null && <ErrorNotice code={action.error} />}
      </section>

      <section className="panel" aria-labelledby="session-participants">
        <h2 id="session-participants">{t('session.participants')}</h2>
        {data.participants.length === 0 ? (
          <p className="hint">{t('session.participants.empty')}</p>
        ) : (
          <ul className="item-list" data-testid="participants">
            {data.participants.map((p) => (
              <ParticipantItem key={p.id} p={p} seat={data.seats.find((x) => x.id === p.seat_id)} />
            ))}
          </ul>
        )}
      </section>

      <section className="panel" aria-labelledby="session-seats">
        <h2 id="session-seats">{t('session.seats')}</h2>
        <table className="grid">
          <thead>
            <tr>
              <th scope="col">{t('room.seats.role')}</th>
              <th scope="col">{t('room.seats.label')}</th>
              <th scope="col">{t('room.seats.controller')}</th>
              <th scope="col">{t('room.seats.character')}</th>
              <th scope="col">{t('session.status')}</th>
            </tr>
          </thead>
          <tbody>
            {data.seats.map((seat) => (
              <tr key={seat.id} data-testid="session-seat" data-seat={seat.label}>
                <td>{t(`seatRole.${seat.role}`)}</td>
                <td>
                  {seat.label}
                  {seat.id === data.me.seat_id && <span className="hint"> {t('common.you')}</span>}
                </td>
                <td>{seatController(seat, t)}</td>
                <td>
                  {seat.character
                    ? `${seat.character.name} (${format(t('common.levelN'), { n: seat.character.level })})`
                    : t('room.seat.noCharacter')}
                </td>
                <td>
                  {seat.role === 'dm'
                    ? t('session.runsTable')
                    : participating.has(seat.id)
                      ? t('session.atTable')
                      : t('session.notAtTable')}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </>
  );
}

function seatController(seat: Seat, t: (k: 'room.seat.unassigned' | 'room.seat.ai') => string) {
  if (seat.controller_kind === 'none') return t('room.seat.unassigned');
  if (seat.controller_kind === 'ai') return t('room.seat.ai');
  return seat.controller_display_name ?? '';
}

function ParticipantItem({ p, seat }: { p: Participant; seat: Seat | undefined }) {
  const { t } = useI18n();
  const who = p.controller_kind === 'ai' ? t('room.seat.ai') : (p.controller_display_name ?? t('room.seat.unassigned'));
  const c = p.character;
  return (
    <li data-testid="participant">
      <strong>{seat ? `${t(`seatRole.${seat.role}`)} · ${seat.label}` : ''}</strong> — {who}
      {p.late && <span className="badge">{t('session.late')}</span>}
      <div className="hint">
        {c ? (
          <>
            {c.name} ({format(t('common.levelN'), { n: c.level })}) · {t('session.hp')} {c.hp.current}/{c.hp.max}
            {c.hp.temp > 0 ? ` (+${c.hp.temp})` : ''} · {t('session.conditions')}:{' '}
            {c.conditions.length === 0
              ? t('session.noConditions')
              : c.conditions.map((x) => conditionName(x, t)).join(', ')}
          </>
        ) : (
          t('session.noCharacter')
        )}
      </div>
    </li>
  );
}

function conditionName(c: string, t: ReturnType<typeof useI18n>['t']) {
  return (CONDITIONS as readonly string[]).includes(c) ? t(`condition.${c as Condition}`) : c;
}
