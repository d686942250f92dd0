// The fight at the table: the initiative tracker (the order, the round, whose
// turn it is, statuses, timed conditions, and hit points and armor class only
// where the server sends them), the DM's controls (start, begin, next turn,
// attack with anyone, change a combatant, end), the player's (roll
// initiative, attack with their own combatant, end their own turn, death
// saves), and the notice when the turn passes to the reader's seat.
// This module is the frame the session page shows at once (the hook, the
// panel's head, the DM's Start button); the tracker and the forms are in
// EncounterTools.tsx, loaded when a fight runs or the DM opens the form.
import { Swords } from 'lucide-react';
import { Suspense, useCallback, useEffect, useState } from 'react';
import { ApiError } from '../api';
import { ErrorNotice } from '../components/ErrorNotice';
import { useI18n } from '../i18n/I18nProvider';
import { format } from '../i18n/messages';
import { lazyPart } from '../lazy';
import { useCoalescedRun } from '../useCoalesced';
import type { AttackDerived } from './api';
import { getEncounter, seatCombatantId, type EncounterResult, type EncounterView } from './encounter';

const EncounterTracker = lazyPart(() => import('./EncounterTools'), 'EncounterTracker');
const StartForm = lazyPart(() => import('./EncounterTools'), 'StartForm');
const NpcTurn = lazyPart(() => import('./EncounterTools'), 'NpcTurn');
const PlayerPrompt = lazyPart(() => import('./EncounterTools'), 'PlayerPrompt');

// ---- the encounter as the page knows it ------------------------------------

export interface EncounterState {
  // the running fight as the reader may see it; null when none (or not read yet)
  view: EncounterView | null;
  loaded: boolean;
  error: string | null;
  // reload reads the fight again (coalesced: many triggers, one read at a time, the newest wins)
  reload: () => void;
  // apply takes the fight from an answer of ours, before its events arrive
  apply: (r: EncounterResult) => void;
}

// useEncounter reads the session's fight on mount and on reload().
export function useEncounter(sessionId: number): EncounterState {
  const [view, setView] = useState<EncounterView | null>(null);
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = useCallback(
    async (alive: { readonly current: boolean }) => {
      try {
        const r = await getEncounter(sessionId);
        if (!alive.current) return;
        setView(r.encounter ?? null);
        setLoaded(true);
        setError(null);
      } catch (e) {
        if (alive.current) setError(e instanceof ApiError ? e.code : '');
      }
    },
    [sessionId],
  );
  const { trigger } = useCoalescedRun(run);
  const apply = useCallback((r: EncounterResult) => {
    setView(r.encounter.phase === 'ended' ? null : r.encounter);
    setLoaded(true);
  }, []);
  return { view, loaded, error, reload: trigger, apply };
}

// ---- small parts -------------------------------------------------------------

// facesOf reads dice faces typed as "4" or "3 5" or "3, 5"; null when any is not a whole number ≥ 1.
export function facesOf(text: string): number[] | null {
  const parts = text.split(/[\s,]+/).filter((x) => x !== '');
  const out = parts.map(Number);
  return out.every((n) => Number.isInteger(n) && n >= 1) ? out : null;
}

// ---- the panel ---------------------------------------------------------------

export interface EncounterSeat {
  seatId: number;
  name: string;
  // the seat has a character (only those can fight)
  fights: boolean;
}

// EncounterPanel: the tracker and the controls, beside the player cards.
export function EncounterPanel({
  sessionId,
  state,
  isDM,
  mySeatId,
  canAct,
  seats,
  myAttacks = [],
}: {
  sessionId: number;
  state: EncounterState;
  isDM: boolean;
  mySeatId: number | null;
  canAct: boolean;
  seats: EncounterSeat[];
  // the attacks of the player's own sheet (the resume's derived sheet), offered in the attack form
  myAttacks?: AttackDerived[];
}) {
  const { t } = useI18n();
  const { view } = state;
  // the DM's start form is open (it closes when a fight starts)
  const [starting, setStarting] = useState(false);
  const running = view != null;
  useEffect(() => {
    if (running) setStarting(false);
  }, [running]);
  if (!view && !isDM) return null;
  const startButton = (
    <p>
      <button type="button" aria-expanded={false} onClick={() => setStarting(true)}>
        <Swords aria-hidden="true" size={18} />
        {t('combat.start.open')}
      </button>
    </p>
  );
  return (
    <section className="encounter-panel" aria-labelledby="encounter-title" data-testid="encounter">
      <div className="panel-head">
        <h3 id="encounter-title">{view ? view.name : t('combat.title')}</h3>
        {view && (
          <span className="encounter-round" data-testid="encounter-round" data-phase={view.phase}>
            {view.phase === 'initiative' ? t('combat.phase.initiative') : format(t('combat.round'), { n: view.round })}
          </span>
        )}
      </div>
      {state.error !== null && <ErrorNotice code={state.error} lead={t('combat.failed')} onRetry={state.reload} />}
      {!view && isDM && canAct && !starting && startButton}
      {!view && isDM && canAct && starting && (
        <Suspense fallback={startButton}>
          <StartForm sessionId={sessionId} seats={seats} onResult={state.apply} onClose={() => setStarting(false)} />
        </Suspense>
      )}
      {!view && isDM && !canAct && <p className="hint">{t('combat.none')}</p>}
      {view && (
        <Suspense fallback={<p aria-busy="true">{t('common.loading')}</p>}>
          <EncounterTracker
            sessionId={sessionId}
            state={{ ...state, view }}
            isDM={isDM}
            mySeatId={mySeatId}
            canAct={canAct}
            seats={seats}
            myAttacks={myAttacks}
          />
        </Suspense>
      )}
    </section>
  );
}

// ---- what is asked of the player now ---------------------------------------

// EncounterPrompt: a player's notice above the table (every tab): roll
// initiative, "Your turn" with End my turn (it names the page's title too),
// a death save when dying. The DM's: an NPC's turn, with Next turn.
export function EncounterPrompt({
  sessionId,
  state,
  mySeatId,
  isDM,
  canAct,
  campaign,
}: {
  sessionId: number;
  state: EncounterState;
  mySeatId: number | null;
  isDM: boolean;
  canAct: boolean;
  campaign: string;
}) {
  const { t } = useI18n();
  const view = state.view;
  const me = view && !isDM && mySeatId != null ? view.combatants.find((c) => c.id === seatCombatantId(mySeatId)) : undefined;
  const myTurn = view?.phase === 'fighting' && me?.current === true;
  if (isDM) {
    const npc = view?.phase === 'fighting' ? view.combatants.find((c) => c.current && c.seat_id == null) : undefined;
    if (!view || !npc) return null;
    return (
      <Suspense fallback={null}>
        <NpcTurn sessionId={sessionId} state={state} view={view} npc={npc} canAct={canAct} />
      </Suspense>
    );
  }
  const rollFirst = view?.phase === 'initiative' && me != null && me.initiative == null;
  const dying = me?.status === 'dying';
  return (
    <>
      {/* the live region stays in the page, so the turn is announced when it comes */}
      <p className="visually-hidden" role="status" aria-live="assertive" data-testid="turn-announce">
        {myTurn && view ? format(t('combat.prompt.yourTurn'), { n: view.round }) : ''}
      </p>
      {view && me && (myTurn || rollFirst || dying) && (
        <Suspense fallback={null}>
          <PlayerPrompt sessionId={sessionId} state={state} view={view} me={me} canAct={canAct} campaign={campaign} />
        </Suspense>
      )}
    </>
  );
}
