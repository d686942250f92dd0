import { useCallback, useEffect, useRef, useState } from 'react';
import { useApi } from '../useApi';

// useDrawerData is the loading a play-screen drawer does (the story cards,
// the memory bank): it reads when the drawer opens (drawers are mounted only
// while open) and again when version changes (a turn ended while it was
// open); what is shown is kept while a reload runs, so nothing flickers and
// drafts being edited stay; and the drawer's close button takes the focus
// as it opens. get must be a module-level function (a new one each render
// would reload each render).
export function useDrawerData<T>(
  adventureId: number,
  version: string,
  get: (adventureId: number, signal: AbortSignal) => Promise<T>,
) {
  // version is only a reload trigger: a new value makes a new loader.
  const load = useCallback((signal: AbortSignal) => (void version, get(adventureId, signal)), [adventureId, version, get]);
  const [loaded, reload] = useApi(load);
  const [shown, setShown] = useState<T | null>(null);
  const close = useRef<HTMLButtonElement>(null);
  useEffect(() => close.current?.focus(), []);
  useEffect(() => {
    if (loaded.state === 'ok') setShown(loaded.data);
  }, [loaded]);
  return { loaded, reload, shown, setShown, close };
}
