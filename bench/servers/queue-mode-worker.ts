/**
 * A worker for the queue-mode benchmark: a no-op executor, so what is measured is the queue's own cost.
 */
import { createClient } from 'redis';
import { createWebhookWorker } from 'workflow-webhooks/queue';

const client = createClient({ url: process.env.REDIS_URL });
client.on('error', () => undefined);
const worker = createWebhookWorker({
  connection: client,
  name: process.env.QUEUE_NAME ?? 'bench',
  concurrency: 20,
  executor: (run) => ({ items: run.items }),
});
await worker.ready();
process.send?.({ type: 'ready', port: 0 });
process.on('message', (message: { type: string }) => {
  if (message.type === 'stop') void worker.close({ timeoutMs: 2000 }).finally(() => process.exit(0));
});
