// useCoalescedRun (src/useCoalesced.ts), the read loop of the roll board and
// the roll history: one run at a time, one more run for any triggers during a
// run, none after unmount.
import { act, cleanup, renderHook } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { useCoalescedRun, type Alive } from '../src/useCoalesced';

afterEach(cleanup);

// runs: each run waits until the test calls finish(); alive is what it saw then.
function gatedRun() {
  const started: { finish: () => Promise<void>; alive: Alive }[] = [];
  const run = (alive: Alive) =>
    new Promise<void>((resolve) => {
      started.push({
        alive,
        finish: () =>
          act(async () => {
            resolve();
          }),
      });
    });
  return { run, started };
}

describe('useCoalescedRun', () => {
  it('runs on mount; triggers during a run make exactly one more run, after it', async () => {
    const { run, started } = gatedRun();
    const { result } = renderHook(() => useCoalescedRun(run));
    expect(started).toHaveLength(1);
    act(() => {
      result.current.trigger();
      result.current.trigger();
      result.current.trigger();
    });
    expect(started).toHaveLength(1);
    await started[0]!.finish();
    expect(started).toHaveLength(2);
    await started[1]!.finish();
    expect(started).toHaveLength(2);
    act(() => result.current.trigger());
    expect(started).toHaveLength(3);
    await started[2]!.finish();
  });

  it('alive turns false on unmount and a pending trigger is not run', async () => {
    const { run, started } = gatedRun();
    const { result, unmount } = renderHook(() => useCoalescedRun(run));
    act(() => result.current.trigger());
    expect(result.current.alive.current).toBe(true);
    unmount();
    expect(started[0]!.alive.current).toBe(false);
    await started[0]!.finish();
    expect(started).toHaveLength(1);
  });
});
