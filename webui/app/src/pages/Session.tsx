import { Ban, Flag, Play } from 'lucide-react';
import { Suspense, useCallback, useEffect, useId, useLayoutEffect, useMemo, useRef, useState, type ReactNode, type UIEvent } from 'react';
import { Link, useParams } from 'react-router';
import { ApiError } from '../api';
import { ConfirmButton } from '../components/ConfirmButton';
import { ErrorNotice } from '../components/ErrorNotice';
import { panelId, tabId, TabList } from '../components/Tabs';
import { useI18n } from '../i18n/I18nProvider';
import { format, type MessageKey } from '../i18n/messages';
import { seatLabel } from '../i18n/serverText';
import {
  abandonSession,
  endSession,
  getPresence,
  getSession,
  lateJoin,
  type Presence,
  startSession,
  type EventView,
  type PendingActionView,
  type RollResultView,
  type SessionResume,
  type SessionStatus,
  type StageUpdatedPayload,
  type StageView,
  type TableRole,
} from '../table/api';
import { EncounterPanel, EncounterPrompt, useEncounter, type EncounterSeat } from '../table/Encounter';
import { isEncounterEvent } from '../table/encounter';
import { DicePanel, PromptBar, type BoardCtx } from '../table/Board';
import type { CheckDraft } from '../table/Checks';
import { requestsInFeed, TableFeed } from '../table/Feed';
import { InputBar, type InputMode } from '../table/InputBar';
import { narrationDrafts, NarratorPanel, useNarrators } from '../table/narrator';
import { tableNames } from '../table/names';
import { PlayerCards, seatDisplayName } from '../table/PlayerCards';
import { StagePanel } from '../table/Stage';
import { useEventFeed } from '../table/useEventFeed';
import { changesBoard, mergeResults, useRollBoard } from '../table/useRollBoard';
import { useSideWidth } from '../table/useSideWidth';
import { lazyPart } from '../lazy';
import { useAction } from '../useAction';
import { usePageTitle } from '../usePageTitle';
import { useApi } from '../useApi';
import { usePolled } from '../usePolled';

// What the page shows only now and then loads when it is first shown: the
// journal and the actions (behind their tabs), the DM's recap draft and
// the DM's check dialog.
const JournalPanel = lazyPart(() => import('../table/Journal'), 'JournalPanel');
const RecapPanel = lazyPart(() => import('../table/Recap'), 'RecapPanel');
const ActionsPanel = lazyPart(() => import('../table/Actions'), 'ActionsPanel');
const CheckDialog = lazyPart(() => import('../table/CheckDialog'), 'CheckDialog');

// The presence route is read this often while the page is visible.
export const PRESENCE_POLL_MS = 20_000;

export function SessionPage() {
  const { t } = useI18n();
  usePageTitle('title.session');
  const { id = '' } = useParams();
  const load = useCallback((signal: AbortSignal) => getSession(id, signal), [id]);
  const [first, reload] = useApi(load);

  if (first.state !== 'ok') {
    return (
      <>
        <h1>{t('room.session.title')}</h1>
        {first.state === 'loading' && <p aria-busy="true">{t('common.loading')}</p>}
        {first.state === 'error' && <ErrorNotice code={first.code} lead={t('session.failed')} onRetry={reload} />}
      </>
    );
  }
  return <LiveTable key={first.data.session.id} initial={first.data} />;
}

// A session event that changes the resume (status, participants, can.*, HP and conditions).
const changesResume = (e: EventView) =>
  e.kind.startsWith('session.') ||
  e.kind === 'participant.joined' ||
  e.kind === 'character.changed' ||
  e.kind === 'controller.changed';

// A fight's event that may change hit points on the player cards: a hit,
// the DM's damage, healing or temporary HP, a death save.
const HP_CHANGES = ['damage', 'heal', 'set_temp_hp', 'death_save'];
const changesHp = (e: EventView) => {
  const p = e.payload as { attack?: { hit?: boolean }; change?: string };
  if (e.kind === 'encounter.attack') return p.attack?.hit === true;
  return e.kind === 'encounter.changed' && HP_CHANGES.includes(p.change ?? '');
};

// aiActivity: the newest event time per acting seat (AI presence between resume reads).
function aiActivity(events: EventView[]): Map<number, string> {
  const out = new Map<number, string>();
  for (const e of events) if (e.acting_seat_id != null) out.set(e.acting_seat_id, e.created_at);
  return out;
}

// On a phone the tabs choose what fills the screen (the feed first); on a
// wide screen the feed and the scene are always shown and the tabs switch
// the tools (dice, actions).
type SideTab = 'chat' | 'scene' | 'dice' | 'actions' | 'journal';
const SIDE_TABS: { id: SideTab; label: MessageKey }[] = [
  { id: 'chat', label: 'table.tab.chat' },
  { id: 'scene', label: 'table.cards' },
  { id: 'dice', label: 'table.tab.dice' },
  { id: 'actions', label: 'table.tab.actions' },
  { id: 'journal', label: 'journal.title' },
];

// WIDE is where the page shows the feed and the table beside the tools
// (styles.css hides their tabs there).
const WIDE = '(min-width: 900px)';
const WIDE_HIDDEN_TABS: SideTab[] = ['chat', 'scene'];
const wideNow = () => globalThis.matchMedia?.(WIDE).matches ?? false;

// useWide follows whether the screen is wide (a window resized, a phone turned).
function useWide(): boolean {
  const [wide, setWide] = useState(wideNow);
  useEffect(() => {
    const mq = globalThis.matchMedia?.(WIDE);
    if (!mq) return;
    const on = () => setWide(mq.matches);
    mq.addEventListener('change', on);
    return () => mq.removeEventListener('change', on);
  }, []);
  return wide;
}

interface OwnResults {
  // the answers to our own rolls, by request id
  byRequest: Map<number, RollResultView>;
  list: RollResultView[];
}

function stageFromEvent(e: EventView): StageView {
  const p = e.payload as unknown as StageUpdatedPayload;
  return { text: p.text, image_id: p.image_id, image_url: p.image_url, revision: p.revision, updated_at: e.created_at };
}

// LiveTable is the table: the stage, the player cards and the tools on the
// left, the feed on the right (resizable) with the input bar at its foot.
// It loads once and then follows the event feed: no polling.
function LiveTable({ initial }: { initial: SessionResume }) {
  const { t } = useI18n();
  const sessionId = initial.session.id;
  const [data, setData] = useState(initial);
  usePageTitle('title.session', data.campaign.name);
  const [stage, setStageState] = useState<StageView>(initial.stage);
  const [refreshError, setRefreshError] = useState<string | null>(null);
  const [proxySeat, setProxySeat] = useState<number | null>(null);
  // Answers to older reads never overwrite newer ones.
  const generation = useRef(0);

  const applyStage = useCallback((s: StageView) => {
    setStageState((cur) => (s.revision >= cur.revision ? s : cur));
  }, []);

  const applyResume = useCallback(
    (r: SessionResume) => {
      generation.current += 1;
      setData(r);
      if (r.stage) applyStage(r.stage);
      setRefreshError(null);
    },
    [applyStage],
  );

  const refresh = useCallback(async () => {
    const mine = ++generation.current;
    try {
      const r = await getSession(sessionId);
      if (mine !== generation.current) return;
      setData(r);
      if (r.stage) applyStage(r.stage);
      setRefreshError(null);
    } catch (e) {
      if (mine === generation.current) setRefreshError(e instanceof ApiError ? e.code : '');
    }
  }, [sessionId, applyStage]);

  const rolls = useRollBoard(sessionId);
  const reloadBoard = rolls.reload;
  const encounter = useEncounter(sessionId);
  const reloadEncounter = encounter.reload;
  const [own, setOwn] = useState<OwnResults>(() => ({ byRequest: new Map(), list: [] }));
  const [resourcesVersion, setResourcesVersion] = useState(0);
  // wide screens open on the dice tools (the feed is always shown); phones on the feed
  const wide = useWide();
  const [tab, setTab] = useState<SideTab>(() => (wideNow() ? 'dice' : 'chat'));
  // the actions panel loads when its tab is first chosen, and stays
  const [actionsShown, setActionsShown] = useState(false);
  if (tab === 'actions' && !actionsShown) setActionsShown(true);
  const compactHead = useCompactHead();
  const [stageOpen, setStageOpen] = useState(true);
  const [checkDraft, setCheckDraft] = useState<CheckDraft | null>(null);

  const onNew = useCallback(
    (events: EventView[]) => {
      if (events.some(changesResume) || events.some(changesHp)) void refresh();
      if (events.some(isEncounterEvent)) reloadEncounter();
      if (events.some(changesBoard)) reloadBoard();
      if (events.some((e) => e.kind === 'character.changed')) setResourcesVersion((n) => n + 1);
      for (const e of events) if (e.kind === 'stage.updated') applyStage(stageFromEvent(e));
    },
    [refresh, applyStage, reloadBoard, reloadEncounter],
  );

  const onResult = useCallback((r: RollResultView) => {
    setOwn((cur) => {
      const byRequest = new Map(cur.byRequest);
      if (r.roll_request_id != null) byRequest.set(r.roll_request_id, r);
      return { byRequest, list: [...cur.list.filter((x) => x.id !== r.id), r] };
    });
  }, []);

  const feed = useEventFeed(sessionId, { events: initial.recent_events ?? [], cursor: initial.cursor ?? 0 }, onNew);
  const names = useMemo(() => tableNames(data, t), [data, t]);
  const aiSeen = useMemo(() => aiActivity(feed.events), [feed.events]);
  const loadPresence = useCallback((signal: AbortSignal) => getPresence(sessionId, signal), [sessionId]);
  const presence = usePolled(loadPresence, PRESENCE_POLL_MS).data;
  const onlineSeats = useMemo(
    () => new Set((presence?.online ?? []).flatMap((x) => (x.seat_id != null ? [x.seat_id] : []))),
    [presence],
  );
  // Adventure Table's narrators at the room's seats, reread every 2 s
  const narrators = useNarrators(data.room.id);
  const narratorSeats = useMemo(() => new Set((narrators.data ?? []).map((n) => n.seat_id)), [narrators.data]);
  const side = useSideWidth();
  const results = useMemo(() => mergeResults(rolls.board, feed.events, own.list), [rolls.board, feed.events, own.list]);
  const requests = useMemo(() => new Map((rolls.board?.requests ?? []).map((r) => [r.id, r])), [rolls.board]);
  // the checks the loaded feed shows as cards (the prompt bar does not repeat them)
  const checksInFeed = useMemo(() => requestsInFeed(feed.events), [feed.events]);

  const status = data.session.status as SessionStatus;
  const isDM = data.me.role === 'dm';
  const open = status === 'lobby' || status === 'active';
  const canProxy = isDM && status === 'active';
  const proxyP = canProxy ? data.participants.find((p) => p.seat_id === proxySeat) : undefined;
  const proxyName = proxyP ? seatDisplayName(proxyP, data.seats.find((s) => s.id === proxyP.seat_id), t) : null;
  const mode: InputMode = isDM ? (proxyP ? 'proxy' : 'dm') : 'player';
  let closedReason: MessageKey | null = null;
  if (data.me.role === 'spectator') closedReason = 'table.input.readOnly';
  else if (status === 'lobby') closedReason = 'table.input.lobby';
  else if (status !== 'active') closedReason = 'table.input.over';
  const targets = data.participants.map((p) => ({
    seatId: p.seat_id,
    name: seatDisplayName(p, data.seats.find((s) => s.id === p.seat_id), t),
  }));
  const canAct = status === 'active' && (isDM || data.me.role === 'player');
  const fighters: EncounterSeat[] = data.participants.map((p) => ({
    seatId: p.seat_id,
    name: seatDisplayName(p, data.seats.find((s) => s.id === p.seat_id), t),
    fights: p.character != null,
  }));
  const ctx: BoardCtx = {
    sessionId,
    board: rolls.board,
    boardError: rolls.error,
    reloadBoard,
    names,
    isDM,
    mySeatId: data.me.seat_id,
    canAct,
    closedReason,
    own: own.byRequest,
    onResult,
  };
  const openWindow = [...(rolls.board?.windows ?? [])].filter((w) => w.status === 'open').sort((a, b) => b.id - a.id)[0];
  // a check's result: from the board, from our own answer, or from the feed
  const resultForRequest = (requestId: number): RollResultView | null => {
    const r = requests.get(requestId);
    if (r?.result) return r.result;
    const mine = own.byRequest.get(requestId);
    if (mine) return mine;
    return results.find((x) => x.roll_request_id === requestId) ?? null;
  };
  const requestCheck = (draft: CheckDraft) => {
    if (!isDM || !canAct) return;
    const known = new Set(targets.map((x) => x.seatId));
    setCheckDraft({ ...draft, seatIds: draft.seatIds === null ? null : draft.seatIds.filter((id) => known.has(id)) });
  };

  // The side tabs, as the ARIA tabs pattern has them: the arrow keys move
  // along the tabs (wrapping), Home and End jump to the ends, and the tab
  // in focus is the one shown. The panels are spread over the page
  // (SidePanel). On a wide screen the feed and the table are always in
  // view and their tabs hidden: the arrow keys skip them.
  const baseId = useId();
  const tabs: SideTabs = {
    baseId,
    selected: tab,
    keys: SIDE_TABS.map((x) => x.id).filter((k) => !(wide && WIDE_HIDDEN_TABS.includes(k))),
    select: setTab,
  };
  const phoneTabs = <SideTabList tabs={tabs} label={t('table.side')} />;

  // The table: on the left the head, the stage (a collapsible hero), the
  // player cards and the tools (dice, actions); on the right the feed
  // (chat, rolls, checks, log) takes the full height with what is asked of
  // the player and the input bar at its foot. On a phone one column shows
  // at a time, chosen by the tabs (the feed first).
  return (
    <div
      className="table-page"
      data-view={tab}
      data-role={data.me.role}
      data-compact={compactHead.compact || undefined}
      ref={side.containerRef}
      style={{ gridTemplateColumns: `minmax(0, 1fr) 0.6rem ${side.width}px` }}
    >
      <div className="table-left" data-testid="table-left">
        <p className="crumbs">
          <Link to={`/rooms/${data.room.id}`}>{t('session.backToRoom')}</Link>
        </p>
        <div className="table-head">
          <h1>{format(t('session.title'), { campaign: data.campaign.name })}</h1>
          <div className={`session-status status-${status}`}>
            <span>{t('session.status')}:</span>{' '}
            <strong data-testid="session-status" data-status={status}>
              {t(`sessionStatus.${status}`)}
            </strong>
          </div>
          <dl className="facts">
            <dt>{t('session.room')}</dt>
            <dd>{data.room.name}</dd>
            <dt>{t('session.myRole')}</dt>
            <dd data-testid="my-role">{t(`role.${data.me.role as TableRole}`)}</dd>
          </dl>
          <PresenceList presence={presence} />
          {feed.status !== 'stopped' && (
            <span className={`feed-status feed-${feed.status}`} data-testid="feed-status" data-status={feed.status} role="status">
              {t(feed.status === 'live' ? 'table.feed.live' : 'table.feed.reconnecting')}
            </span>
          )}
        </div>
        <NarratorPanel
          data={data}
          narrators={narrators}
          nameOf={(seatId) =>
            seatId === data.session.dm_seat_id
              ? t('seatRole.dm')
              : seatDisplayName(data.participants.find((p) => p.seat_id === seatId), data.seats.find((s) => s.id === seatId), t)
          }
          onSeatsChanged={refresh}
        />
        {feed.status === 'stopped' && (
          <ErrorNotice code={feed.error ?? ''} lead={t('table.feed.stopped')} onRetry={feed.restart} />
        )}
        {refreshError !== null && <ErrorNotice code={refreshError} lead={t('session.failed')} onRetry={refresh} />}

        {isDM && status === 'active' && (data.recap.status === 'drafting' || data.recap.status === 'draft') && (
          <Suspense fallback={null}>
            <RecapPanel data={data} onSession={applyResume} reload={refresh} />
          </Suspense>
        )}

        <EncounterPrompt
          sessionId={sessionId}
          state={encounter}
          mySeatId={data.me.seat_id ?? null}
          isDM={isDM}
          canAct={canAct}
          campaign={data.campaign.name}
        />

        {phoneTabs}

        <SidePanel tabs={tabs} id="scene" className="table-scene">
          {hasSessionControls(data) && <SessionControls data={data} onSession={applyResume} />}

          <details
            className="stage-hero"
            data-testid="stage-hero"
            open={stageOpen}
            onToggle={(e) => setStageOpen((e.currentTarget as HTMLDetailsElement).open)}
          >
            <summary>{t('table.stage')}</summary>
            <div className="stage-pane">
              <StagePanel sessionId={sessionId} stage={stage} canEdit={isDM && open} onStage={applyStage} reload={refresh} />
            </div>
          </details>

          <div className="scene-row">
            <EncounterPanel
              sessionId={sessionId}
              state={encounter}
              isDM={isDM}
              mySeatId={data.me.seat_id ?? null}
              canAct={canAct}
              seats={fighters}
              myAttacks={data.participants.find((p) => p.seat_id === data.me.seat_id)?.character?.derived?.attacks ?? []}
            />
            <PlayerCards
              data={data}
              canProxy={canProxy}
              proxySeatId={proxyP ? proxyP.seat_id : null}
              onActAs={(seatId) => setProxySeat((cur) => (cur === seatId ? null : seatId))}
              onCharacterChanged={refresh}
              onControllerChanged={refresh}
              aiSeen={aiSeen}
              onlineSeats={presence ? onlineSeats : undefined}
              resourcesVersion={resourcesVersion}
              narratorSeats={narratorSeats}
            />
          </div>

          {proxyName !== null && (
            <div className="proxy-banner" role="status" data-testid="proxy-banner">
              <strong>{format(t('table.proxy.banner'), { name: proxyName })}</strong> —{' '}
              <button type="button" onClick={() => setProxySeat(null)}>
                {t('table.proxy.stop')}
              </button>
              <span className="hint"> {format(t('table.proxy.hint'), { name: proxyName })}</span>
            </div>
          )}
        </SidePanel>

        <div className="table-tools" data-testid="side-panel">
          <SidePanel tabs={tabs} id="dice" className="side-tab-panel tools-panel" hidden={tab !== 'dice'} data-testid="dice-panel">
            <DicePanel
              ctx={ctx}
              results={results}
              proxySeatId={proxyP ? proxyP.seat_id : null}
              onRequestCheck={() => requestCheck({ seatIds: null })}
            />
          </SidePanel>
          <SidePanel tabs={tabs} id="actions" className="side-tab-panel tools-panel" hidden={tab !== 'actions'} data-testid="actions-panel">
            {/* mounted once first shown, and kept (its forms keep what was typed) */}
            {actionsShown && (
              <Suspense fallback={<p aria-busy="true">{t('common.loading')}</p>}>
                <ActionsPanel
                  ctx={ctx}
                  onRequestCheck={(a: PendingActionView) => requestCheck({ seatIds: [a.subject_seat_id], pendingActionId: a.id })}
                />
              </Suspense>
            )}
          </SidePanel>
          <SidePanel tabs={tabs} id="journal" className="side-tab-panel tools-panel" hidden={tab !== 'journal'} data-testid="journal-panel">
            <Suspense fallback={null}>{tab === 'journal' && <JournalPanel campaignId={data.campaign.id} />}</Suspense>
          </SidePanel>
        </div>
      </div>

      <div className="divider" aria-label={t('table.resize')} data-testid="divider" {...side.separatorProps} />

      <SidePanel
        as="section"
        tabs={tabs}
        id="chat"
        className="feed-col side-tab-panel"
        data-testid="feed-column"
        onScrollCapture={compactHead.onFeedScroll}
      >
        <TableFeed
          events={feed.events}
          names={names}
          isDM={isDM}
          requests={requests}
          resultFor={resultForRequest}
          onRequestCheck={isDM && canAct ? (check, seatId) => requestCheck({ seatIds: seatId != null ? [seatId] : null, check }) : undefined}
          edit={
            data.me.role === 'spectator' ? undefined : { isDM, mySeatId: data.me.seat_id ?? null, onEvent: (e) => feed.add([e]) }
          }
          checks={ctx}
          drafts={narrationDrafts(narrators.data)}
        />

        <PromptBar ctx={ctx} inFeed={checksInFeed} />

        <InputBar
          sessionId={sessionId}
          mode={mode}
          subjectSeatId={proxyP ? proxyP.seat_id : null}
          targets={targets}
          closedReason={closedReason}
          onPosted={(e) => feed.add([e])}
          windowId={openWindow ? openWindow.id : null}
          onDeclared={reloadBoard}
        />
      </SidePanel>

      {checkDraft !== null && isDM && (
        <Suspense fallback={null}>
          <CheckDialog
            sessionId={sessionId}
            seats={targets}
            draft={checkDraft}
            onClose={() => setCheckDraft(null)}
            onDone={() => {
              setCheckDraft(null);
              reloadBoard();
            }}
          />
        </Suspense>
      )}
    </div>
  );
}

// SideTabs is the side tabs' state: which is chosen, and the ones the
// arrow keys reach (in order).
interface SideTabs {
  baseId: string;
  selected: SideTab;
  keys: SideTab[];
  select: (tab: SideTab) => void;
}

// SideTabList is the row of side tabs. A tab the screen hides (the feed's
// and the table's, beside the tools on a wide screen) is disabled.
function SideTabList({ tabs, label }: { tabs: SideTabs; label: string }) {
  const { t } = useI18n();
  return (
    <TabList
      baseId={tabs.baseId}
      label={label}
      className="side-tabs view-tabs"
      items={SIDE_TABS.map(({ id, label: key }) => ({
        id,
        label: t(key),
        className: `view-tab view-tab-${id}`,
        disabled: !tabs.keys.includes(id),
      }))}
      selected={tabs.selected}
      onSelect={tabs.select}
    />
  );
}

// SidePanel is the part of the session page a side tab shows. The feed and
// the table stay in view beside the tools on a wide screen, where their
// tabs are hidden: every panel is mounted all the time, hidden (the tools)
// or shown by the page's CSS (data-view), and it is labelled by its own
// tab, not by the chosen one.
function SidePanel({
  as: Tag = 'div',
  tabs,
  id,
  children,
  ...rest
}: {
  as?: 'div' | 'section';
  tabs: SideTabs;
  id: SideTab;
  className: string;
  hidden?: boolean;
  children: ReactNode;
  'data-testid'?: string;
  onScrollCapture?: (e: UIEvent<HTMLElement>) => void;
}) {
  return (
    <Tag {...rest} id={panelId(tabs.baseId, id)} role="tabpanel" aria-labelledby={tabId(tabs.baseId, id)}>
      {children}
    </Tag>
  );
}

// How far (px) from its newest line the feed is read back before the
// session's head compacts; it is whole again within FOOT of the foot. (The
// gap between the two is more than the head gives back, so the change
// cannot undo itself.)
const READ_BACK = 200;
const FOOT = 24;

// useCompactHead: the session's head compacts while the reader scrolls the
// feed back and is whole again at its foot. The feed's lines stay where
// they are on the screen when the head above them changes height.
function useCompactHead() {
  const [compact, setCompact] = useState(false);
  const moved = useRef<{ list: HTMLElement; top: number } | null>(null);
  const onFeedScroll = (e: UIEvent<HTMLElement>) => {
    const list = e.target as HTMLElement;
    if (!list.matches('[data-testid="chat"]') || list.clientHeight === 0) return;
    const fromFoot = list.scrollHeight - list.scrollTop - list.clientHeight;
    const next = compact ? fromFoot > FOOT : fromFoot > READ_BACK;
    if (next === compact) return;
    moved.current = { list, top: list.getBoundingClientRect().top };
    setCompact(next);
  };
  useLayoutEffect(() => {
    const was = moved.current;
    moved.current = null;
    if (was) was.list.scrollTop += was.list.getBoundingClientRect().top - was.top;
  }, [compact]);
  return { compact, onFeedScroll };
}

// PresenceList: "N online" and who (humans and AI seats), from the presence route.
function PresenceList({ presence }: { presence: Presence | null }) {
  const { t } = useI18n();
  if (!presence) return null;
  const online = presence.online;
  return (
    <p className="presence" data-testid="presence" role="status">
      <span className="online-dot" aria-hidden="true" />{' '}
      <strong data-testid="presence-count">{format(t('table.presence.count'), { n: online.length })}</strong>
      {online.length > 0 && ': '}
      {online.map((x, i) => (
        <span key={`${x.kind}-${x.access_id ?? ''}-${x.seat_id ?? ''}-${i}`} data-testid="presence-name" data-kind={x.kind}>
          {i > 0 && ', '}
          {x.name}
          {x.kind === 'ai' && ` (${t('table.presence.ai')})`}
        </span>
      ))}
    </p>
  );
}

// freeSeats: the player seats not yet taking part (the DM seat runs the session).
function freeSeats(data: SessionResume) {
  const participating = new Set(data.participants.map((p) => p.seat_id));
  return data.seats.filter((seat) => seat.role === 'player' && !participating.has(seat.id));
}

// lateJoinApplies: the reader may let a seat join late and a seat is free to.
const lateJoinApplies = (data: SessionResume) => data.can.late_join && freeSeats(data).length > 0;

// hasSessionControls: any of the session controls applies to the reader now
// (the server's can.*); none: no controls bar at all.
const hasSessionControls = (data: SessionResume) => data.can.start || data.can.end || data.can.abandon || lateJoinApplies(data);

// SessionControls shows only the controls that apply now (the server's
// can.*): Start in the lobby, End and late join while active, Abandon until
// it is over; never a disabled control the reader can't use.
function SessionControls({ data, onSession }: { data: SessionResume; onSession: (s: SessionResume) => void }) {
  const { t } = useI18n();
  const action = useAction();
  const [lateSeat, setLateSeat] = useState('');
  const lateId = useId();
  const s = data.session;
  const free = freeSeats(data);
  const stopping = data.can.end || data.can.abandon;

  const doIt = async (fn: () => Promise<SessionResume>) => {
    const next = await action.run(fn);
    if (next) onSession(next);
    return next;
  };

  return (
    <section className="session-controls" aria-labelledby="session-controls">
      <h2 id="session-controls" className="visually-hidden">
        {t('session.controls')}
      </h2>
      <div className="inline-form">
        {data.can.start && (
          <button type="button" data-testid="session-start" disabled={action.busy} onClick={() => doIt(() => startSession(s.id))}>
            <Play aria-hidden="true" size={18} />
            {t('session.start')}
          </button>
        )}
        {data.can.end && (
          <ConfirmButton
            testId="session-end"
            question={t('session.end.confirm')}
            yes={t('session.end.yes')}
            disabled={action.busy}
            onConfirm={() => doIt(() => endSession(s.id))}
          >
            <Flag aria-hidden="true" size={18} />
            {t('session.end')}
          </ConfirmButton>
        )}
        {data.can.abandon && (
          <ConfirmButton
            testId="session-abandon"
            question={t('session.abandon.confirm')}
            yes={t('session.abandon.yes')}
            disabled={action.busy}
            onConfirm={() => doIt(() => abandonSession(s.id))}
          >
            <Ban aria-hidden="true" size={18} />
            {t('session.abandon')}
          </ConfirmButton>
        )}
        {lateJoinApplies(data) && (
          <>
            {(data.can.start || stopping) && <span className="control-sep" />}
            <label htmlFor={lateId}>{t('session.lateJoin.seat')}</label>
            <select id={lateId} value={lateSeat} onChange={(e) => setLateSeat(e.target.value)}>
              <option value="">{t('session.lateJoin.choose')}</option>
              {free.map((seat) => (
                <option key={seat.id} value={String(seat.id)}>
                  {seatLabel(t, seat)}
                </option>
              ))}
            </select>
            <button
              type="button"
              disabled={action.busy || lateSeat === '' || !free.some((x) => String(x.id) === lateSeat)}
              onClick={async () => {
                if (await doIt(() => lateJoin(s.id, Number(lateSeat)))) setLateSeat('');
              }}
            >
              {t('session.lateJoin')}
            </button>
          </>
        )}
      </div>
      {action.error !== null && <ErrorNotice code={action.error} />}
    </section>
  );
}
