import { BookOpen, Play, Plus, ScrollText, Upload } from 'lucide-react';
import { useCallback, useId, useRef, useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { InviteLink } from '../components/InviteLink';
import { ErrorNotice } from '../components/ErrorNotice';
import { useI18n } from '../i18n/I18nProvider';
import { usePageTitle } from '../usePageTitle';
import { format, type MessageKey } from '../i18n/messages';
import { controllerName, personName, seatLabel } from '../i18n/serverText';
import {
  addSeat,
  assignSeat,
  claimSeat,
  createCampaign,
  importCampaign,
  getRoom,
  listCharacters,
  openSession,
  revokeMember,
  rotateInvite,
  setMemberAuthority,
  setDmSeatAI,
  setSeatCharacter,
  takeBackNarrator,
  unassignSeat,
  updateRoom,
  updateCampaign,
  type AccessStatus,
  type Authority,
  type Campaign,
  type CampaignStatus,
  type Character,
  type Member,
  type MintedGrant,
  type NarratorView,
  type RoomView,
  type Seat,
  type SeatRole,
  type SessionStatus,
} from '../table/api';
import { AIPresenceBadge, TokenDialog } from '../table/ai';
import { NarratorBadge, NarratorOffer, useNarrators } from '../table/narrator';
import { CampaignWorld } from '../table/world';
import { useAction, type Action } from '../useAction';
import { useApi } from '../useApi';
import { usePolled } from '../usePolled';

// What the viewer may do in this room, derived from my_access and the seats.
interface Viewer {
  accessId: number;
  isOwner: boolean;
  // manager: owner or DM-key holder (campaigns, seats, sessions)
  isManager: boolean;
  active: boolean;
}

function viewerOf(room: RoomView): Viewer {
  const a = room.my_access;
  const active = a.status === 'active';
  return {
    accessId: a.id,
    isOwner: active && a.authority === 'owner',
    isManager: active && (a.authority === 'owner' || a.authority === 'dm'),
    active,
  };
}

export function RoomPage() {
  const { t } = useI18n();
  const { id = '' } = useParams();
  const load = useCallback((signal: AbortSignal) => getRoom(id, signal), [id]);
  const room = usePolled(load);
  const narrators = useNarrators(Number(id));
  usePageTitle('title.room', room.data?.name);
  // Actions that answer with the RoomView share this one error line.
  const action = useAction();

  const act = useCallback(
    async (fn: () => Promise<RoomView>) => {
      const next = await action.run(fn);
      if (next) room.set(next);
      return next;
    },
    [action, room],
  );

  if (!room.data) {
    return (
      <>
        <h1>{t('nav.tables')}</h1>
        {room.loading && <p aria-busy="true">{t('common.loading')}</p>}
        {room.error !== null && <ErrorNotice code={room.error} lead={t('room.failed')} onRetry={room.reload} />}
        <p className="crumbs">
          <Link to="/tables">{t('room.back')}</Link>
        </p>
      </>
    );
  }

  const data = room.data;
  const viewer = viewerOf(data);
  return (
    <>
      <p className="crumbs">
        <Link to="/tables">{t('room.back')}</Link>
      </p>
      <h1 data-testid="room-name">{data.name}</h1>
      <p>
        {t('room.yourAuthority')}:{' '}
        <span className="badge" data-testid="my-authority">
          {t(`authority.${data.my_access.authority as Authority}`)}
        </span>
        {data.my_access.status === 'revoked' && <span className="badge badge-off">{t('access.revoked')}</span>}
      </p>
      {room.error !== null && <ErrorNotice code={room.error} lead={t('room.failed')} />}
      {action.error !== null && <ErrorNotice code={action.error} />}

      {data.invite_code && <InvitePanel room={data} viewer={viewer} onRoom={room.set} />}
      {viewer.isOwner && <SelfClaimToggle room={data} act={act} busy={action.busy} />}
      <MembersPanel room={data} viewer={viewer} act={act} busy={action.busy} />
      <CampaignsPanel
        room={data}
        viewer={viewer}
        act={act}
        action={action}
        onRoom={room.set}
        narrators={narrators.data ?? []}
        reloadNarrators={narrators.reload}
      />
    </>
  );
}

type Act = (fn: () => Promise<RoomView>) => Promise<RoomView | undefined>;

function InvitePanel({ room, viewer, onRoom }: { room: RoomView; viewer: Viewer; onRoom: (r: RoomView) => void }) {
  const { t } = useI18n();
  const rotate = useAction();

  const doRotate = async () => {
    const res = await rotate.run(() => rotateInvite(room.id));
    if (res) onRoom({ ...room, invite_code: res.invite_code });
  };

  return (
    <section className="panel" aria-labelledby="invite-title">
      <h2 id="invite-title">{t('room.invite.title')}</h2>
      <p>{t('room.invite.hint')}</p>
      <InviteLink key={room.invite_code} code={room.invite_code ?? ''} />
      {viewer.isOwner && (
        <p>
          <button type="button" onClick={doRotate} disabled={rotate.busy}>
            {t('room.invite.rotate')}
          </button>{' '}
          <span className="hint">{t('room.invite.rotateHint')}</span>
        </p>
      )}
      {rotate.error !== null && <ErrorNotice code={rotate.error} />}
    </section>
  );
}

function SelfClaimToggle({ room, act, busy }: { room: RoomView; act: Act; busy: boolean }) {
  const { t } = useI18n();
  return (
    <section className="panel">
      <label className="check">
        <input
          type="checkbox"
          checked={room.allow_self_claim}
          disabled={busy}
          onChange={(e) => {
            const allow = e.target.checked;
            void act(() => updateRoom(room.id, { allow_self_claim: allow }));
          }}
        />
        {t('room.selfClaim')}
      </label>
    </section>
  );
}

function MembersPanel({ room, viewer, act, busy }: { room: RoomView; viewer: Viewer; act: Act; busy: boolean }) {
  const { t } = useI18n();
  return (
    <section className="panel" aria-labelledby="members-title">
      <h2 id="members-title">{t('room.members.title')}</h2>
      <table className="grid cards" data-testid="members">
        <thead>
          <tr>
            <th scope="col">{t('room.members.name')}</th>
            <th scope="col">{t('room.members.authority')}</th>
            <th scope="col">{t('room.members.status')}</th>
            {viewer.isOwner && <th scope="col">{t('room.members.actions')}</th>}
          </tr>
        </thead>
        <tbody>
          {room.members.map((m) => (
            <tr key={m.access_id} data-testid="member" data-member={m.display_name}>
              <td className="card-title">
                {personName(t, m)}
                {m.access_id === viewer.accessId && <span className="hint"> {t('common.you')}</span>}
              </td>
              <td data-label={t('room.members.authority')}>{t(`authority.${m.authority as Authority}`)}</td>
              <td data-label={t('room.members.status')}>{t(`access.${m.status as AccessStatus}`)}</td>
              {viewer.isOwner && (
                <td className="actions-cell">
                  {m.authority !== 'owner' && m.status === 'active' && (
                    <div className="actions">
                      <button
                        type="button"
                        disabled={busy}
                        onClick={() =>
                          act(() => setMemberAuthority(room.id, m.access_id, m.authority === 'dm' ? 'member' : 'dm'))
                        }
                      >
                        {m.authority === 'dm' ? t('room.members.makeMember') : t('room.members.makeDm')}
                      </button>
                      <button type="button" disabled={busy} onClick={() => act(() => revokeMember(room.id, m.access_id))}>
                        {t('room.members.revoke')}
                      </button>
                    </div>
                  )}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function CampaignsPanel({
  room,
  viewer,
  act,
  action,
  onRoom,
  narrators,
  reloadNarrators,
}: {
  room: RoomView;
  viewer: Viewer;
  act: Act;
  action: Action;
  onRoom: (r: RoomView) => void;
  narrators: NarratorView[];
  reloadNarrators: () => void;
}) {
  const { t } = useI18n();
  const [name, setName] = useState('');
  const importInput = useRef<HTMLInputElement>(null);
  // My characters, for the seats I control (loaded once per visit).
  const [chars, reloadChars] = useApi(listCharacters);
  const characters = chars.state === 'ok' ? chars.data.characters : null;
  const controlsASeat = room.campaigns.some((c) => c.seats.some((s) => isMine(s, viewer)));
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (await act(() => createCampaign(room.id, name.trim()))) setName('');
  };
  return (
    <section className="panel" aria-labelledby="campaigns-title">
      <h2 id="campaigns-title">{t('room.campaigns.title')}</h2>
      {room.campaigns.length === 0 && (
        <p className="empty-state">{viewer.isManager ? t('room.campaigns.empty') : t('room.campaigns.emptyMember')}</p>
      )}
      {controlsASeat && chars.state === 'error' && <ErrorNotice code={chars.code} onRetry={reloadChars} />}
      {room.campaigns.map((c) => (
        <CampaignCard
          key={c.id}
          room={room}
          campaign={c}
          viewer={viewer}
          act={act}
          action={action}
          characters={characters}
          onRoom={onRoom}
          narrators={narrators}
          reloadNarrators={reloadNarrators}
        />
      ))}
      {viewer.isManager && (
        <form className="inline-form" onSubmit={submit}>
          <label>
            {t('room.campaigns.name')}
            <input value={name} onChange={(e) => setName(e.target.value)} maxLength={200} />
          </label>
          <button type="submit" disabled={action.busy}>
            {t('room.campaigns.create')}
          </button>
          <button type="button" disabled={action.busy} onClick={() => importInput.current?.click()} data-testid="campaign-import">
            <Upload aria-hidden="true" size={16} />
            {t('room.campaigns.import')}
          </button>
          <input
            ref={importInput}
            type="file"
            accept=".json,application/json"
            hidden
            aria-label={t('room.campaigns.import')}
            data-testid="campaign-import-file"
            onChange={(e) => {
              const file = e.target.files?.[0];
              e.target.value = ''; // the same file may be chosen again
              if (file) void act(() => importCampaign(room.id, file));
            }}
          />
        </form>
      )}
    </section>
  );
}

const isMine = (s: Seat, v: Viewer) => s.controller_kind === 'human' && s.controller_access_id === v.accessId;

function CampaignCard({
  room,
  campaign,
  viewer,
  act,
  action,
  characters,
  onRoom,
  narrators,
  reloadNarrators,
}: {
  room: RoomView;
  campaign: Campaign;
  viewer: Viewer;
  act: Act;
  action: Action;
  characters: Character[] | null;
  onRoom: (r: RoomView) => void;
  narrators: NarratorView[];
  reloadNarrators: () => void;
}) {
  const { t } = useI18n();
  const navigate = useNavigate();
  const [label, setLabel] = useState('');
  const sessionAction = useAction();
  const isRoomActive = room.active_campaign_id === campaign.id;
  const dmSeat = campaign.seats.find((s) => s.role === 'dm');
  const canOpen = viewer.isManager || (dmSeat !== undefined && isMine(dmSeat, viewer));
  const headingId = useId();
  const inPlay = campaign.open_session?.status === 'active';
  const narratorAt = (seatId: number) => narrators.find((n) => n.seat_id === seatId);
  // after a seat changed hands: the room and its narrators are reread
  const refreshAll = () => {
    reloadNarrators();
    void getRoom(room.id).then(onRoom, () => {});
  };

  const addPlayerSeat = async (e: FormEvent) => {
    e.preventDefault();
    if (await act(() => addSeat(campaign.id, label.trim()))) setLabel('');
  };
  const open = async () => {
    const s = await sessionAction.run(() => openSession(campaign.id));
    if (s) navigate(`/sessions/${s.session.id}`);
  };

  return (
    <article className="campaign" aria-labelledby={headingId} data-testid="campaign" data-campaign={campaign.name}>
      <h3 id={headingId}>{campaign.name}</h3>
      <dl className="facts">
        <dt>{t('room.campaign.status')}</dt>
        <dd data-testid="campaign-status">{t(`campaignStatus.${campaign.status as CampaignStatus}`)}</dd>
        <dt>
          <label htmlFor={`${headingId}-recap`}>{t('room.campaign.recap')}</label>
        </dt>
        <dd>
          {viewer.isManager ? (
            <select
              id={`${headingId}-recap`}
              data-testid="recap-style"
              value={campaign.recap_style}
              disabled={action.busy}
              onChange={(e) => act(() => updateCampaign(campaign.id, { recap_style: e.target.value as 'brief' | 'detailed' }))}
            >
              <option value="brief">{t('room.campaign.recap.brief')}</option>
              <option value="detailed">{t('room.campaign.recap.detailed')}</option>
            </select>
          ) : (
            <span id={`${headingId}-recap`}>{t(campaign.recap_style === 'detailed' ? 'room.campaign.recap.detailed' : 'room.campaign.recap.brief')}</span>
          )}
        </dd>
      </dl>
      {isRoomActive ? (
        <p className="badge badge-on">{t('room.campaign.isActive')}</p>
      ) : (
        viewer.isManager && (
          <p>
            <button
              type="button"
              disabled={action.busy}
              onClick={() => act(() => updateRoom(room.id, { active_campaign_id: campaign.id }))}
            >
              {t('room.campaign.makeActive')}
            </button>
          </p>
        )
      )}

      <CampaignWorld campaignId={campaign.id} />
      <p className="journal-link campaign-links">
        <Link to={`/campaigns/${campaign.id}`} data-testid="campaign-story-link">
          <ScrollText aria-hidden="true" size={16} /> {t('timeline.link')}
        </Link>
        <Link to={`/campaigns/${campaign.id}/journal`} data-testid="campaign-journal-link">
          <BookOpen aria-hidden="true" size={16} /> {t('journal.title')}
        </Link>
      </p>

      <table className="grid seats cards">
        <thead>
          <tr>
            <th scope="col">{t('room.seats.role')}</th>
            <th scope="col">{t('room.seats.label')}</th>
            <th scope="col">{t('room.seats.controller')}</th>
            <th scope="col">{t('room.seats.character')}</th>
            <th scope="col">{t('room.seats.actions')}</th>
          </tr>
        </thead>
        <tbody>
          {campaign.seats.map((s) => (
            <SeatRow
              key={s.id}
              room={room}
              seat={s}
              viewer={viewer}
              act={act}
              busy={action.busy}
              characters={characters}
              inPlay={inPlay}
              narrator={narratorAt(s.id)}
              onNarrated={refreshAll}
            />
          ))}
        </tbody>
      </table>

      {viewer.isManager && (
        <form className="inline-form" onSubmit={addPlayerSeat}>
          <label>
            {t('room.seats.newLabel')}
            <input value={label} onChange={(e) => setLabel(e.target.value)} maxLength={200} />
          </label>
          <button type="submit" disabled={action.busy}>
            <Plus aria-hidden="true" size={18} />
            {t('room.seats.add')}
          </button>
        </form>
      )}

      {viewer.isOwner && dmSeat && (
        <DmAIBox
          room={room}
          campaign={campaign}
          dmSeat={dmSeat}
          onRoom={onRoom}
          inPlay={inPlay}
          narrator={narratorAt(dmSeat.id)}
          onNarrated={refreshAll}
        />
      )}

      <div className="session-box">
        <h4>{t('room.session.title')}</h4>
        {campaign.open_session ? (
          <p>
            <Link to={`/sessions/${campaign.open_session.id}`} data-testid="session-link">
              {campaign.open_session.status === 'lobby' ? t('room.session.goLobby') : t('room.session.goActive')}
            </Link>{' '}
            <span className="badge">{t(`sessionStatus.${campaign.open_session.status as SessionStatus}`)}</span>
          </p>
        ) : (
          <>
            <p>{t('room.session.none')}</p>
            {canOpen && (
              <button type="button" onClick={open} disabled={sessionAction.busy}>
                <Play aria-hidden="true" size={18} />
                {t('room.session.open')}
              </button>
            )}
          </>
        )}
        {sessionAction.error !== null && <ErrorNotice code={sessionAction.error} />}
      </div>
    </article>
  );
}

// DmAIBox: the owner gives the DM seat to an AI: Adventure Table's own
// narrator (with its quiet time, spending the owner's model settings) or an
// outside agent (POST dm-ai: a token shown once), rotates the agent's token
// (the same call again) or revokes it (unassign), or takes the seat back
// from the narrator. The minted token lives only in this component's state
// while the dialog is open.
function DmAIBox({
  room,
  campaign,
  dmSeat,
  onRoom,
  inPlay,
  narrator,
  onNarrated,
}: {
  room: RoomView;
  campaign: Campaign;
  dmSeat: Seat;
  onRoom: (r: RoomView) => void;
  inPlay: boolean;
  narrator: NarratorView | undefined;
  onNarrated: () => void;
}) {
  const { t } = useI18n();
  const [minted, setMinted] = useState<MintedGrant | null>(null);
  const action = useAction();
  const isAI = dmSeat.controller_kind === 'ai';

  const refresh = () => getRoom(room.id).then(onRoom, () => {});
  const mint = async () => {
    const m = await action.run(() => setDmSeatAI(campaign.id));
    if (m) {
      setMinted(m);
      void refresh();
    }
  };
  const revoke = async () => {
    const r = await action.run(() => unassignSeat(dmSeat.id));
    if (r) {
      setMinted(null);
      onRoom(r);
    }
  };
  const close = () => {
    setMinted(null);
    action.clear();
  };
  const takeBack = async () => {
    const r = await action.run(() => takeBackNarrator(dmSeat.id));
    if (r) {
      onRoom(r);
      onNarrated();
    }
  };

  if (narrator && isAI) {
    return (
      <div className="ai-dm" data-testid="dm-ai" data-controller="narrator">
        <h4>{t('ai.dm.title')}</h4>
        <p>
          {t('narrator.isDm')} <NarratorBadge narrator={narrator} />
        </p>
        <p className="inline-form">
          <button type="button" onClick={takeBack} disabled={action.busy} data-testid="narrator-take-back">
            {t('narrator.takeBackDm')}
          </button>
        </p>
        {action.error !== null && <ErrorNotice code={action.error} />}
      </div>
    );
  }

  return (
    <div className="ai-dm" data-testid="dm-ai" data-controller={isAI ? 'agent' : 'none'}>
      <h4>{t('ai.dm.title')}</h4>
      <div className="ai-choices">
        {!inPlay && !isAI && (
          <section className="ai-choice" aria-labelledby={`dm-narrator-${campaign.id}`} data-testid="dm-narrator-choice">
            <h5 id={`dm-narrator-${campaign.id}`}>{t('narrator.choice.title')}</h5>
            <NarratorOffer seatId={dmSeat.id} kind="dm" onSeated={onNarrated} />
          </section>
        )}
        <section className="ai-choice" aria-labelledby={`dm-agent-${campaign.id}`}>
          <h5 id={`dm-agent-${campaign.id}`}>{t('narrator.choice.agentTitle')}</h5>
          {isAI ? (
            <p>
              {t('ai.dm.isAi')} <AIPresenceBadge lastSeen={dmSeat.ai_last_seen_at} />
            </p>
          ) : (
            <p className="hint">{t('ai.dm.hint')}</p>
          )}
          <p className="inline-form">
            <button type="button" onClick={mint} disabled={action.busy}>
              {isAI ? t('ai.dm.rotate') : t('ai.dm.set')}
            </button>
            {isAI && (
              <button type="button" onClick={revoke} disabled={action.busy}>
                {t('ai.dm.revoke')}
              </button>
            )}
          </p>
        </section>
      </div>
      {minted === null && action.error !== null && <ErrorNotice code={action.error} />}
      {minted !== null && (
        <TokenDialog
          minted={minted}
          onClose={close}
          onRotate={mint}
          onRevoke={revoke}
          busy={action.busy}
          error={action.error}
        />
      )}
    </div>
  );
}

function controllerText(seat: Seat, t: (k: MessageKey) => string) {
  if (seat.controller_kind === 'none') return t('room.seat.unassigned');
  const name = controllerName(t, seat);
  if (seat.controller_kind === 'ai') return name ? `${t('room.seat.ai')}: ${name}` : t('room.seat.ai');
  return name ?? '';
}

function SeatRow({
  room,
  seat,
  viewer,
  act,
  busy,
  characters,
  inPlay,
  narrator,
  onNarrated,
}: {
  room: RoomView;
  seat: Seat;
  viewer: Viewer;
  act: Act;
  busy: boolean;
  characters: Character[] | null;
  // the campaign's session is in play
  inPlay: boolean;
  // the narrator holding this seat, if one does
  narrator: NarratorView | undefined;
  onNarrated: () => void;
}) {
  const { t } = useI18n();
  const mine = isMine(seat, viewer);
  const activeMembers: Member[] = room.members.filter((m) => m.status === 'active');
  const [assignTo, setAssignTo] = useState('');
  const assignId = useId();
  const playId = useId();
  const canClaim =
    viewer.active && room.allow_self_claim && seat.role === 'player' && seat.controller_kind === 'none';

  return (
    <tr data-testid="seat" data-seat={seat.label} data-seat-id={seat.id}>
      <td data-label={t('room.seats.role')}>{t(`seatRole.${seat.role as SeatRole}`)}</td>
      <td className="card-title">{seatLabel(t, seat)}</td>
      <td data-testid="seat-controller" data-label={t('room.seats.controller')}>
        {narrator && seat.controller_kind === 'ai' ? (
          <>
            {t('narrator.isSeat')} <NarratorBadge narrator={narrator} />
          </>
        ) : (
          controllerText(seat, t)
        )}
        {seat.controller_kind === 'ai' && !narrator && (
          <>
            {' '}
            <AIPresenceBadge lastSeen={seat.ai_last_seen_at} />
          </>
        )}
        {mine && <span className="hint"> {t('common.you')}</span>}
      </td>
      <td data-testid="seat-character" data-label={t('room.seats.character')}>
        {seat.character
          ? `${seat.character.name} (${format(t('common.levelN'), { n: seat.character.level })})`
          : t('room.seat.noCharacter')}
      </td>
      <td className="actions-cell">
        <div className="actions">
          {viewer.isManager && (
            <span className="inline-form">
              <label htmlFor={assignId}>{t('room.seat.assignTo')}</label>
              <select id={assignId} value={assignTo} onChange={(e) => setAssignTo(e.target.value)}>
                <option value="">{t('room.seat.chooseMember')}</option>
                {activeMembers.map((m) => (
                  <option key={m.access_id} value={String(m.access_id)}>
                    {personName(t, m)}
                  </option>
                ))}
              </select>
              <button
                type="button"
                disabled={busy || assignTo === ''}
                onClick={async () => {
                  if (await act(() => assignSeat(seat.id, Number(assignTo)))) setAssignTo('');
                }}
              >
                {t('room.seat.assign')}
              </button>
            </span>
          )}
          {seat.controller_kind !== 'none' && (viewer.isManager || mine) && (
            <button type="button" disabled={busy} onClick={() => act(() => unassignSeat(seat.id))}>
              {mine && !viewer.isManager ? t('room.seat.leave') : t('room.seat.unassign')}
            </button>
          )}
          {inPlay && seat.role === 'player' && mine && (
            <NarratorOffer seatId={seat.id} kind="own" onSeated={onNarrated} />
          )}
          {inPlay && viewer.isOwner && seat.role === 'player' && seat.controller_kind === 'none' && (
            <NarratorOffer seatId={seat.id} kind="companion" pickCharacter={!seat.character} onSeated={onNarrated} />
          )}
          {canClaim && (
            <button type="button" disabled={busy} onClick={() => act(() => claimSeat(seat.id))}>
              {t('room.seat.claim')}
            </button>
          )}
          {mine && (
            <span className="inline-form">
              <label htmlFor={playId}>{t('room.seat.playAs')}</label>
              <select
                id={playId}
                value={seat.character ? String(seat.character.id) : ''}
                disabled={busy || characters === null}
                onChange={(e) => {
                  const v = e.target.value;
                  void act(() => setSeatCharacter(seat.id, v === '' ? null : Number(v)));
                }}
              >
                <option value="">{t('room.seat.chooseNone')}</option>
                {seat.character && !characters?.some((c) => c.id === seat.character?.id) && (
                  <option value={String(seat.character.id)}>{seat.character.name}</option>
                )}
                {(characters ?? []).map((c) => (
                  <option key={c.id} value={String(c.id)}>
                    {c.name} ({format(t('common.levelN'), { n: c.level })})
                  </option>
                ))}
              </select>
              {characters !== null && characters.length === 0 && (
                <span className="hint">
                  {t('room.seat.noCharacters')} <Link to="/characters/new">{t('room.seat.createCharacter')}</Link>
                </span>
              )}
            </span>
          )}
        </div>
      </td>
    </tr>
  );
}
