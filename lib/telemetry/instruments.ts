/**
 * The metrics of webhook calls and runs, created once per telemetry object: names, units and attribute keys follow
 * OpenTelemetry's semantic conventions for HTTP servers where one applies (`http.request.method`,
 * `http.response.status_code`, `http.route`, `error.type`, durations in seconds, sizes in bytes).
 */
import type { Attributes, Counter, Histogram, Meter, UpDownCounter } from '@opentelemetry/api';

/** Seconds: the HTTP conventions' boundaries, stretched to the minutes a workflow run may take. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 30, 60, 300];
const SIZE_BUCKETS = [0, 256, 1024, 4096, 16_384, 65_536, 262_144, 1_048_576, 4_194_304, 16_777_216, 67_108_864];

export const ATTRIBUTE = {
  method: 'http.request.method',
  status: 'http.response.status_code',
  statusClass: 'webhook.response.status_class',
  route: 'http.route',
  errorType: 'error.type',
  workflowId: 'webhook.workflow.id',
  workflowName: 'webhook.workflow.name',
  node: 'webhook.node.name',
  mode: 'webhook.mode',
  responseMode: 'webhook.response_mode',
  callId: 'webhook.call.id',
  outcome: 'webhook.run.outcome',
  jobId: 'messaging.message.id',
  attempt: 'webhook.job.attempt',
} as const;

export interface Instruments {
  /** Calls answered, by workflow, method, status class, error code and mode. */
  calls: Counter;
  /** From a call's arrival until its answer is sent and its run (if any) has ended. */
  callDuration: Histogram;
  /** One run of a workflow: in process, or one attempt of a job on a worker. */
  runDuration: Histogram;
  runsActive: UpDownCounter;
  bodySize: Histogram;
}

export function createInstruments(meter: Meter): Instruments {
  return {
    calls: meter.createCounter('webhook.calls', { unit: '{call}', description: 'Webhook calls answered.' }),
    callDuration: meter.createHistogram('webhook.call.duration', {
      unit: 's', description: 'Time from a webhook call\'s arrival until it was answered and its run ended.',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    }),
    runDuration: meter.createHistogram('webhook.run.duration', {
      unit: 's', description: 'Time a workflow run took (in process, or one attempt on a queue worker).',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    }),
    runsActive: meter.createUpDownCounter('webhook.runs.active', { unit: '{run}', description: 'Workflow runs under way.' }),
    bodySize: meter.createHistogram('webhook.request.body.size', {
      unit: 'By', description: 'Size of webhook request bodies (their Content-Length).',
      advice: { explicitBucketBoundaries: SIZE_BUCKETS },
    }),
  };
}

/**
 * Counts a run as under way until the returned function says how it ended, then records its duration: the one way
 * both an in-process run and a worker's attempt are measured.
 */
export function runStarted(instruments: Instruments, attributes: Attributes): (outcome: 'executed' | 'failed') => void {
  const startedAt = performance.now();
  instruments.runsActive.add(1, attributes);
  return (outcome) => {
    instruments.runsActive.add(-1, attributes);
    instruments.runDuration.record((performance.now() - startedAt) / 1000, { ...attributes, [ATTRIBUTE.outcome]: outcome });
  };
}

/** `2xx`, `4xx`, …; `none` when no answer went out (the caller left first). */
export function statusClass(status: number | undefined): string {
  return status === undefined ? 'none' : `${Math.floor(status / 100)}xx`;
}

/** Attributes without the undefined ones (an exporter would keep them as empty). */
export function defined(attributes: Record<string, string | number | boolean | undefined>): Attributes {
  const kept: Attributes = {};
  for (const key in attributes) if (attributes[key] !== undefined) kept[key] = attributes[key];
  return kept;
}
