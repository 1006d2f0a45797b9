/**
 * Typed lifecycle events of every call, through the one `onEvent` option, so hosts can log and measure without
 * patching the middleware. A listener that throws is ignored: observing a call never breaks it.
 */
import type { WebhookError, WebhookErrorCode } from './errors.js';
import type { ResponseMode, WebhookKind } from './types.js';

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

/** What a matched call's `received` event adds: the address as registered, and what the node says of its answer. */
interface Matched {
  /** The address's template, low-cardinality for traces and metrics: `/webhook/orders/:orderId`, `/webhook-waiting/:waitId`. */
  route?: string;
  workflowName?: string;
  mode?: WebhookKind;
  responseMode?: ResponseMode;
  /** The request's Content-Length, when it has one. */
  bodyBytes?: number;
}

export type WebhookEvent =
  /**
   * A request to a webhook address was matched (or not: then no workflow fields). `path` is what follows the
   * prefix of its `kind` (production, test or waiting address), still percent-encoded, without the query, and with
   * a path parameter named like a credential (`reset/:token`) `[redacted]`.
   */
  | (CallEvent & Workflow & Matched & { type: 'received'; method: string; path: string; kind: WebhookKind | 'waiting' })
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
   * The call is over: its connection is done and its run settled or was told to stop. It is the call's last event,
   * except that a run told to stop which then fails with an error of its own (neither the stop reason nor an
   * AbortError) still reports `failed` after it. `status` is what was really sent, undefined when no answer went
   * out; `completed` says whether the answer reached its end.
   */
  | (CallEvent & { type: 'responded'; status: number | undefined; completed: boolean });

export type WebhookEventListener = (event: WebhookEvent) => void;

type Omitted = 'callId' | 'durationMs';
/** Distributes Omit over the union, so each event keeps its own fields. */
export type EventInput = WebhookEvent extends infer E ? (E extends WebhookEvent ? Omit<E, Omitted> : never) : never;

/**
 * A tracer of calls (the `telemetry` option; `workflow-webhooks/opentelemetry` makes one): it hears every event, and
 * runs each call's workflow inside the call's own context, so that what the workflow traces is a child of the call.
 */
export interface CallTelemetry {
  onEvent: WebhookEventListener;
  within<T>(callId: string, run: () => T): T;
  /** Whether it records anything now; asked once per call, and a call it would not record costs nothing more. */
  enabled?(): boolean;
}

export interface CallEvents {
  /** Whether anyone listens: without a listener, callers skip building events at all. */
  readonly active: boolean;
  emit(event: EventInput): void;
  /** Runs the call's workflow in the call's context (the telemetry's); without telemetry, just runs it. */
  within<T>(run: () => T): T;
}

const runDirectly = <T>(run: () => T): T => run();

/** Without a listener, every call shares events that do nothing (no work per request). */
export const NO_EVENTS: CallEvents = Object.freeze({ active: false, emit: (): void => undefined, within: runDirectly });

function bothListeners(first: WebhookEventListener, second: WebhookEventListener): WebhookEventListener {
  return (event) => {
    try {
      first(event);
    } finally {
      second(event);
    }
  };
}

/** The events of one call, each with the call's id and its time since the call arrived. */
export function callEvents(listener: WebhookEventListener | undefined, callId: string, given?: CallTelemetry): CallEvents {
  const telemetry = given === undefined || given.enabled?.() === false ? undefined : given;
  const heard = telemetry === undefined ? listener : listener === undefined ? telemetry.onEvent : bothListeners(telemetry.onEvent, listener);
  if (heard === undefined) return NO_EVENTS;
  const started = performance.now();
  return {
    active: true,
    emit(event) {
      // Every event is a fresh literal of its emitter: completed in place, as a copy would cost each call.
      const complete = event as WebhookEvent;
      complete.callId = callId;
      complete.durationMs = performance.now() - started;
      try {
        heard(complete);
      } catch {
        // A failing listener must not change the answer of the call it observes.
      }
    },
    within: telemetry === undefined ? runDirectly : (run) => telemetry.within(callId, run),
  };
}

/**
 * The middleware's listeners: its `onEvent` option, and any a tool subscribed later (`middleware.subscribe()`, as
 * the console does). `current` is undefined while nobody listens, so calls then build no events at all.
 */
export class EventHub {
  readonly #given: WebhookEventListener | undefined;
  readonly #subscribed = new Set<WebhookEventListener>();
  readonly #changed: (() => void)[] = [];
  current: WebhookEventListener | undefined;
  /** Hands each event to whoever listens now: for what keeps one listener for its whole life (the expiry sweep). */
  readonly relay: WebhookEventListener = (event) => { this.current?.(event); };

  constructor(given: WebhookEventListener | undefined) {
    this.#given = given;
    this.current = given;
  }

  /** Adds a listener; returns its unsubscribe. A listener that throws is ignored, as every listener is. */
  subscribe(listener: WebhookEventListener): () => void {
    if (typeof listener !== 'function') throw new TypeError('workflow-webhooks: subscribe() takes a function (event) => void.');
    const own = (event: WebhookEvent): void => listener(event);
    this.#subscribed.add(own);
    this.#recompute();
    return () => {
      if (this.#subscribed.delete(own)) this.#recompute();
    };
  }

  /** Runs `change` whenever anyone starts or stops listening. */
  onChange(change: () => void): void {
    this.#changed.push(change);
  }

  #recompute(): void {
    const all = [...(this.#given === undefined ? [] : [this.#given]), ...this.#subscribed];
    this.current = all.length === 0 ? undefined : all.length === 1 ? all[0] : (event) => {
      for (const listener of all) {
        try {
          listener(event);
        } catch {
          // One listener failing must not keep the event from the others.
        }
      }
    };
    for (const change of this.#changed) change();
  }
}
