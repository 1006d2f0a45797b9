/**
 * Typed lifecycle events of every call, through the one `onEvent` option, so hosts can log and measure without
 * patching the middleware. A listener that throws is ignored: observing a call never breaks it.
 */
import type { WebhookError, WebhookErrorCode } from './errors.js';
import type { WebhookKind } from './types.js';

interface CallEvent {
  /** Correlates the events of one call: the request id, else a new UUID (also `run.callId`). */
  callId: string;
  /** Milliseconds since the call arrived. */
  durationMs: number;
}

interface WorkflowEvent extends CallEvent {
  workflowId: string;
  nodeName: string;
  mode: WebhookKind;
}

/** The workflow a call reached, once the address matched. */
interface Workflow {
  workflowId?: string;
  nodeName?: string;
}

export type WebhookEvent =
  /** A request to a webhook address was matched (or not: then no workflow fields). */
  | (CallEvent & Workflow & { type: 'received'; method: string; path: string })
  /** The call was answered with an error before any workflow ran (404, 405, 400, 413, 503, …). */
  | (CallEvent & Workflow & { type: 'rejected'; code: WebhookErrorCode; status: number; error: WebhookError })
  /**
   * Queue mode: the run was stored as a job (`duplicate`: the call repeats one stored before, by its idempotency
   * key, and was not stored again). An onReceived call is answered from here on.
   */
  | (WorkflowEvent & { type: 'enqueued'; jobId: string; duplicate: boolean })
  /** The executor is about to run. */
  | (WorkflowEvent & { type: 'started' })
  /** The executor resolved with items. */
  | (WorkflowEvent & { type: 'executed'; items: number })
  /** The executor failed (threw, rejected, returned no items array, or never called respond()). */
  | (WorkflowEvent & { type: 'failed'; error: WebhookError })
  /**
   * Waiting webhooks: a run began waiting at its resume address (`inRun`: `waitForCall()`; `suspended`: `suspend()`);
   * a call resumed it (an event of that call); the address expired with nobody calling. `nodeName` is the wait's.
   */
  | (WorkflowEvent & { type: 'waiting'; waitId: string; form: 'inRun' | 'suspended'; expiresAt: number })
  | (WorkflowEvent & { type: 'resumed'; waitId: string; form: 'inRun' | 'suspended' })
  | (WorkflowEvent & { type: 'expired'; waitId: string; form: 'inRun' | 'suspended' })
  /** The response deadline passed before the workflow answered. */
  | (WorkflowEvent & { type: 'timedOut' })
  /**
   * The last event of a call: its connection is done and its run settled (or was stopped). `status` is what was
   * really sent, undefined when no answer went out; `completed` says whether the answer reached its end.
   */
  | (CallEvent & { type: 'responded'; status: number | undefined; completed: boolean });

export type WebhookEventListener = (event: WebhookEvent) => void;

type Omitted = 'callId' | 'durationMs';
/** Distributes Omit over the union, so each event keeps its own fields. */
export type EventInput = WebhookEvent extends infer E ? (E extends WebhookEvent ? Omit<E, Omitted> : never) : never;

export interface CallEvents {
  /** Whether anyone listens: without a listener, callers skip building events at all. */
  readonly active: boolean;
  emit(event: EventInput): void;
}

/** Without a listener, every call shares events that do nothing (no work per request). */
const SILENT: CallEvents = Object.freeze({ active: false, emit: (): void => undefined });

/** The events of one call, each with the call's id and its time since the call arrived. */
export function callEvents(listener: WebhookEventListener | undefined, callId: string): CallEvents {
  if (listener === undefined) return SILENT;
  const started = performance.now();
  return {
    active: true,
    emit(event) {
      try {
        listener({ ...event, callId, durationMs: performance.now() - started } as WebhookEvent);
      } catch {
        // A failing listener must not change the answer of the call it observes.
      }
    },
  };
}
