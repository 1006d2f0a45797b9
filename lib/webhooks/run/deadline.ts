/**
 * The response deadline: a webhook that has not answered in time fails with 524 (configurable),
 * and the workflow's signal is aborted so the host can stop the work. The known platform's hosted offering cuts
 * calls at 100 s behind its proxy; here the middleware says so itself, with advice.
 */
import { WebhookError } from '../errors.js';

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

/**
 * Settles like `work`, or rejects with WORKFLOW_TIMEOUT once the deadline passes; then `onTimeout` runs (abort
 * the workflow) and whatever `work` settles with later is dropped.
 */
export function withDeadline<T>(work: Promise<T>, settings: DeadlineSettings, onTimeout: (error: WebhookError) => void): Promise<T> {
  if (!(settings.ms > 0) || settings.ms === Infinity) return work;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      const error = deadlineError(settings);
      onTimeout(error);
      reject(error);
    }, settings.ms);
    timer.unref();
    work.then(
      (value) => { clearTimeout(timer); resolve(value); },
      (error: unknown) => { clearTimeout(timer); reject(error as Error); },
    );
  });
}
