/**
 * Queue mode's spans: the send of a job (a producer span, child of the call's) whose context the job carries, and
 * each attempt of it on a worker (a consumer span in that trace, so one trace follows the call from web instance to
 * worker), with the worker's run duration and runs under way.
 */
import { context, propagation, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import type { EnqueuedJob, ProcessedJob, QueueTelemetry, TraceCarrier } from '../queue/tracing.js';
import { ATTRIBUTE, defined, runStarted, type Instruments } from './instruments.js';

export class JobSpans implements QueueTelemetry {
  readonly #tracer: Tracer;
  readonly #instruments: Instruments;

  constructor(tracer: Tracer, instruments: Instruments) {
    this.#tracer = tracer;
    this.#instruments = instruments;
  }

  enqueue<T extends { jobId: string }>(job: EnqueuedJob, store: (trace: TraceCarrier | undefined) => Promise<T>): Promise<T> {
    const span = this.#tracer.startSpan(`send ${job.queue}`, {
      kind: SpanKind.PRODUCER,
      attributes: { 'messaging.operation.type': 'send', 'messaging.destination.name': job.queue, [ATTRIBUTE.workflowId]: job.workflowId, [ATTRIBUTE.callId]: job.callId },
    });
    const carrier: TraceCarrier = {};
    propagation.inject(trace.setSpan(context.active(), span), carrier);
    return store(Object.keys(carrier).length === 0 ? undefined : carrier).then((stored) => {
      span.setAttribute(ATTRIBUTE.jobId, stored.jobId);
      span.end();
      return stored;
    }, (error: unknown) => {
      span.recordException(error instanceof Error ? error : String(error));
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as { code?: string }).code ?? 'enqueue failed' });
      span.end();
      throw error;
    });
  }

  process<T>(job: ProcessedJob, run: () => Promise<T>): Promise<T> {
    const parent = job.trace === undefined ? context.active() : propagation.extract(context.active(), job.trace);
    // A child of the send (one trace), and linked to it too, as the messaging conventions link a process to its send.
    const sent = job.trace === undefined ? undefined : trace.getSpanContext(parent);
    const span = this.#tracer.startSpan(`process ${job.queue}`, {
      kind: SpanKind.CONSUMER,
      links: sent === undefined ? [] : [{ context: sent }],
      attributes: defined({
        'messaging.operation.type': 'process', 'messaging.destination.name': job.queue, [ATTRIBUTE.jobId]: job.jobId,
        [ATTRIBUTE.workflowId]: job.workflowId, [ATTRIBUTE.node]: job.nodeName, [ATTRIBUTE.mode]: job.mode,
        [ATTRIBUTE.callId]: job.callId, [ATTRIBUTE.attempt]: job.attempt,
      }),
    }, parent);
    const runEnded = runStarted(this.#instruments, { [ATTRIBUTE.workflowId]: job.workflowId, [ATTRIBUTE.mode]: job.mode });
    const ended = (outcome: 'executed' | 'failed'): void => {
      runEnded(outcome);
      span.end();
    };
    return context.with(trace.setSpan(parent, span), run).then((result) => {
      ended('executed');
      return result;
    }, (error: unknown) => {
      span.recordException(error instanceof Error ? error : String(error));
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      ended('failed');
      throw error;
    });
  }
}
