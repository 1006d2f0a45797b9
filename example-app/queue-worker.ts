/**
 * A queue-mode worker of the orders API, as its own process (`npm run start:queue` starts two): it runs the very
 * workflows the web instance serves, with the app's own executor, for the jobs the web instance stores.
 */
import { createClient } from 'redis';
import { createWebhookQueue, createWebhookWorker } from 'workflow-webhooks/queue';
import { RedisWebhookRegistry } from 'workflow-webhooks/redis';
import type { WebhookExecutor } from 'workflow-webhooks';
import { createOrdersApp, EXAMPLE_WAITING_SECRET } from './app.js';

const url = process.env.REDIS_URL as string;
const name = process.env.WORKER_NAME ?? `worker ${process.pid}`;
const client = createClient({ url });
// The queue's own connections and the registry log their outages.
client.on('error', () => undefined);
await client.connect();
// The web instance's registry: a run that suspends (the approval workflow) stores its wait there, for any instance.
const registry = new RedisWebhookRegistry({ client, prefix: process.env.REDIS_PREFIX as string });
await registry.ready();
// Only to read report jobs' status (the long-work workflow); this process stores no job.
const jobs = createWebhookQueue({ connection: client });
let own: WebhookExecutor | undefined;
await createOrdersApp({ activate: false, reportStepMs: Number(process.env.REPORT_STEP_MS ?? 1000), jobs, executor: (executor) => (own = executor) });
const executor = own as WebhookExecutor;
const worker = createWebhookWorker({
  connection: client,
  concurrency: 5,
  // Each run says where it ran: the answers of lastNode workflows carry it.
  executor: async (run) => {
    const result = await executor(run);
    return { ...result, items: result.items.map((item) => ({ ...item, json: { ...item.json, ranOn: name } })) };
  },
  // Resume addresses are the web instance's: its registry, its secret, its public address.
  waiting: { registry, waitingSecret: EXAMPLE_WAITING_SECRET, publicUrl: process.env.PUBLIC_URL as string },
});
await worker.ready();
process.send?.({ type: 'ready' });

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  // Runs under way get 5 s; past that another worker runs them again.
  await worker.close({ timeoutMs: 5000 });
  await jobs.close();
  await registry.close();
  client.destroy();
  // Said once everything is closed: start:queue stops its redis-server only after every worker has.
  process.stdout.write(`${name} closed\n`);
  process.exit(0);
}
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
process.on('disconnect', () => void stop());
