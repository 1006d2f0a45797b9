/**
 * Fake timers for the specs of a timeout: setTimeout and clearTimeout only unless a spec names more (sockets,
 * setImmediate and mocha's own timers stay real), so a spec moves the clock to just before and to the timeout and
 * sees what happened, with no wall-clock duration in the assertion (issue 43: durations belong in bench/).
 */
import { install, type Clock } from '@sinonjs/fake-timers';

export type InstalledClock = Clock;

/** What a spec may fake: the timers, and the clocks code reads (a body's sweep reads Date.now() at its interval). */
export type Faked = 'setTimeout' | 'clearTimeout' | 'setInterval' | 'clearInterval' | 'Date' | 'performance';

/** Runs `work` with faked setTimeout/clearTimeout (or the given `toFake`), uninstalled after it whatever happens. */
export async function withFakeTimers<T>(work: (clock: InstalledClock) => Promise<T>, toFake: Faked[] = ['setTimeout', 'clearTimeout']): Promise<T> {
  const clock = install({ toFake });
  try {
    return await work(clock);
  } finally {
    clock.uninstall();
  }
}

/**
 * Waits until `probe` holds, polling on setImmediate (setTimeout is fake while the clock is installed, so the other
 * `eventually` helpers would never wake); throws after `limitMs` of real time.
 */
export async function until(probe: () => boolean, what: string, limitMs = 2000): Promise<void> {
  const end = performance.now() + limitMs;
  while (!probe()) {
    if (performance.now() > end) throw new Error(`not so within ${limitMs} ms: ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Waits until the code under test has armed `count` fake timers. */
export async function timersArmed(clock: InstalledClock, count: number): Promise<void> {
  await until(() => clock.countTimers() >= count, `${count} timer(s) set`);
}

/** A promise's state as the spec sees it after the clock moved: undefined while pending, else its value or error. */
export function watched<T>(promise: Promise<T>): { settled: boolean; value?: T; error?: unknown } {
  const state: { settled: boolean; value?: T; error?: unknown } = { settled: false };
  promise.then((value) => { state.settled = true; state.value = value; }, (error: unknown) => { state.settled = true; state.error = error; });
  return state;
}
