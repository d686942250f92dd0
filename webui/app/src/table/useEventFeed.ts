import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError } from '../api';
import { listEvents, waitEvents, type EventPage, type EventView } from './api';

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

// How a stream ended: refused (the server said no, with its error), or
// closed (network, server restart, a proxy that cut it) after delivering
// something or not.
interface StreamEnd {
  refused?: ApiError;
  delivered: boolean;
}

// A browser whose streams keep failing before they deliver anything (a
// proxy that does not pass event streams) long-polls instead.
const STREAM_TRIES = 3;
// A stream that ends sooner than this is followed by a pause.
const SHORT_STREAM_MS = 1000;

// streamUntilEnd follows events/stream (Server-Sent Events) from the cursor
// until it ends or signal aborts. It closes the EventSource on any error
// rather than let it reconnect by itself, so the caller reconnects from its
// own cursor and finds out why the stream ended.
function streamUntilEnd(sessionId: number, after: number, signal: AbortSignal, onPage: (p: EventPage) => void): Promise<StreamEnd> {
  return new Promise((resolve) => {
    const es = new EventSource(`/api/sessions/${sessionId}/events/stream?after=${after}`);
    let delivered = false;
    const end = (r: StreamEnd) => {
      es.close();
      signal.removeEventListener('abort', abort);
      resolve(r);
    };
    const abort = () => end({ delivered });
    signal.addEventListener('abort', abort);
    es.onmessage = (m: MessageEvent<string>) => {
      delivered = true;
      onPage(JSON.parse(m.data) as EventPage);
    };
    es.addEventListener('refused', (m) => {
      const body = JSON.parse((m as MessageEvent<string>).data) as { error?: { code?: string } };
      end({ delivered, refused: new ApiError(body.error?.code ?? 'internal', 403) });
    });
    es.onerror = () => end({ delivered });
  });
}

// useEventFeed keeps a session's event feed live: it starts from the resume's
// recent events and cursor, then follows events/stream (one request for as
// long as the page is open; a browser without EventSource long-polls
// events/wait, re-asking from the cursor the server returns each time).
// When a stream ends, one read of events (the same cursor) tells a passing
// failure, retried with backoff, from a refusal that stops the feed. onNew
// is called with each batch of events not seen before. The loop stops when
// the component unmounts.
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
    const take = (page: EventPage) => {
      setStatus('live');
      if (typeof page.cursor === 'number') cursor.current = page.cursor;
      add(page.events ?? []);
    };
    (async () => {
      let failures = 0;
      let streamTries = typeof EventSource === 'undefined' ? 0 : STREAM_TRIES;
      while (!signal.aborted) {
        const started = Date.now();
        try {
          if (streamTries > 0) {
            const ended = await streamUntilEnd(sessionId, cursor.current, signal, take);
            if (signal.aborted) return;
            if (ended.refused) throw ended.refused;
            streamTries = ended.delivered ? STREAM_TRIES : streamTries - 1;
            // Why did it end? The same read a reload makes answers that
            // (a refusal, or a failure to retry), and catches up.
            take(await listEvents(sessionId, cursor.current, signal));
            failures = 0;
            if (Date.now() - started < SHORT_STREAM_MS) await sleep(SHORT_STREAM_MS, signal);
            continue;
          }
          const page = await waitEvents(sessionId, cursor.current, WAIT_TIMEOUT_S, signal);
          if (signal.aborted) return;
          failures = 0;
          take(page);
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
