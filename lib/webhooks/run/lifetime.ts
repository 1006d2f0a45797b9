/**
 * How long a run may hold its resources: until it settles or `maxRunMs` passes, whichever comes first. At the limit
 * the run is told to stop (run.signal) and what it held may be released, even if the executor never settles, so
 * hung runs cannot pile up temp files in any response mode.
 */
import { WebhookError } from '../errors.js';

export function runTooLong(maxRunMs: number): WebhookError {
  return new WebhookError('WORKFLOW_TIMEOUT', `The run did not finish within maxRunMs (${maxRunMs} ms) and was told to stop.`, {
    hint: 'run.signal is aborted at that point; stop the work when it fires. Raise maxRunMs for longer runs.',
  });
}

/** Resolves when `settled` does or the limit passes; `onLimit` runs only in the second case. */
export function runLifetime(settled: Promise<void>, maxRunMs: number, onLimit: () => void): Promise<void> {
  if (maxRunMs === Infinity) return settled;
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      onLimit();
      resolve();
    }, maxRunMs);
    timer.unref();
    void settled.then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
