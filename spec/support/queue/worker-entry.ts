/**
 * A queue-mode worker as a process of its own (the crash specs SIGKILL it), on REDIS_URL's Redis or, given
 * DATABASE_URL (a postgres:// URL), on PostgreSQL. Its executor appends a line to COMPLETION_LOG as a run begins,
 * works a few milliseconds, and appends the run's completion: appendFileSync has written each line before the
 * executor goes on, so a SIGKILL right after still leaves it in the file, and the spec sees every run begun and
 * every run completed, with their times (two runs of one call at once show as overlapping times).
 */
import { randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { createWebhookWorker } from 'workflow-webhooks/queue';
import { countingLogger, hostClient, type SentinelAddress } from './web.js';

/** One line of a completion log: a run as it begins (without endedAt), or as it completed (with it). */
export interface CompletionLine {
  callId: string;
  jobId: string;
  attempt: number;
  worker: string;
  /** This run's own id: its begin and completion lines share it. */
  runId: string;
  /** When the executor began and, on a completion, ended (Date.now() of this machine, shared by the processes). */
  startedAt: number;
  endedAt?: number;
}

const log = process.env.COMPLETION_LOG as string;
const name = process.env.WORKER_NAME ?? 'worker';
const workMs = Number(process.env.WORK_MS ?? 5);
const connection = process.env.DATABASE_URL ?? hostClient(process.env.REDIS_URL as string, process.env.SENTINEL === undefined ? undefined : JSON.parse(process.env.SENTINEL) as SentinelAddress);

const worker = createWebhookWorker({
  connection,
  name: process.env.QUEUE_NAME,
  concurrency: Number(process.env.CONCURRENCY ?? 10),
  // Short, so a dead worker's runs go to another one within the test rather than after 30 s.
  lockDurationMs: Number(process.env.LOCK_MS ?? 2000),
  stalledIntervalMs: Number(process.env.STALLED_MS ?? 1000),
  // Generous: a loaded CI machine can starve a live worker's lock renewal; such a run must run again, not fail.
  maxStalledCount: 10,
  logger: countingLogger(),
  executor: async (run) => {
    const begun: CompletionLine = { callId: run.callId, jobId: run.jobId, attempt: run.attempt, worker: name, runId: randomUUID(), startedAt: Date.now() };
    appendFileSync(log, `${JSON.stringify(begun)}\n`);
    await new Promise((resolve) => setTimeout(resolve, workMs));
    appendFileSync(log, `${JSON.stringify({ ...begun, endedAt: Date.now() })}\n`);
    return { items: [{ json: { done: run.callId } }] };
  },
});
await worker.ready();
process.on('disconnect', () => { void worker.close({ timeoutMs: 1000 }).finally(() => process.exit(0)); });
process.send?.({ type: 'ready' });
