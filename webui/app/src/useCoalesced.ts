import { useCallback, useEffect, useRef } from 'react';

// Alive reads false once the component that holds it is unmounted.
export interface Alive {
  readonly current: boolean;
}

export interface Coalesced {
  // trigger starts run unless one is under way; called during a run, it makes
  // one more run once that run is done (however often it was called), so the
  // newest state wins. It changes only when run does.
  trigger: () => void;
  // alive turns false when the component unmounts: a run, or any other read
  // of the caller, checks it after each await before it sets state.
  alive: Alive;
}

// useCoalescedRun runs run on mount, again each time run changes (make it a
// useCallback on what it reads), and on trigger(). Runs never overlap. run is
// handed alive and settles its own errors.
export function useCoalescedRun(run: (alive: Alive) => Promise<void>): Coalesced {
  const busy = useRef(false);
  const again = useRef(false);
  const alive = useRef(true);

  const trigger = useCallback(() => {
    if (busy.current) {
      again.current = true;
      return;
    }
    busy.current = true;
    void (async () => {
      try {
        do {
          again.current = false;
          await run(alive);
        } while (again.current && alive.current);
      } finally {
        busy.current = false;
      }
    })();
  }, [run]);

  useEffect(() => {
    alive.current = true;
    trigger();
    return () => {
      alive.current = false;
    };
  }, [trigger]);

  return { trigger, alive };
}
