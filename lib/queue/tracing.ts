/**
 * How a tracer follows a call from the web instance to the worker that runs it: storing a job is wrapped (the
 * tracer's span of the send, whose context travels in the job as `trace`), and so is each attempt on a worker (run
 * inside the context the job carries). `webhookTelemetry()` of `workflow-webhooks/opentelemetry` is one.
 */
import type { WebhookKind } from '../core/types.js';

/** W3C trace context headers (`traceparent`, `tracestate`) as stored in a job. */
export type TraceCarrier = Record<string, string>;

export interface EnqueuedJob {
  queue: string;
  workflowId: string;
  callId: string;
}

export interface ProcessedJob extends EnqueuedJob {
  jobId: string;
  nodeName: string;
  mode: WebhookKind;
  attempt: number;
  trace: TraceCarrier | undefined;
}

export interface QueueTelemetry {
  /** Wraps storing one job; `store` gets the trace context to keep with it, and resolves with the job's id. */
  enqueue<T extends { jobId: string }>(job: EnqueuedJob, store: (trace: TraceCarrier | undefined) => Promise<T>): Promise<T>;
  /** Wraps one attempt of a job on a worker. */
  process<T>(job: ProcessedJob, run: () => Promise<T>): Promise<T>;
}

/** Checked once, at the factory. */
export function resolveQueueTelemetry(value: QueueTelemetry | undefined, factory: string): QueueTelemetry | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || typeof value.enqueue !== 'function' || typeof value.process !== 'function') {
    throw new TypeError(`workflow-webhooks/queue: option telemetry of ${factory} must have enqueue() and process() (webhookTelemetry() of workflow-webhooks/opentelemetry).`);
  }
  return value;
}
