/**
 * Turns the middleware's events into recent-call records: a call's `received` event opens its record, a refusal or
 * a failure adds its code, and its last event (`responded`) closes it and appends it to the call log. Calls under
 * way are bounded, so a host whose calls never end cannot grow this map without limit.
 */
import type { WebhookEvent } from '../../core/events.js';
import { PayloadInvalidError } from '../../core/errors.js';
import type { PayloadProblem } from '../../core/schemas.js';
import type { WebhookMiddlewareSettings } from '../../core/types.js';
import type { CallRecord } from '../protocol.js';

const MAX_UNDER_WAY = 10_000;

export interface CallRecorderOptions {
  settings: WebhookMiddlewareSettings;
  instance: string | undefined;
  /** Gets each finished call; it must not throw. */
  finished: (call: CallRecord) => void;
}

export class CallRecorder {
  readonly #options: CallRecorderOptions;
  readonly #underWay = new Map<string, CallRecord>();

  constructor(options: CallRecorderOptions) {
    this.#options = options;
  }

  /** The middleware's listener (`middleware.subscribe(recorder.onEvent)`). */
  readonly onEvent = (event: WebhookEvent): void => {
    switch (event.type) {
      case 'received':
        this.#open(event);
        break;
      case 'rejected':
      case 'failed':
        this.#failed(event.callId, event.error.code, event.error.message, event.error instanceof PayloadInvalidError ? event.error.errors : undefined);
        break;
      case 'timedOut':
        this.#failed(event.callId, 'WORKFLOW_TIMEOUT', 'The workflow did not answer before the response deadline.');
        break;
      case 'responded':
        this.#close(event.callId, event.status, event.durationMs);
        break;
      default:
        break;
    }
  };

  #open(event: Extract<WebhookEvent, { type: 'received' }>): void {
    const { settings } = this.#options;
    const prefix = event.kind === 'production' ? settings.productionPrefix : event.kind === 'test' ? settings.testPrefix : settings.waitingPrefix;
    const record: CallRecord = {
      callId: event.callId, at: Date.now() - Math.round(event.durationMs), method: event.method, path: `/${prefix}/${event.path}`, durationMs: 0,
    };
    if (event.route !== undefined) record.route = event.route;
    if (event.workflowId !== undefined) record.workflowId = event.workflowId;
    if (event.workflowName !== undefined) record.workflowName = event.workflowName;
    if (event.nodeName !== undefined) record.nodeName = event.nodeName;
    if (event.mode !== undefined) record.mode = event.mode;
    if (this.#options.instance !== undefined) record.instance = this.#options.instance;
    if (this.#underWay.size >= MAX_UNDER_WAY) {
      // The oldest call still open is dropped from the log rather than letting the map grow.
      const oldest = this.#underWay.keys().next().value as string;
      this.#underWay.delete(oldest);
    }
    this.#underWay.set(event.callId, record);
  }

  #failed(callId: string, code: string, message: string, errors?: readonly PayloadProblem[]): void {
    const record = this.#underWay.get(callId);
    // The first failure is the cause; a later one (the answer after a stop) only repeats it.
    if (record === undefined || record.code !== undefined) return;
    record.code = code;
    record.message = message;
    if (errors !== undefined) record.errors = [...errors];
  }

  #close(callId: string, status: number | undefined, durationMs: number): void {
    const record = this.#underWay.get(callId);
    if (record === undefined) return;
    this.#underWay.delete(callId);
    record.durationMs = Math.round(durationMs * 10) / 10;
    if (status !== undefined) record.status = status;
    this.#options.finished(record);
  }
}
