/**
 * The library's two yardsticks in the PostgreSQL cost benchmark (bench/queue-postgres-cost.ts), with no library in
 * between: BullMQ's PostgreSQL backend driven directly (`bullmq`, a Queue and a Worker from
 * `withBackend(createPostgresBackend)`, the job options the library gives its jobs) or graphile-worker (`graphile`).
 * Role `produce` stores `jobs` jobs when told, `connections` adds at a time, each carrying JOB_DATA (the library's own
 * job data, so every contender stores as many bytes); role `work` runs a no-op worker at QUEUE_CONCURRENCY. It reports
 * its CPU time over IPC as the other bench servers do.
 */
import { createPostgresBackend, withBackend } from 'bullmq';
import { Logger, makeWorkerUtils, run } from 'graphile-worker';

const [engine = 'bullmq', role = 'produce'] = process.argv.slice(2);
const connectionString = process.env.DATABASE_URL as string;
const name = process.env.QUEUE_NAME ?? 'direct';
const concurrency = Number(process.env.QUEUE_CONCURRENCY ?? 20);
const data = JSON.parse(process.env.JOB_DATA ?? '{}') as Record<string, unknown>;
/** graphile-worker logs every job at info: silenced, as the library's bench worker logs nothing per job. */
const quiet = new Logger(() => () => undefined);

let add: (() => Promise<unknown>) | undefined;
let close: () => Promise<void>;

if (engine === 'bullmq') {
  const { Queue, Worker } = withBackend(createPostgresBackend);
  const connection = { connectionString, migrate: true };
  if (role === 'produce') {
    const queue = new Queue(name, { connection });
    await queue.waitUntilReady();
    // The library's options for a job (lib/queue/add-job.ts), defaults kept: only what it adds on top is left out.
    add = () => queue.add('bench', data, {
      jobId: crypto.randomUUID(), attempts: 3, backoff: { type: 'exponential', delay: 1000 },
      removeOnComplete: { age: 24 * 3600 }, removeOnFail: { age: 7 * 24 * 3600 },
    });
    close = () => queue.close();
  } else {
    // The library's no-op executor answers with the trigger item: this one returns as much.
    const worker = new Worker(name, async (job) => ({ items: [job.data.item] }), { connection, concurrency });
    await worker.waitUntilReady();
    close = () => worker.close();
  }
} else if (role === 'produce') {
  const utils = await makeWorkerUtils({ connectionString, logger: quiet });
  await utils.migrate();
  add = () => utils.addJob('bench', data);
  close = async () => { await utils.release(); };
} else {
  const runner = await run({ connectionString, concurrency, noHandleSignals: true, logger: quiet, taskList: { bench: async () => undefined } });
  close = () => runner.stop();
}

/** Stores `jobs` jobs, `connections` at a time. */
async function produce(jobs: number, connections: number): Promise<void> {
  let left = jobs;
  await Promise.all(Array.from({ length: connections }, async () => {
    while (left > 0) {
      left -= 1;
      await (add as () => Promise<unknown>)();
    }
  }));
}

process.send?.({ type: 'ready', port: 0 });
process.on('message', (message: { type: string; jobs?: number; connections?: number }) => {
  if (message.type === 'cpu') {
    const { user, system } = process.cpuUsage();
    process.send?.({ type: 'cpu', cpu: user + system });
  } else if (message.type === 'produce') {
    void produce(message.jobs ?? 0, message.connections ?? 10).then(() => process.send?.({ type: 'produced' }));
  } else if (message.type === 'stop') {
    void close().finally(() => process.exit(0));
  }
});
