/**
 * Closing what a spec opened, in after/afterEach: every closer runs whatever the others did, so one that throws (or
 * finds its server never started because a before hook failed) leaves nothing else open to keep mocha from ending;
 * the first failure is thrown once all have run.
 */
export async function closeAll(...closers: Array<() => unknown>): Promise<void> {
  const failures: unknown[] = [];
  for (const close of closers) {
    try {
      await close();
    } catch (error) {
      failures.push(error);
    }
  }
  if (failures.length > 0) throw failures[0];
}

/** Each of `things` closed by `close`, whatever the others did (as closeAll does). */
export function eachOf<T>(things: Iterable<T>, close: (thing: T) => unknown): Array<() => unknown> {
  return [...things].map((thing) => () => close(thing));
}
