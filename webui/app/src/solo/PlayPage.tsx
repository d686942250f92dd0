import {
  ArrowLeft,
  Bot,
  BookOpen,
  Brain,
  FastForward,
  Lightbulb,
  Pencil,
  RefreshCw,
  RotateCcw,
  Settings2,
  Terminal,
  Undo2,
  type LucideIcon,
} from 'lucide-react';
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { Link, useParams } from 'react-router';
import { ApiError } from '../api';
import { ErrorNotice } from '../components/ErrorNotice';
import { useI18n } from '../i18n/I18nProvider';
import { usePageTitle } from '../usePageTitle';
import { useAction } from '../useAction';
import { useApi } from '../useApi';
import {
  chooseTake,
  deleteAction,
  editAction,
  forkAt,
  getAdventure,
  getOlderStory,
  playTurn,
  retryTurn,
  stopTurn,
  switchBranch,
  undoTurn,
  type ActionView,
  type AdventurePage,
  type Notice,
  type StreamResult,
  type TurnInput as TurnBody,
} from './api';
import { AdventureSettings } from './AdventureSettings';
import { downloadBundle } from './bundles';
import { BranchList } from './Branches';
import { AgentAccess } from './AgentAccess';
import { InsightsDrawer } from './InsightsDrawer';
import { MoreMenu } from './MoreMenu';
import { LorePanel } from './LorePanel';
import { MemoryPanel } from './MemoryPanel';
import { ReaderOptions } from './ReaderOptions';
import { useReaderPrefs } from './readerPrefs';
import './Reader.css';
import { RefreshPanel } from './RefreshPanel';
import { ScriptConsole } from './ScriptConsole';
import { ScriptNotices } from './ScriptNotices';
import type { StreamEvent } from './sse';
import { Story, type LiveTurn, type NodeFailure } from './Story';
import { ShortcutKeys, ShortcutsHelp } from './Shortcuts';
import { TokenMeter } from './TokenMeter';
import { TurnInput } from './TurnInput';
import { useFocusAfterRender } from '../focus';

const OLDER_PAGE = 30;

// toEnd scrolls the page to its end: the newest turn, just above the pinned
// input. nearEnd says whether the reader is within a few lines of it.
function toEnd() {
  const el = document.scrollingElement;
  if (el && typeof el.scrollTo === 'function') el.scrollTo({ top: el.scrollHeight });
}
function nearEnd(): boolean {
  const el = document.scrollingElement;
  return el != null && el.scrollHeight - el.scrollTop - el.clientHeight < 48;
}

// IconAction is one of the reader's icon buttons: the icon shown, the label
// its accessible name and tooltip, keys its keyboard shortcut.
function IconAction({
  label,
  icon: Icon,
  keys,
  disabled,
  onClick,
}: {
  label: string;
  icon: LucideIcon;
  keys?: string;
  disabled: boolean;
  onClick: () => void;
}) {
  return (
    <button type="button" className="icon-button" disabled={disabled} aria-keyshortcuts={keys} aria-label={label} title={label} onClick={onClick}>
      <Icon aria-hidden="true" size={20} />
    </button>
  );
}

// AdventurePlayPage is /solo/adventures/:id.
export function AdventurePlayPage() {
  const { id = '' } = useParams();
  return <Play key={id} id={id} />;
}

// mergeDone puts a finished turn into the page: the player action (new turns),
// the saved narration (replacing the retried one) and the new adventure state.
// A turn stopped before any text saved no narration (action null): the
// player action stays at the tip, waiting for narration.
export function mergeDone(
  p: AdventurePage,
  kind: LiveTurn['kind'],
  player: ActionView | null,
  done: { action: ActionView | null; adventure: AdventurePage['adventure'] },
): AdventurePage {
  let story = p.story;
  if (!done.action) {
    if (player && !story.some((a) => a.id === player.id)) story = [...story, player];
    return { ...p, adventure: done.adventure, story };
  }
  if (kind === 'retry') {
    if (story[story.length - 1]?.kind === 'narration') story = story.slice(0, -1);
  } else if (player && !story.some((a) => a.id === player.id)) {
    story = [...story, player];
  }
  return { ...p, adventure: done.adventure, story: [...story, done.action] };
}

function Play({ id }: { id: string }) {
  const { t } = useI18n();
  const load = useCallback((signal: AbortSignal) => getAdventure(id, signal), [id]);
  const [loaded, reload] = useApi(load);
  const [page, setPage] = useState<AdventurePage | null>(null);
  usePageTitle('title.adventure', page?.adventure.title);
  const [live, setLive] = useState<LiveTurn | null>(null);
  // the failure of the last turn: its code, and for script_stopped the
  // server's message (it says what the script stopped and why)
  const [turnError, setTurnError] = useState<{ code: string; message?: string } | null>(null);
  // messages of the scripts for the player after the last turn
  const [notices, setNotices] = useState<Notice[]>([]);
  const [consoleOpen, setConsoleOpen] = useState(false);
  const [agentsOpen, setAgentsOpen] = useState(false);
  // the overflow menu's button: focus comes back to it when a drawer or
  // panel it opened closes (the item that opened it went with the menu). It
  // moves once the drawer is gone: while a modal drawer is open, focus
  // cannot leave it.
  const moreButton = useRef<HTMLButtonElement>(null);
  const focusAfterRender = useFocusAfterRender();
  const focusMore = () => focusAfterRender(moreButton);
  const [memoryOpen, setMemoryOpen] = useState(false);
  const [loreOpen, setLoreOpen] = useState(false);
  const [reasoningById, setReasoningById] = useState<Record<number, string>>({});
  const [insightsFor, setInsightsFor] = useState<number | null>(null);
  const [refreshing, setRefreshing] = useState(false);
  const [settingsOpen, setSettingsOpen] = useState(false);
  const [announce, setAnnounce] = useState('');
  const action = useAction();
  // the overflow menu's export: its failure shows under the story
  const exporting = useAction();
  // the edits and deletes of single nodes: their failure shows at the node
  const nodeAction = useAction();
  const [nodeOp, setNodeOp] = useState<{ id: number; op: NodeFailure['op'] } | null>(null);
  const clearNode = nodeAction.clear;
  const abortRef = useRef<AbortController | null>(null);
  // stopping: the player pressed Stop and the stream has not ended yet;
  // stopError: the stop request itself failed
  const [stopping, setStopping] = useState(false);
  const [stopError, setStopError] = useState<string | null>(null);
  // the help popover listing the keyboard shortcuts
  const [shortcutsOpen, setShortcutsOpen] = useState(false);
  // the reader's font and size; editRequest opens the newest turn's editor
  const [prefs, setPrefs] = useReaderPrefs();
  const [editRequest, setEditRequest] = useState(0);
  // The story opens at its newest turn, and stays there while it grows (a
  // reply streaming in, the counter under the box loading) as long as the
  // reader is at the end; scrolling up to read lets go, sending holds on.
  const following = useRef(true);
  const opened = useRef(false);
  useLayoutEffect(() => {
    if (page === null || opened.current) return;
    opened.current = true;
    toEnd();
  }, [page]);
  useEffect(() => {
    // Only the reader moving up lets go of the end: a scroll the layout
    // makes (content growing above the fold, scroll anchoring on a busy
    // machine) must not stop the story from following its newest turn.
    // The page places the reader itself: a browser restoring the old scroll
    // position on reload (at the load event, which a busy machine may fire
    // after the story has opened at its end) would leave the newest turn
    // under the dock.
    const restoration = history.scrollRestoration;
    history.scrollRestoration = 'manual';
    let lastTop = document.scrollingElement?.scrollTop ?? 0;
    const onScroll = () => {
      const top = document.scrollingElement?.scrollTop ?? 0;
      if (top < lastTop - 1) following.current = nearEnd();
      else if (nearEnd()) following.current = true;
      lastTop = top;
    };
    window.addEventListener('scroll', onScroll, { passive: true });
    const grown = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(() => following.current && toEnd());
    grown?.observe(document.body);
    return () => {
      history.scrollRestoration = restoration;
      window.removeEventListener('scroll', onScroll);
      grown?.disconnect();
    };
  }, []);

  useEffect(() => {
    if (loaded.state !== 'ok') return;
    setPage(loaded.data);
    if (!loaded.data.adventure.turn_in_progress) setTurnError((e) => (e?.code === 'turn_in_progress' ? null : e));
  }, [loaded]);
  useEffect(() => () => abortRef.current?.abort(), []);
  // an edit or delete refused because another tab (or a lost answer) is
  // writing a turn: show that state
  useEffect(() => {
    if (nodeAction.error === 'turn_in_progress') reload();
  }, [nodeAction.error, reload]);

  // adopt takes a page answered by an action (undo, take, fork, switch, refresh).
  const adopt = useCallback(
    (p: AdventurePage | undefined) => {
      if (!p) return;
      setPage(p);
      setTurnError(null);
      clearNode();
    },
    [clearNode],
  );

  const stream = async (kind: LiveTurn['kind'], input: TurnBody | null): Promise<boolean> => {
    // abortRef doubles as the guard against a second turn started before re-render
    if (!page || live || abortRef.current) return false;
    const advId = page.adventure.id;
    setTurnError(null);
    setNotices([]);
    action.clear();
    clearNode();
    setAnnounce('');
    setStopping(false);
    setStopError(null);
    setLive({ kind, sent: input, player: null, text: '', reasoning: '', stopped: null });
    following.current = true;
    toEnd();
    const ctrl = new AbortController();
    abortRef.current = ctrl;
    let player: ActionView | null = null;
    let reasoning = '';
    const onEvent = (ev: StreamEvent) => {
      switch (ev.type) {
        case 'player':
          player = ev.action;
          setLive((l) => l && { ...l, player: ev.action });
          break;
        case 'reasoning':
          reasoning += ev.text;
          setLive((l) => l && { ...l, reasoning: l.reasoning + ev.text });
          break;
        case 'chunk':
          setLive((l) => l && { ...l, text: l.text + ev.text });
          break;
        case 'stopped':
          setLive((l) => l && { ...l, stopped: { reason: ev.reason } });
          break;
        default:
          break;
      }
    };
    let result: StreamResult;
    try {
      result =
        kind === 'retry'
          ? await retryTurn(advId, onEvent, ctrl.signal)
          : await playTurn(advId, input ?? { mode: 'continue', text: '' }, onEvent, ctrl.signal);
    } catch (e) {
      if (ctrl.signal.aborted) return false;
      abortRef.current = null;
      setLive(null);
      const code = e instanceof ApiError ? e.code : '';
      setTurnError({ code });
      // another tab (or a lost answer) is still writing a turn: show that state
      if (code === 'turn_in_progress') reload();
      return false;
    }
    if (ctrl.signal.aborted) return false;
    abortRef.current = null;
    setStopping(false);
    setNotices(result.notices);
    const done = result.done;
    if (done) {
      setPage((p) => p && mergeDone(p, kind, player, done));
      const saved = done.action;
      if (saved && reasoning) setReasoningById((m) => ({ ...m, [saved.id]: reasoning }));
      setLive(null);
      setAnnounce(saved ? saved.text : t('solo.story.waitingHint'));
      return true;
    }
    // The turn failed: the previous take is back in charge, so show the page
    // as the server now has it.
    setLive(null);
    const code = result.error ?? '';
    setTurnError(code === 'script_stopped' ? { code, message: result.message } : { code });
    reload();
    return false;
  };

  if (!page) {
    if (loaded.state === 'error')
      return (
        <>
          <h1>{t('solo.title')}</h1>
          <ErrorNotice code={loaded.code} lead={t('solo.adventure.failed')} onRetry={reload} />
          <p>
            <Link to="/solo">{t('solo.back')}</Link>
          </p>
        </>
      );
    return <p aria-busy="true">{t('common.loading')}</p>;
  }

  const adv = page.adventure;
  const streaming = live !== null;
  const busy = streaming || action.busy || nodeAction.busy;
  const elsewhere = adv.turn_in_progress && !streaming;
  const refusedBusy = turnError?.code === 'turn_in_progress';
  const last = page.story[page.story.length - 1];
  // while a retry streams, the narration it replaces steps aside
  const shown = live?.kind === 'retry' && last?.kind === 'narration' ? page.story.slice(0, -1) : page.story;
  const lastPrompt = [...page.story].reverse().find((a) => a.has_prompt);
  const canRetry = !busy && !elsewhere && (last?.kind === 'narration' || last?.kind === 'player');
  const canUndo = !busy && !elsewhere && last !== undefined && last.kind !== 'opening';
  const canContinue = !busy && !elsewhere;
  const canEdit = !busy && !elsewhere && last !== undefined;
  // the tip is a player action with no narration: its turn failed or was
  // stopped before any text, and it waits for Retry (or Undo)
  const waiting = last?.kind === 'player';
  const stop = async () => {
    if (!streaming || stopping) return;
    setStopping(true);
    setStopError(null);
    try {
      // the stream itself ends the turn (stopped, then done with the take);
      // stopped false: the turn was not running here (it was just ending,
      // or another server process writes it), so Stop may be pressed again
      const res = await stopTurn(adv.id);
      if (!res.stopped) setStopping(false);
    } catch (e) {
      setStopping(false);
      setStopError(e instanceof ApiError ? e.code : '');
    }
  };
  const undo = () => void run(() => undoTurn(adv.id));
  const version = `${adv.head_branch_id}:${adv.head_depth}:${adv.updated_at}`;

  const run = (fn: () => Promise<AdventurePage>) => {
    clearNode();
    return action.run(fn).then(adopt);
  };
  // runNode edits or deletes one node; a refusal shows at that node.
  const runNode = <R,>(actionId: number, op: NodeFailure['op'], fn: () => Promise<R>): Promise<R | undefined> => {
    action.clear();
    setNodeOp({ id: actionId, op });
    return nodeAction.run(fn);
  };
  const nodeFailure: NodeFailure | null =
    nodeOp !== null && nodeAction.error !== null ? { ...nodeOp, code: nodeAction.error } : null;
  // one drawer at a time: Insights, the memory bank and the script console
  // share the right edge
  const openInsights = (actionId: number) => {
    setConsoleOpen(false);
    setMemoryOpen(false);
    setLoreOpen(false);
    setInsightsFor(actionId);
  };
  const loadOlder = async () => {
    const first = page.story[0];
    if (!first) return;
    const older = await action.run(() => getOlderStory(adv.id, first.depth, OLDER_PAGE));
    if (older) setPage((p) => p && { ...p, story: [...older.story, ...p.story], has_more: older.has_more });
  };

  const retry = () => void stream('retry', null);
  const cont = () => void stream('continue', { mode: 'continue', text: '' });
  // the overflow menu's drawers: one at a time on the right edge
  const openDrawer = (which: 'memory' | 'lore' | 'console' | 'agents') => {
    setInsightsFor(null);
    setMemoryOpen(which === 'memory');
    setLoreOpen(which === 'lore');
    setConsoleOpen(which === 'console');
    setAgentsOpen(which === 'agents');
  };

  return (
    <div className="solo-play solo-reader" data-font={prefs.font} data-size={prefs.size} data-testid="solo-reader">
      <header className="reader-head">
        <Link to="/solo" className="icon-button" aria-label={t('reader.back')} title={t('reader.back')}>
          <ArrowLeft aria-hidden="true" size={20} />
        </Link>
        <h1>{adv.title}</h1>
        <ReaderOptions prefs={prefs} onChange={setPrefs} />
      </header>
      {adv.state_line !== '' && (
        <p className="state-line" aria-label={t('solo.stateLine')}>
          <span className="hint">{t('solo.stateLine')}:</span>{' '}
          <strong data-testid="state-line">{adv.state_line}</strong>
        </p>
      )}

      <BranchList
        adventureId={adv.id}
        version={version}
        busy={busy}
        onSwitch={(branchId) => void run(() => switchBranch(adv.id, branchId))}
      />

      <div className="reader-column">
        {page.has_more && (
          <p>
            <button type="button" onClick={loadOlder} disabled={busy}>
              {t('solo.story.older')}
            </button>
          </p>
        )}

        <Story
          story={shown}
          statPaths={Object.keys(adv.stat_schema ?? {})}
          reasoningById={reasoningById}
          live={live}
          editRequest={editRequest}
          tipActions={busy || elsewhere ? null : { onRetry: retry, onUndo: undo, onContinue: cont }}
          handlers={{
            busy,
            onTake: (actionId) => void run(() => chooseTake(adv.id, actionId)),
            onFork: (actionId) => void run(() => forkAt(adv.id, actionId)),
            onInsights: openInsights,
            onEdit: async (actionId, text) => {
              const saved = await runNode(actionId, 'edit', () => editAction(actionId, text));
              if (!saved) return false;
              setPage((p) => p && { ...p, story: p.story.map((a) => (a.id === saved.id ? saved : a)) });
              return true;
            },
            onDelete: async (actionId) => {
              const p = await runNode(actionId, 'delete', () => deleteAction(actionId));
              adopt(p);
              return p !== undefined;
            },
            onDismiss: clearNode,
            failure: nodeFailure,
          }}
        />
        <p className="visually-hidden" role="status">
          {announce}
        </p>

        {elsewhere && !refusedBusy && (
          <div className="notice notice-warn" data-testid="turn-elsewhere">
            <p>{t('solo.turn.inProgress')}</p>
            <button type="button" onClick={reload}>
              {t('solo.turn.checkAgain')}
            </button>
          </div>
        )}
        {turnError !== null &&
          (turnError.code === 'script_stopped' ? (
            // not a failure of the narrator: the code's text and what the script said
            <ErrorNotice code={turnError.code} detail={turnError.message} />
          ) : (
            <ErrorNotice
              code={turnError.code}
              // a failed new turn keeps the player's action, waiting at the tip
              // with Retry and Undo; a failed retry or continue changed nothing
              lead={refusedBusy ? t('solo.turn.inProgress') : waiting ? t('solo.turn.failedKept') : t('solo.turn.failed')}
              onRetry={refusedBusy ? reload : undefined}
            />
          ))}
        {stopError !== null && <ErrorNotice code={stopError} />}
        {action.error !== null && <ErrorNotice code={action.error} />}
        {exporting.error !== null && <ErrorNotice code={exporting.error} lead={t('solo.bundle.exportFailed')} />}

        <ScriptNotices notices={notices} onChange={setNotices} />

      {settingsOpen && (
        <AdventureSettings
          id="solo-adventure-settings"
          adventure={adv}
          busy={busy}
          onSaved={(view) => setPage((p) => p && { ...p, adventure: view })}
          onClose={() => {
            setSettingsOpen(false);
            focusMore();
          }}
        />
      )}
      {refreshing && (
        <RefreshPanel
          adventureId={adv.id}
          onApplied={(p) => {
            adopt(p);
            setRefreshing(false);
          }}
          onClose={() => setRefreshing(false)}
        />
      )}
      </div>

      <div className="reader-dock" data-testid="reader-dock">
        <div className="solo-controls" role="group" aria-label={t('solo.controls')}>
          {/* a narration gets a new take; a player action whose narration failed gets narrated */}
          <IconAction label={t('solo.retry')} keys="r" disabled={!canRetry} onClick={retry} icon={RotateCcw} />
          <IconAction label={t('solo.undo')} keys="u" disabled={!canUndo} onClick={undo} icon={Undo2} />
          <IconAction label={t('solo.continue')} keys="c" disabled={!canContinue} onClick={cont} icon={FastForward} />
          <IconAction label={t('reader.edit')} disabled={!canEdit} onClick={() => setEditRequest((n) => n + 1)} icon={Pencil} />
          <span className="controls-gap" />
          <ShortcutsHelp open={shortcutsOpen} onOpenChange={setShortcutsOpen} />
          <MoreMenu
            label={t('reader.more')}
            buttonRef={moreButton}
            items={[
              ...(lastPrompt
                ? [{ id: 'insights', label: t('solo.insights.last'), icon: Lightbulb, onAction: () => openInsights(lastPrompt.id) }]
                : []),
              { id: 'memory', label: t('solo.memory.open'), icon: Brain, onAction: () => openDrawer('memory') },
              { id: 'lore', label: t('solo.lore.open'), icon: BookOpen, onAction: () => openDrawer('lore') },
              { id: 'console', label: t('solo.console.open'), icon: Terminal, onAction: () => openDrawer('console') },
              { id: 'agents', label: t('agents.open'), icon: Bot, testId: 'agents-open', onAction: () => openDrawer('agents') },
              { id: 'settings', label: t('solo.settings.open'), icon: Settings2, onAction: () => setSettingsOpen((o) => !o) },
              ...(adv.scenario_id !== null
                ? [{ id: 'refresh', label: t('solo.refresh.open'), icon: RefreshCw, disabled: busy, onAction: () => setRefreshing(true) }]
                : []),
              {
                id: 'export',
                label: t('solo.bundle.exportAdventure'),
                disabled: busy || exporting.busy,
                testId: 'adventure-export',
                onAction: () => void exporting.run(() => downloadBundle('adventure', adv.id, adv.title)),
              },
            ]}
          />
          <ShortcutKeys
            actions={{
              retry: canRetry ? retry : null,
              undo: canUndo ? undo : null,
              continue: canContinue ? cont : null,
              help: () => setShortcutsOpen((o) => !o),
            }}
          />
        </div>
        <TurnInput
          disabled={busy || elsewhere}
          onSend={(input) => stream('turn', input)}
          stop={streaming ? { onStop: () => void stop(), stopping } : null}
          meter={(text) => <TokenMeter adventureId={adv.id} version={version} text={text} />}
        />
      </div>

      {insightsFor !== null && <InsightsDrawer actionId={insightsFor} onClose={() => setInsightsFor(null)} />}
      {memoryOpen && (
        <MemoryPanel
          adventureId={adv.id}
          version={version}
          busy={busy || elsewhere}
          onClose={() => {
            setMemoryOpen(false);
            focusMore();
          }}
        />
      )}
      {loreOpen && (
        <LorePanel
          adventureId={adv.id}
          version={version}
          busy={busy || elsewhere}
          onClose={() => {
            setLoreOpen(false);
            focusMore();
          }}
        />
      )}
      {agentsOpen && (
        <AgentAccess
          owner="adventures"
          id={adv.id}
          onClose={() => {
            setAgentsOpen(false);
            focusMore();
          }}
        />
      )}
      {consoleOpen && (
        <ScriptConsole
          adventureId={adv.id}
          version={version}
          onClose={() => {
            setConsoleOpen(false);
            focusMore();
          }}
        />
      )}
    </div>
  );
}
