/**
 * `workflow-webhooks/opentelemetry`: traces and metrics of webhook calls through `@opentelemetry/api` (an optional
 * peer). No SDK is a dependency: the host registers its own, and with none the API's no-op costs nearly nothing.
 *
 * @example
 * const telemetry = webhookTelemetry();
 * app.use('/hooks', createWebhookMiddleware(registry, executor, { telemetry }));
 *
 * @module workflow-webhooks/opentelemetry
 */
import { createNoopMeter, metrics, ProxyTracerProvider, trace, type Meter, type MeterProvider, type TracerProvider } from '@opentelemetry/api';
import type { CallTelemetry, WebhookEvent } from '../core/events.js';
import type { EnqueuedJob, ProcessedJob, QueueTelemetry, TraceCarrier } from '../queue/tracing.js';
import { CallSpans } from './call-spans.js';
import { createInstruments } from './instruments.js';
import { JobSpans } from './job-spans.js';

export { ATTRIBUTE as TELEMETRY_ATTRIBUTES } from './instruments.js';
export type { QueueTelemetry, TraceCarrier } from '../queue/tracing.js';
export type { CallTelemetry } from '../core/events.js';

export interface WebhookTelemetryOptions {
  /** Default: the global one (`trace.getTracerProvider()`), the host's registered SDK or the API's no-op. */
  tracerProvider?: TracerProvider;
  /** Default: the global one (`metrics.getMeterProvider()`). */
  meterProvider?: MeterProvider;
}

/** The middleware's `telemetry` option, and the queue's and the worker's: one object for all three. */
export interface WebhookTelemetry extends CallTelemetry, QueueTelemetry {
  /** Calls begun and not yet answered (none once every call ended: nothing is kept after a call). */
  readonly openCalls: number;
}

const SCOPE = 'workflow-webhooks';
const VERSION = '0.1.0';

/**
 * Traces and metrics of every webhook call: a span per call named `webhook <METHOD> <address template>`, child of
 * the active span (the host's HTTP server span), with the workflow, node, mode, response mode, answer status and
 * error code, and the run's failure as its exception; the run executes with that span active. In queue mode, a
 * `send` span per job and a `process` span per attempt on a worker, in the same trace. Metrics: `webhook.calls`,
 * `webhook.call.duration`, `webhook.run.duration`, `webhook.runs.active`, `webhook.request.body.size`.
 */
export function webhookTelemetry(options: WebhookTelemetryOptions = {}): WebhookTelemetry {
  if (typeof options !== 'object' || options === null) throw new TypeError('workflow-webhooks/opentelemetry: webhookTelemetry() takes an options object.');
  const tracerProvider = options.tracerProvider ?? trace.getTracerProvider();
  const tracer = tracerProvider.getTracer(SCOPE, VERSION);
  const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(SCOPE, VERSION);
  const enabled = recordsAnything(tracerProvider, meter);
  const instruments = createInstruments(meter);
  const calls = new CallSpans(tracer, instruments);
  const jobs = new JobSpans(tracer, instruments);
  return {
    onEvent: (event: WebhookEvent) => calls.onEvent(event),
    within: <T>(callId: string, run: () => T): T => calls.within(callId, run),
    enqueue: <T extends { jobId: string }>(job: EnqueuedJob, store: (carrier: TraceCarrier | undefined) => Promise<T>) => jobs.enqueue(job, store),
    process: <T>(job: ProcessedJob, run: () => Promise<T>) => jobs.process(job, run),
    enabled,
    get openCalls() { return calls.open; },
  };
}

/**
 * Whether a call would record anything: no, while the meter is the API's no-op (fixed once a meter is got) and the
 * tracer provider is the global one with no SDK behind it yet (asked per call: an SDK may be registered later).
 */
function recordsAnything(provider: TracerProvider, meter: Meter): () => boolean {
  if (meter !== createNoopMeter() || !(provider instanceof ProxyTracerProvider)) return () => true;
  const unset = provider.getDelegate();
  if (unset.getTracer(SCOPE).startSpan('probe').isRecording()) return () => true;
  return () => provider.getDelegate() !== unset;
}
