import { useCallback, useEffect, useState } from 'react';
import { ApiError } from './api';

export type Loadable<T> =
  | { state: 'loading' }
  | { state: 'ok'; data: T }
  | { state: 'error'; code: string };

// useApi runs a GET on mount (and on reload()) and tracks its state.
export function useApi<T>(load: (signal: AbortSignal) => Promise<T>): [Loadable<T>, () => void] {
  const [result, setResult] = useState<Loadable<T>>({ state: 'loading' });
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    const ctrl = new AbortController();
    setResult({ state: 'loading' });
    load(ctrl.signal).then(
      (data) => {
        if (!ctrl.signal.aborted) setResult({ state: 'ok', data });
      },
      (e: unknown) => {
        if (!ctrl.signal.aborted) setResult({ state: 'error', code: e instanceof ApiError ? e.code : '' });
      },
    );
    return () => ctrl.abort();
  }, [load, attempt]);

  const reload = useCallback(() => setAttempt((n) => n + 1), []);
  return [result, reload];
}
