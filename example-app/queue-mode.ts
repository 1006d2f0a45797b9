/**
 * `npm run start:queue`: the orders API in queue mode. It starts a redis-server of its own (or, with DATABASE_URL,
 * keeps everything in that PostgreSQL database and needs no Redis), two worker processes
 * (example-app/queue-worker.ts) and, in this process, the web instance: the same app, whose webhook calls become
 * BullMQ jobs the workers run, with bull-board at /admin/queues to watch them. Ctrl-C stops all of it, in order: the
 * web instance, then the workers, then redis-server, each still having what it needs while it closes.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { WebhookMiddleware } from 'workflow-webhooks';
import { createWebhookQueue } from 'workflow-webhooks/queue';
import { createOrdersApp } from './app.js';
import { openQueueStore, type QueueStore } from './queue-store.js';

const port = Number(process.env.PORT ?? 3000);
const print = (line: string): void => { process.stdout.write(`${line}\n`); };
const workerPath = fileURLToPath(new URL('./queue-worker.ts', import.meta.url));

let store: QueueStore;
try {
  store = await openQueueStore(process.env);
} catch (error) {
  process.stderr.write(`Could not open the queue's store: ${(error as Error).message}\n`);
  process.exit(1);
}

const workerEnv = { ...store.workerEnv, PUBLIC_URL: `http://127.0.0.1:${port}/api/automation` };

function startWorker(name: string): Promise<ChildProcess> {
  // A process group of its own, as redis-server's: Ctrl-C reaches this process only, which stops the workers when the
  // web instance is closed. Should this process die, the closed IPC channel stops them.
  const child = fork(workerPath, [], { execArgv: process.execArgv, env: { ...process.env, ...workerEnv, WORKER_NAME: name }, detached: true });
  return new Promise((resolve, reject) => {
    child.once('message', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`${name} exited with ${String(code)} before it was ready`)));
  });
}

const queue = createWebhookQueue({ connection: store.connection, ...(store.schema === undefined ? {} : { schema: store.schema }) });
// Shared with the workers: a run suspended on a worker is resumed through this instance.
const { registry, callLog } = store;
let workers: ChildProcess[] = [];
try {
  workers = await Promise.all([startWorker('worker 1'), startWorker('worker 2')]);
  await queue.ready();
} catch (error) {
  process.stderr.write(`Could not start queue mode: ${(error as Error).message}\n`);
  for (const worker of workers) worker.kill('SIGKILL');
  await queue.close();
  await store.close();
  await store.stop(() => undefined);
  process.exit(1);
}
// The console (/admin/webhooks) shows the failed runs with a Retry button, and the calls of every instance.
let middleware: WebhookMiddleware | undefined;
const app = await createOrdersApp({
  registry, executor: () => queue.executor, jobs: queue, console: { queue, callLog }, mounted: (mounted) => { middleware = mounted; },
});

// The queue's jobs are ordinary BullMQ jobs: bull-board shows them. A real backend puts its own authentication in front.
const board = new ExpressAdapter();
board.setBasePath('/admin/queues');
createBullBoard({ queues: [new BullMQAdapter(queue.bullQueue)], serverAdapter: board });
app.use('/admin/queues', board.getRouter());

const server = app.listen(port, '127.0.0.1', (error) => {
  if (error !== undefined) return;
  const base = `http://127.0.0.1:${port}/api/automation/webhook`;
  print([
    `Orders API in queue mode on http://127.0.0.1:${port}: webhook calls are BullMQ jobs in ${store.described}, run by`,
    `two worker processes (pids ${workers.map((worker) => String(worker.pid)).join(', ')}).`,
    '',
    `Webhook console (addresses, recent calls, failed runs with Retry): http://127.0.0.1:${port}/admin/webhooks/`,
    `Jobs, as BullMQ's dashboard shows them:                            http://127.0.0.1:${port}/admin/queues`,
    '',
    'Try:',
    `  curl '${base}/hello?name=Ada'                 # answered from the worker's result`,
    `  curl -X POST ${base}/orders -H 'content-type: application/json' -d '{"item":"Tea"}'   # 200 once stored`,
    `  curl ${base}/orders/1                          # "ranOn" names the worker`,
    '',
    'Long work, its status read from the job itself:',
    `  curl -X POST ${base}/reports -H 'content-type: application/json' -d '{"title":"Q3"}'`,
    `  curl ${base}/reports/<jobId from the answer>`,
    '',
    'An approval that waits in the store, not in any process; the click is a job like any call:',
    `  curl -X POST ${base}/expenses -H 'content-type: application/json' -d '{"amount":120,"for":"Team lunch"}'`,
    `  curl "<approvalUrl from the answer>&decision=approve"`,
    '',
    'Orders live in the memory of the worker that took the call, as each instance of start:cluster keeps its own.',
    '',
  ].join('\n'));
});

let stopping = false;
async function stop(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  // The web instance first: no new calls, the ones in flight answered (their jobs still need workers and Redis).
  const closed = new Promise((resolve) => server.close(resolve));
  setTimeout(() => server.closeAllConnections(), 2000).unref();
  await middleware?.close({ timeoutMs: 5000 });
  await closed;
  await queue.close();
  print('web instance closed');
  // Then the workers: their runs under way finish (5 s) against a store that is still there.
  await Promise.all(workers.map((worker) => new Promise((resolve) => {
    if (worker.exitCode !== null) return resolve(undefined);
    worker.once('exit', resolve);
    worker.kill('SIGTERM');
  })));
  // The registry and call log (the last calls' entries written meanwhile), then the example's own redis-server, last.
  await store.close();
  await store.stop(print);
  process.exit(code);
}
// Stopped any other way than by this process, Redis takes the queue with it, and nothing can close against it: say
// so rather than let the errors speak, and end the workers and this process at once.
store.redisProcess?.once('exit', () => {
  if (stopping) return;
  stopping = true;
  process.stderr.write('redis-server stopped by itself; the queue went with it, so the example stops too.\n');
  for (const worker of workers) worker.kill('SIGKILL');
  process.exit(1);
});
server.on('error', (error: NodeJS.ErrnoException) => {
  process.stderr.write(error.code === 'EADDRINUSE' ? `Port ${port} is in use; start with another one: PORT=3001 npm run start:queue\n` : `${error.message}\n`);
  void stop(1);
});
process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));
// A closed terminal: the workers and redis-server, in groups of their own, do not get its SIGHUP.
process.on('SIGHUP', () => void stop(0));
