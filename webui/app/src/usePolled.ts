import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError } from './api';

export const POLL_INTERVAL_MS = 2000;

export interface Polled<T> {
  // data is the latest good answer; it stays shown while a later poll fails.
  data: T | null;
  // error is the code of the last failed load (cleared by the next success).
  error: string | null;
  loading: boolean;
  reload: () => void;
  // set replaces the data with the answer of an action (newer than any poll in flight).
  set: (data: T) => void;
}

function isVisible() {
  return typeof document === 'undefined' || document.visibilityState !== 'hidden';
}

// usePolled loads on mount and then every intervalMs while the page is
// visible. A poll that started before a set() is dropped, so an action's
// fresher answer is never overwritten by an older read.
export function usePolled<T>(
  load: (signal: AbortSignal) => Promise<T>,
  intervalMs: number = POLL_INTERVAL_MS,
): Polled<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [attempt, setAttempt] = useState(0);
  const generation = useRef(0);

  // a new source (or a reload) starts empty; a new interval keeps what is shown
  useEffect(() => {
    setData(null);
    setError(null);
    setLoading(true);
  }, [load, attempt]);

  useEffect(() => {
    let ctrl: AbortController | null = null;
    let stopped = false;

    const run = () => {
      if (stopped || ctrl) return;
      const mine = new AbortController();
      ctrl = mine;
      const gen = generation.current;
      load(mine.signal).then(
        (d) => {
          if (mine.signal.aborted) return;
          ctrl = null;
          if (gen === generation.current) {
            setData(d);
            setError(null);
          }
          setLoading(false);
        },
        (e: unknown) => {
          if (mine.signal.aborted) return;
          ctrl = null;
          if (gen === generation.current) setError(e instanceof ApiError ? e.code : '');
          setLoading(false);
        },
      );
    };

    run();
    const timer = setInterval(() => {
      if (isVisible()) run();
    }, intervalMs);
    const onVisible = () => {
      if (isVisible()) run();
    };
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      stopped = true;
      clearInterval(timer);
      document.removeEventListener('visibilitychange', onVisible);
      ctrl?.abort();
    };
  }, [load, intervalMs, attempt]);

  const reload = useCallback(() => setAttempt((n) => n + 1), []);
  const set = useCallback((d: T) => {
    generation.current += 1;
    setData(d);
    setError(null);
  }, []);
  return { data, error, loading, reload, set };
}
