/**
 * A worker for the queue-mode benchmark: a no-op executor, so what is measured is the queue's own cost.
 * Its queue is on the PostgreSQL of DATABASE_URL, or the Redis of REDIS_URL. QUEUE_CONCURRENCY sets its concurrency (20 by default); it reports its CPU time when asked (µs per job).
 */
import { createClient } from 'redis';
import { createWebhookWorker } from 'workflow-webhooks/queue';

// DATABASE_URL: the queue on PostgreSQL; otherwise on the Redis of REDIS_URL.
const connection = process.env.DATABASE_URL ?? createClient({ url: process.env.REDIS_URL }).on('error', () => undefined);
const worker = createWebhookWorker({
  connection,
  name: process.env.QUEUE_NAME ?? 'bench',
  concurrency: Number(process.env.QUEUE_CONCURRENCY ?? 20),
  executor: (run) => ({ items: run.items }),
});
await worker.ready();
process.send?.({ type: 'ready', port: 0 });
process.on('message', (message: { type: string }) => {
  if (message.type === 'cpu') {
    const { user, system } = process.cpuUsage();
    process.send?.({ type: 'cpu', cpu: user + system });
  } else if (message.type === 'stop') {
    void worker.close({ timeoutMs: 2000 }).finally(() => process.exit(0));
  }
});
