/**
 * A web instance for the queue-mode benchmark: Express 5 with the middleware under /hooks and one POST webhook,
 * its runs executed in process (a no-op) or handed to the queue (`queue`), answering onReceived or lastNode.
 * Queue mode runs on the Redis of REDIS_URL, or on the PostgreSQL of DATABASE_URL. Reports its port over IPC, its CPU time when asked (µs per call), and its RSS (after a GC when asked) for the
 * waiting-jobs measurement. With BENCH_STAGES=1 a queue-mode instance also keeps every call's stage times and hands
 * them over when asked.
 */
import express from 'express';
import { createClient } from 'redis';
import { createWebhookMiddleware, MemoryWebhookRegistry, type WebhookExecutor } from 'workflow-webhooks';
import { createWebhookQueue } from 'workflow-webhooks/queue';
import { CallStages } from './call-stages.js';

const [where = 'inprocess', responseMode = 'onReceived'] = process.argv.slice(2);
const registry = new MemoryWebhookRegistry();
await registry.activate({
  workflowId: 'bench',
  nodes: [{ name: 'Webhook', parameters: { path: 'bench', httpMethod: 'POST', responseMode: responseMode as 'onReceived' | 'lastNode' } }],
});

const noOp: WebhookExecutor = (run) => ({ items: run.items });
let close = async (): Promise<void> => undefined;
let executor = noOp;
// BENCH_STAGES=1 (read once, here): every call's stage times are kept, for the stage table (bench/queue-stages.ts).
const stages = where === 'queue' && process.env.BENCH_STAGES === '1' ? new CallStages() : undefined;
if (where === 'queue') {
  // DATABASE_URL: queue mode on PostgreSQL (the stores benchmark); otherwise on the Redis of REDIS_URL.
  const connection = process.env.DATABASE_URL ?? createClient({ url: process.env.REDIS_URL }).on('error', () => undefined);
  // QUEUE_REPLICAS: replica acknowledgement (the `replicas` benchmark), 0 by default.
  const queue = createWebhookQueue({
    connection, name: process.env.QUEUE_NAME ?? 'bench', replicas: Number(process.env.QUEUE_REPLICAS ?? 0),
    ...(stages === undefined ? {} : { stageTimes: stages.queued }),
  });
  await queue.ready();
  executor = queue.executor;
  close = () => queue.close();
}

const app = express();
app.use('/hooks', createWebhookMiddleware(registry, executor, stages === undefined ? {} : { onEvent: stages.event }));
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.send?.({ type: 'ready', port: typeof address === 'object' && address !== null ? address.port : 0 });
});

process.on('message', (message: { type: string }) => {
  if (message.type === 'cpu') {
    // CPU time of this process (user + system, µs): per stored call it is steadier than req/s on a shared machine.
    const { user, system } = process.cpuUsage();
    process.send?.({ type: 'cpu', cpu: user + system });
  } else if (message.type === 'rss') {
    if (typeof globalThis.gc === 'function') globalThis.gc();
    process.send?.({ type: 'rss', rss: process.memoryUsage().rss });
  } else if (message.type === 'stages') {
    process.send?.({ type: 'stages', stages: stages?.take() ?? [] });
  } else if (message.type === 'stop') {
    server.close();
    server.closeAllConnections();
    void close().finally(() => process.exit(0));
  }
});
