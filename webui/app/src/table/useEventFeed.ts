import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError } from '../api';
import { waitEvents, type EventView } from './api';

// Long-poll timeout asked of the server, in seconds.
export const WAIT_TIMEOUT_S = 25;
// Backoff after failed waits: the n-th consecutive failure waits RETRY_MS[n] (last value repeats).
export const RETRY_MS = [500, 1000, 2000, 5000, 10000];
// A wait that answers faster than this with nothing new is followed by a pause,
// so a server that does not hold the request never makes the loop spin.
const FAST_EMPTY_MS = 200;
const FAST_EMPTY_PAUSE_MS = 1000;

export type FeedStatus = 'live' | 'reconnecting' | 'stopped';

export interface EventFeed {
  // events seen so far, deduplicated and ordered by seq
  events: EventView[];
  status: FeedStatus;
  // code of the error that stopped the feed (status 'stopped')
  error: string | null;
  // add merges events from elsewhere (a post's answer, a refreshed resume); duplicates are ignored
  add: (events: EventView[]) => void;
  // restart resumes a stopped feed from its cursor
  restart: () => void;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done);
  });
}

// permanent tells the errors that retrying cannot fix (no access, no such
// session) from the passing ones (network, server restarting, overload).
function permanent(e: unknown): boolean {
  if (!(e instanceof ApiError)) return false;
  return e.status >= 400 && e.status < 500 && e.status !== 408 && e.status !== 429;
}

// useEventFeed keeps a session's event feed live: it starts from the resume's
// recent events and cursor, then long-polls events/wait from the cursor the
// server returns each time. A failed wait is retried with backoff from the
// same cursor. onNew is called with each batch of events not seen before.
// The loop stops when the component unmounts.
export function useEventFeed(
  sessionId: number,
  initial: { events: EventView[]; cursor: number },
  onNew: (events: EventView[]) => void,
): EventFeed {
  const seen = useRef<Set<number> | null>(null);
  const [events, setEvents] = useState<EventView[]>(() => dedupe(initial.events));
  if (seen.current === null) seen.current = new Set(initial.events.map((e) => e.seq));
  const cursor = useRef(initial.cursor);
  const [status, setStatus] = useState<FeedStatus>('live');
  const [error, setError] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);
  const onNewRef = useRef(onNew);
  onNewRef.current = onNew;

  const add = useCallback((incoming: EventView[]) => {
    const known = seen.current!;
    const fresh: EventView[] = [];
    for (const e of incoming) {
      if (known.has(e.seq)) continue;
      known.add(e.seq);
      fresh.push(e);
    }
    if (fresh.length === 0) return;
    setEvents((prev) => [...prev, ...fresh].sort((a, b) => a.seq - b.seq));
    onNewRef.current(fresh);
  }, []);

  useEffect(() => {
    const ctrl = new AbortController();
    const { signal } = ctrl;
    setStatus('live');
    setError(null);
    (async () => {
      let failures = 0;
      while (!signal.aborted) {
        const started = Date.now();
        try {
          const page = await waitEvents(sessionId, cursor.current, WAIT_TIMEOUT_S, signal);
          if (signal.aborted) return;
          failures = 0;
          setStatus('live');
          if (typeof page.cursor === 'number') cursor.current = page.cursor;
          add(page.events ?? []);
          if ((page.events ?? []).length === 0 && Date.now() - started < FAST_EMPTY_MS) {
            await sleep(FAST_EMPTY_PAUSE_MS, signal);
          }
        } catch (e) {
          if (signal.aborted) return;
          if (permanent(e)) {
            setStatus('stopped');
            setError((e as ApiError).code);
            return;
          }
          setStatus('reconnecting');
          await sleep(RETRY_MS[Math.min(failures, RETRY_MS.length - 1)]!, signal);
          failures += 1;
        }
      }
    })();
    return () => ctrl.abort();
  }, [sessionId, attempt, add]);

  const restart = useCallback(() => setAttempt((n) => n + 1), []);
  return { events, status, error, add, restart };
}

function dedupe(events: EventView[]): EventView[] {
  const bySeq = new Map<number, EventView>();
  for (const e of events) if (!bySeq.has(e.seq)) bySeq.set(e.seq, e);
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
}
