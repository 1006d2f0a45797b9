/**
 * One span and the metrics of each webhook call, built from the middleware's events: the span starts when the call
 * arrived (child of whatever span is active then, the host's HTTP server span when it has one), gathers the run's
 * events, and ends with the answer; the workflow runs with the span active, so what it traces nests under it.
 */
import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span, type Tracer } from '@opentelemetry/api';
import type { WebhookEvent } from '../core/events.js';
import { ATTRIBUTE, defined, runStarted, statusClass, type Instruments } from './instruments.js';

/** What is kept of a call between its events. */
interface CallRecord {
  span: Span;
  context: Context;
  /** The metric attributes of the call, completed at its end. */
  attributes: Record<string, string | undefined>;
  bodyBytes: number | undefined;
  code: string | undefined;
  /** Ends the measure of its run; undefined while none runs. */
  runEnded: ((outcome: 'executed' | 'failed') => void) | undefined;
  runAttributes: Attributes;
  /** Queue mode: the run is a job, measured on the worker that takes it; the web instance only waits for it. */
  queued: boolean;
}

/** Calls whose end never came (it always does; this bounds the map if a host's server loses one). */
const MOST_OPEN_CALLS = 50_000;

const SPAN_EVENTS = new Set(['enqueued', 'timedOut', 'waiting', 'resumed', 'expired']);
/** HTTP's methods; any other is `_OTHER`, as the conventions say, so that a caller cannot grow the metrics' series. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH']);

export class CallSpans {
  readonly #tracer: Tracer;
  readonly #instruments: Instruments;
  readonly #calls = new Map<string, CallRecord>();

  constructor(tracer: Tracer, instruments: Instruments) {
    this.#tracer = tracer;
    this.#instruments = instruments;
  }

  /** How many calls are under way (for a test that nothing is kept after the calls end). */
  get open(): number {
    return this.#calls.size;
  }

  readonly onEvent = (event: WebhookEvent): void => {
    if (event.type === 'received') {
      this.#received(event);
      return;
    }
    const call = this.#calls.get(event.callId);
    if (call === undefined) return;
    switch (event.type) {
      case 'rejected':
        call.code = event.code;
        call.span.setAttribute(ATTRIBUTE.errorType, event.code);
        break;
      case 'started':
        if (!call.queued) call.runEnded = runStarted(this.#instruments, call.runAttributes);
        break;
      case 'executed':
        this.#runEnded(call, 'executed');
        break;
      case 'failed':
        call.code = event.error.code;
        call.span.recordException(event.error.cause instanceof Error ? event.error.cause : event.error);
        call.span.setAttribute(ATTRIBUTE.errorType, event.error.code);
        this.#runEnded(call, 'failed');
        break;
      case 'responded':
        this.#responded(call, event);
        break;
      default:
        if (event.type === 'enqueued') call.queued = true;
        if (SPAN_EVENTS.has(event.type)) call.span.addEvent(`webhook.${event.type}`, eventAttributes(event));
    }
  };

  /** Runs `work` with the call's span active. */
  within<T>(callId: string, work: () => T): T {
    const call = this.#calls.get(callId);
    return call === undefined ? work() : context.with(call.context, work);
  }

  #received(event: Extract<WebhookEvent, { type: 'received' }>): void {
    if (this.#calls.has(event.callId)) return;
    if (this.#calls.size >= MOST_OPEN_CALLS) this.#dropOldest();
    const given = event.method.toUpperCase();
    const method = METHODS.has(given) ? given : '_OTHER';
    const parent = context.active();
    const span = this.#tracer.startSpan(event.route === undefined ? `webhook ${method}` : `webhook ${method} ${event.route}`, {
      kind: SpanKind.INTERNAL,
      startTime: performance.timeOrigin + performance.now() - event.durationMs,
      attributes: defined({
        [ATTRIBUTE.method]: method,
        'http.request.method_original': given === method ? undefined : given,
        [ATTRIBUTE.route]: event.route,
        [ATTRIBUTE.workflowId]: event.workflowId,
        [ATTRIBUTE.workflowName]: event.workflowName,
        [ATTRIBUTE.node]: event.nodeName,
        [ATTRIBUTE.mode]: event.mode,
        [ATTRIBUTE.responseMode]: event.responseMode,
        [ATTRIBUTE.callId]: event.callId,
        'webhook.path': event.path,
      }),
    }, parent);
    const { mode } = event;
    const attributes = { [ATTRIBUTE.workflowId]: event.workflowId, [ATTRIBUTE.method]: method, [ATTRIBUTE.mode]: mode };
    this.#calls.set(event.callId, {
      span, context: trace.setSpan(parent, span), attributes, bodyBytes: event.bodyBytes, code: undefined, runEnded: undefined, queued: false,
      runAttributes: defined({ [ATTRIBUTE.workflowId]: event.workflowId, [ATTRIBUTE.mode]: mode }),
    });
  }

  #runEnded(call: CallRecord, outcome: 'executed' | 'failed'): void {
    call.runEnded?.(outcome);
    call.runEnded = undefined;
  }

  #responded(call: CallRecord, event: Extract<WebhookEvent, { type: 'responded' }>): void {
    this.#calls.delete(event.callId);
    // A run stopped without its own end (the caller left, the deadline passed) is no longer under way.
    this.#runEnded(call, 'failed');
    const { span } = call;
    if (event.status !== undefined) span.setAttribute(ATTRIBUTE.status, event.status);
    if (call.code !== undefined || (event.status !== undefined && event.status >= 400)) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: call.code ?? `HTTP ${event.status}` });
    }
    span.end();
    const attributes = defined({ ...call.attributes, [ATTRIBUTE.statusClass]: statusClass(event.status), [ATTRIBUTE.errorType]: call.code });
    this.#instruments.calls.add(1, attributes);
    this.#instruments.callDuration.record(event.durationMs / 1000, attributes);
    if (call.bodyBytes !== undefined) this.#instruments.bodySize.record(call.bodyBytes, defined({ [ATTRIBUTE.workflowId]: call.attributes[ATTRIBUTE.workflowId] }));
  }

  #dropOldest(): void {
    const [callId, call] = this.#calls.entries().next().value as [string, CallRecord];
    this.#calls.delete(callId);
    this.#runEnded(call, 'failed');
    call.span.end();
  }
}

function eventAttributes(event: WebhookEvent): Attributes {
  const { type: _type, callId: _callId, durationMs: _duration, ...rest } = event as WebhookEvent & Record<string, unknown>;
  return defined(Object.fromEntries(Object.entries(rest).filter(([, value]) => ['string', 'number', 'boolean'].includes(typeof value))) as Record<string, string | number | boolean>);
}
