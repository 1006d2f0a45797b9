/**
 * A queue-mode worker of the orders API, as its own process (`npm run start:queue` starts two): it runs the very
 * workflows the web instance serves, with the app's own executor, for the jobs the web instance stores.
 */
import { createWebhookQueue, createWebhookWorker } from 'workflow-webhooks/queue';
import type { WebhookExecutor } from 'workflow-webhooks';
import { createOrdersApp, EXAMPLE_WAITING_SECRET } from './app.js';
import { openSharedStore } from './shared-store.js';

const name = process.env.WORKER_NAME ?? `worker ${process.pid}`;
// The web instance's store (DATABASE_URL, or REDIS_URL): its registry, where a run that suspends (the approval
// workflow) stores its wait, for any instance; the queue is there too.
const opened = await openSharedStore(process.env);
if (opened === undefined) throw new Error('queue-worker.ts needs DATABASE_URL or REDIS_URL');
const store = opened;
const { registry } = store;
const connection = process.env.DATABASE_URL ?? (process.env.REDIS_URL as string);
const schema = process.env.DATABASE_URL === undefined ? {} : { schema: process.env.DATABASE_SCHEMA as string };
// Only to read report jobs' status (the long-work workflow); this process stores no job.
const jobs = createWebhookQueue({ connection, ...schema });
let own: WebhookExecutor | undefined;
await createOrdersApp({ activate: false, reportStepMs: Number(process.env.REPORT_STEP_MS ?? 1000), jobs, executor: (executor) => (own = executor) });
const executor = own as WebhookExecutor;
const worker = createWebhookWorker({
  connection,
  ...schema,
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
  await store.close();
  // Said once everything is closed: start:queue stops its redis-server only after every worker has.
  process.stdout.write(`${name} closed\n`);
  process.exit(0);
}
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
process.on('disconnect', () => void stop());
