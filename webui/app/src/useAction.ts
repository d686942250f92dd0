import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError } from './api';

export interface Action {
  busy: boolean;
  // error is the stable code of the last failed action ('' = unknown); null when none.
  error: string | null;
  fields: Record<string, unknown>;
  details: Record<string, unknown>;
  // run performs fn, records its error code, and resolves with fn's result (undefined on failure).
  run: <R>(fn: () => Promise<R>) => Promise<R | undefined>;
  clear: () => void;
}

// useAction tracks one kind of user action: busy flag and the translated-later error code.
export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [fields, setFields] = useState<Record<string, unknown>>({});
  const [details, setDetails] = useState<Record<string, unknown>>({});
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  const run = useCallback(async <R,>(fn: () => Promise<R>): Promise<R | undefined> => {
    setBusy(true);
    setError(null);
    setFields({});
    setDetails({});
    try {
      const r = await fn();
      return r;
    } catch (e) {
      if (mounted.current) {
        setError(e instanceof ApiError ? e.code : '');
        setFields(e instanceof ApiError ? e.fields : {});
        setDetails(e instanceof ApiError ? e.details : {});
      }
      return undefined;
    } finally {
      if (mounted.current) setBusy(false);
    }
  }, []);
  const clear = useCallback(() => {
    setError(null);
    setFields({});
    setDetails({});
  }, []);
  return { busy, error, fields, details, run, clear };
}
