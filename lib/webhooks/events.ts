/**
 * Typed lifecycle events of every call, through the one `onEvent` option, so hosts can log and measure without
 * patching the middleware. A listener that throws is ignored: observing a call never breaks it.
 */
import type { WebhookError, WebhookErrorCode } from './errors.js';
import type { WebhookKind } from './types.js';

interface CallEvent {
  /** Correlates the events of one call. */
  callId: string;
  /** Milliseconds since the call arrived. */
  durationMs: number;
}

interface WorkflowEvent extends CallEvent {
  workflowId: string;
  nodeName: string;
  mode: WebhookKind;
}

export type WebhookEvent =
  /** A request reached a webhook prefix. */
  | (CallEvent & { type: 'received'; method: string; path: string })
  /** The call was answered with an error before any workflow ran (404, 405, 400, 413, …). */
  | (CallEvent & { type: 'rejected'; code: WebhookErrorCode; status: number })
  /** The executor is about to run. */
  | (WorkflowEvent & { type: 'started' })
  /** The executor resolved with items. */
  | (WorkflowEvent & { type: 'executed'; items: number })
  /** The executor failed (threw, rejected, returned no items array, or never called respond()). */
  | (WorkflowEvent & { type: 'failed'; error: WebhookError })
  /** The response deadline passed before the workflow answered. */
  | (WorkflowEvent & { type: 'timedOut' })
  /** The answer was written completely (or the connection ended). */
  | (CallEvent & { type: 'responded'; status: number; completed: boolean });

export type WebhookEventListener = (event: WebhookEvent) => void;

type Omitted = 'callId' | 'durationMs';
/** Distributes Omit over the union, so each event keeps its own fields. */
export type EventInput = WebhookEvent extends infer E ? (E extends WebhookEvent ? Omit<E, Omitted> : never) : never;

export interface CallEvents {
  readonly callId: string;
  emit(event: EventInput): void;
}

let counter = 0;
const SILENT: CallEvents = Object.freeze({ callId: '', emit: () => undefined });

/** The events of one call; without a listener, one shared object that does nothing (no work per request). */
export function callEvents(listener: WebhookEventListener | undefined): CallEvents {
  if (listener === undefined) return SILENT;
  counter = (counter + 1) % Number.MAX_SAFE_INTEGER;
  const callId = `${process.pid.toString(36)}-${counter.toString(36)}`;
  const started = performance.now();
  return {
    callId,
    emit(event) {
      try {
        listener({ ...event, callId, durationMs: performance.now() - started } as WebhookEvent);
      } catch {
        // A failing listener must not change the answer of the call it observes.
      }
    },
  };
}
