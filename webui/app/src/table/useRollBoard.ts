import { useCallback, useState } from 'react';
import { ApiError } from '../api';
import { useCoalescedRun, type Alive } from '../useCoalesced';
import { getRolls, type EventView, type RollBoard, type RollResultView } from './api';

export interface RollBoardState {
  board: RollBoard | null;
  // code of the last failed read ('' unknown); null when the last read worked
  error: string | null;
  // reload reads GET /rolls again; reads never overlap, and a reload asked
  // for during a read runs once that read is done (so the newest state wins)
  reload: () => void;
}

// The event kinds after which the board is read again.
export const changesBoard = (e: EventView) =>
  e.kind.startsWith('roll.') || e.kind.startsWith('action.') || e.kind.startsWith('window.');

// useRollBoard holds what the caller may see of a session's rolls, checks,
// pending actions and action windows (GET /rolls). It loads on mount and when
// reload() is called (on roll/action/window events and after own actions).
export function useRollBoard(sessionId: number): RollBoardState {
  const [board, setBoard] = useState<RollBoard | null>(null);
  const [error, setError] = useState<string | null>(null);
  const run = useCallback(
    async (alive: Alive) => {
      try {
        const b = await getRolls(sessionId);
        if (!alive.current) return;
        setBoard(normalize(b));
        setError(null);
      } catch (e) {
        if (!alive.current) return;
        setError(e instanceof ApiError ? e.code : '');
      }
    },
    [sessionId],
  );
  const { trigger: reload } = useCoalescedRun(run);

  return { board, error, reload };
}

function normalize(b: RollBoard): RollBoard {
  return {
    requests: b.requests ?? [],
    results: b.results ?? [],
    pending_actions: b.pending_actions ?? [],
    windows: b.windows ?? [],
  };
}

// resultsOf merges the board's results with those carried by events
// (roll.quick, roll.resolved) and by own answers; the board's copy of a
// result wins, as it is the newest read. Newest first.
export function mergeResults(board: RollBoard | null, events: EventView[], own: RollResultView[]): RollResultView[] {
  const byId = new Map<number, RollResultView>();
  for (const r of own) byId.set(r.id, r);
  for (const e of events) {
    if (e.kind !== 'roll.quick' && e.kind !== 'roll.resolved') continue;
    const r = (e.payload as { result?: RollResultView }).result;
    if (r && typeof r.id === 'number' && !byId.has(r.id)) byId.set(r.id, r);
  }
  for (const r of board?.results ?? []) byId.set(r.id, r);
  return [...byId.values()].sort((a, b) => b.id - a.id);
}
