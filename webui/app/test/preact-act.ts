// Testing Library calls react-dom/test-utils' act; the tests run on Preact,
// whose act flushes renders and effects as soon as an async callback's
// promise settles. React's act goes on: it waits a task and flushes again
// until nothing is left, so the work a callback starts (a fetch answered by
// the stub server, the state set when it resolves) is on screen when act
// returns. This act keeps React's promise, on Preact.
import { setImmediate } from 'node:timers';
import { act as preactAct, setupRerender, teardown } from 'preact/test-utils';

// node:timers' own setImmediate: a test's fake timers replace the global one
const nextTask = () => new Promise<void>((resolve) => setImmediate(resolve));

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  value !== null && typeof value === 'object' && typeof (value as PromiseLike<unknown>).then === 'function';

export function act(callback: () => unknown): Promise<void> {
  return preactAct(() => {
    const result = callback();
    if (!isThenable(result)) return;
    return Promise.resolve(result).then(async () => {
      await nextTask();
    });
  });
}

export { setupRerender, teardown };
