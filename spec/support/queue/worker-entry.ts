/**
 * A queue-mode worker as a process of its own (the crash spec SIGKILLs it). Its executor works a few milliseconds
 * per run, then appends the run's call id to COMPLETION_LOG: appendFileSync has written the line before the
 * executor returns, so a SIGKILL right after still leaves it in the file, and the spec sees every completed run.
 */
import { appendFileSync } from 'node:fs';
import { createWebhookWorker } from 'workflow-webhooks/queue';
import { countingLogger, hostClient, type SentinelAddress } from './web.js';

/** One line of a completion log. */
export interface CompletionLine {
  callId: string;
  jobId: string;
  attempt: number;
  worker: string;
}

const log = process.env.COMPLETION_LOG as string;
const name = process.env.WORKER_NAME ?? 'worker';
const workMs = Number(process.env.WORK_MS ?? 5);
const client = hostClient(process.env.REDIS_URL as string, process.env.SENTINEL === undefined ? undefined : JSON.parse(process.env.SENTINEL) as SentinelAddress);

const worker = createWebhookWorker({
  connection: client,
  name: process.env.QUEUE_NAME,
  concurrency: Number(process.env.CONCURRENCY ?? 10),
  // Short, so a dead worker's runs go to another one within the test rather than after 30 s.
  lockDurationMs: Number(process.env.LOCK_MS ?? 2000),
  stalledIntervalMs: Number(process.env.STALLED_MS ?? 1000),
  // Generous: a loaded CI machine can starve a live worker's lock renewal; such a run must run again, not fail.
  maxStalledCount: 10,
  logger: countingLogger(),
  executor: async (run) => {
    await new Promise((resolve) => setTimeout(resolve, workMs));
    const line: CompletionLine = { callId: run.callId, jobId: run.jobId, attempt: run.attempt, worker: name };
    appendFileSync(log, `${JSON.stringify(line)}\n`);
    return { items: [{ json: { done: run.callId } }] };
  },
});
await worker.ready();
process.on('disconnect', () => { void worker.close({ timeoutMs: 1000 }).finally(() => process.exit(0)); });
process.send?.({ type: 'ready' });
