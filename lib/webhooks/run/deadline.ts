/**
 * The response deadline: a webhook that has not answered in time fails with 524 (configurable),
 * and the workflow's signal is aborted so the host can stop the work. The known platform's hosted offering cuts
 * calls at 100 s behind its proxy; here the middleware says so itself, with advice.
 */
import { WebhookError } from '../../core/errors.js';

export interface DeadlineSettings {
  /** 0 or Infinity: no deadline. */
  ms: number;
  status: number;
}

export function deadlineError(settings: DeadlineSettings): WebhookError {
  return new WebhookError('WORKFLOW_TIMEOUT', `The workflow did not respond within ${settings.ms / 1000} seconds.`, {
    hint: 'For long work, answer at once (responseMode "onReceived", or respond() early with an id) and let the caller ' +
      'poll a second webhook for the status and the result.',
    status: settings.status,
  });
}

/** Where the middleware says it stopped the call (shutdown, maxRunMs): the wait for the answer listens there. */
export interface StopSlot {
  onStop: ((reason: WebhookError) => void) | undefined;
}

/**
 * Settles like `work`, or rejects with WORKFLOW_TIMEOUT once the deadline passes (then `onTimeout` runs: abort the
 * workflow), or with the middleware's reason once it stops the call. Whatever `work` settles with later is dropped.
 */
export function withDeadline<T>(work: Promise<T>, settings: DeadlineSettings, stops: StopSlot, onTimeout: (error: WebhookError) => void): Promise<T> {
  const timed = settings.ms > 0 && settings.ms !== Infinity;
  return new Promise<T>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const settle = (): void => {
      clearTimeout(timer);
      stops.onStop = undefined;
    };
    stops.onStop = (reason) => { settle(); reject(reason); };
    if (timed) {
      timer = setTimeout(() => {
        settle();
        const error = deadlineError(settings);
        onTimeout(error);
        reject(error);
      }, settings.ms);
      timer.unref();
    }
    work.then(
      (value) => { settle(); resolve(value); },
      (error: unknown) => { settle(); reject(error as Error); },
    );
  });
}
