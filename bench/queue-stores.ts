/**
 * Queue mode on each store, Redis and PostgreSQL, in one run, each figure the median of `rounds` rounds:
 * - stored calls per second of one web instance (onReceived, 10 connections, no worker draining), with the web
 *   instance's CPU and the store's CPU per stored call;
 * - jobs per second through one worker (concurrency 20, no-op executor) draining jobs stored beforehand, with the
 *   worker's CPU and the store's CPU per job;
 * - the latency a lastNode call through the queue adds at one connection, against the same call run in process,
 *   with the CPU per call of web instance, worker and store together.
 * The store's CPU is redis-server's, or the postmaster's and every backend's. Every server and worker is a process
 * of its own (pinned where taskset has two cores). On the same PostgreSQL cluster, then, what queue mode costs the
 * database beside BullMQ driven directly and graphile-worker (bench/queue-postgres-cost.ts). See bench/README.md.
 */
import { createPostgresBackend, Queue, withBackend } from 'bullmq';
import pg from 'pg';
import { createClient } from 'redis';
import type { BenchSettings } from './http.js';
import { stop } from './http.js';
import { cannon, cpuOf, cpuOfPid, median, pin, timedCalls, type Post } from './pinned.js';
import { startPostgres } from './postgres-server.js';
import { benchPostgresCost } from './queue-postgres-cost.js';
import { start, until, type Child } from './queue-mode.js';
import { startRedis } from './redis-server.js';

const PATH = '/hooks/webhook/bench';
const BODY = '{"order":42,"item":"Tea","quantity":3}';
const DRAIN_JOBS = Number(process.env.BENCH_STORE_DRAIN_JOBS ?? 5000);
const ONE_CONNECTION_CALLS = Number(process.env.BENCH_ONE_CONNECTION_CALLS ?? 1000);
/** Jobs per round of the database-cost comparison on PostgreSQL (bench/queue-postgres-cost.ts). */
const COST_JOBS = Number(process.env.BENCH_PG_COST_JOBS ?? 3000);
/** What runs (a comma list): `redis` and `postgres` (the table of both stores), `cost` (the comparison on PostgreSQL). */
const PARTS = new Set((process.env.BENCH_QUEUE_STORES ?? 'redis,postgres,cost').split(','));

/** One store as the benchmark drives it. */
interface Store {
  name: string;
  env: Record<string, string>;
  /** µs of CPU the store's processes used so far. */
  cpu(): number;
  completed(): Promise<number>;
  empty(): Promise<void>;
  stop(): Promise<void>;
  /** Measured on the same server once its row is: PostgreSQL's database-cost comparison. */
  beside?(rounds: number): Promise<string>;
}

interface Row { stored: number; webCpu: number; storeCpuStored: number; drained: number; workerCpu: number; storeCpuJob: number; added: number; cpuPerCall: number }

async function redisStore(): Promise<Store> {
  const redis = await startRedis();
  pin(redis.pid, 'rest');
  const client = createClient({ url: redis.url });
  client.on('error', () => undefined);
  await client.connect();
  const jobs = new Queue('bench', { connection: client as never });
  return {
    name: 'Redis', env: { REDIS_URL: redis.url, QUEUE_NAME: 'bench' },
    cpu: () => cpuOfPid(redis.pid) ?? 0,
    completed: () => jobs.getCompletedCount(),
    empty: () => jobs.obliterate({ force: true }),
    stop: async () => { await jobs.close(); client.destroy(); await redis.stop(); },
  };
}

async function postgresStore(): Promise<Store> {
  const postgres = await startPostgres({ statements: true });
  const { Queue: PostgresQueue } = withBackend(createPostgresBackend);
  const jobs = new PostgresQueue('bench', { connection: { connectionString: postgres.url, migrate: true } });
  await jobs.waitUntilReady();
  // Done jobs are counted by one narrow statement: BullMQ's getCompletedCount counts every state of every job of the
  // queue, and polled while a worker drains, that was the database's own work, not the queue's.
  const probe = new pg.Client({ connectionString: postgres.url });
  await probe.connect();
  return {
    name: 'PostgreSQL', env: { DATABASE_URL: postgres.url, QUEUE_NAME: 'bench' },
    cpu: () => postgres.cpuMicros(),
    completed: async () => Number((await probe.query("SELECT count(*) FROM bullmq.job WHERE queue = 'bench' AND state = 'completed'")).rows[0]?.count),
    empty: () => jobs.obliterate({ force: true }),
    stop: async () => { await jobs.close(); await probe.end(); await postgres.stop(); },
    beside: (rounds) => benchPostgresCost(postgres, rounds, COST_JOBS),
  };
}

async function measureStore(store: Store, rounds: number, seconds: number, inProcess: Child): Promise<Row> {
  const children: Child[] = [];
  const web = async (mode: string): Promise<Child> => {
    const server = await start('queue-mode-web.ts', ['queue', mode], store.env);
    pin(server.child.pid, 'web');
    children.push(server);
    return server;
  };
  const post = (server: Child): Post => ({ port: server.port, path: PATH, body: BODY });
  try {
    const received = await web('onReceived');
    await cannon(post(received), 10, { seconds: 2 });
    const stored: number[] = [];
    const webCpu: number[] = [];
    const storeCpuStored: number[] = [];
    for (let round = 0; round < rounds; round += 1) {
      await store.empty();
      const [web0, store0] = [await cpuOf(received.child), store.cpu()];
      const sample = await cannon(post(received), 10, { seconds });
      stored.push(sample.rate);
      webCpu.push((await cpuOf(received.child) - web0) / sample.calls);
      storeCpuStored.push((store.cpu() - store0) / sample.calls);
    }
    const drained: number[] = [];
    const workerCpu: number[] = [];
    const storeCpuJob: number[] = [];
    for (let round = 0; round < rounds; round += 1) {
      await store.empty();
      await cannon(post(received), 10, { amount: DRAIN_JOBS });
      const store0 = store.cpu();
      const started = performance.now();
      const drainer = await start('queue-mode-worker.ts', [], { ...store.env, QUEUE_CONCURRENCY: '20' });
      pin(drainer.child.pid, 'web');
      await until(async () => (await store.completed()) >= DRAIN_JOBS, 300_000, 100);
      drained.push(DRAIN_JOBS / ((performance.now() - started) / 1000));
      workerCpu.push(await cpuOf(drainer.child) / DRAIN_JOBS);
      storeCpuJob.push((store.cpu() - store0) / DRAIN_JOBS);
      await stop(drainer.child);
    }
    await store.empty();
    const lastNode = await web('lastNode');
    const worker = await start('queue-mode-worker.ts', [], { ...store.env, QUEUE_CONCURRENCY: '10' });
    pin(worker.child.pid, 'rest');
    await timedCalls(post(lastNode), 1, 200);
    const added: number[] = [];
    const cpuPerCall: number[] = [];
    for (let round = 0; round < rounds; round += 1) {
      const direct = await timedCalls(post(inProcess), 1, ONE_CONNECTION_CALLS);
      const [web0, worker0, store0] = [await cpuOf(lastNode.child), await cpuOf(worker.child), store.cpu()];
      const through = await timedCalls(post(lastNode), 1, ONE_CONNECTION_CALLS);
      added.push(through.p50 - direct.p50);
      const spent = (await cpuOf(lastNode.child) - web0) + (await cpuOf(worker.child) - worker0) + (store.cpu() - store0);
      cpuPerCall.push(spent / through.calls);
    }
    await stop(worker.child);
    return {
      stored: median(stored), webCpu: median(webCpu), storeCpuStored: median(storeCpuStored),
      drained: median(drained), workerCpu: median(workerCpu), storeCpuJob: median(storeCpuJob), added: median(added), cpuPerCall: median(cpuPerCall),
    };
  } finally {
    await Promise.all(children.filter(({ child }) => child.exitCode === null).map(({ child }) => stop(child)));
  }
}

const int = (value: number): string => Math.round(value).toLocaleString('en');
const us = (value: number): string => `${Math.round(value)} µs`;

export async function benchQueueStores(base: BenchSettings): Promise<string> {
  const { rounds, seconds } = base;
  const inProcess = await start('queue-mode-web.ts', ['inprocess', 'lastNode'], {});
  pin(inProcess.child.pid, 'web');
  const rows: Array<[string, Row]> = [];
  let cost = '';
  try {
    for (const [part, open] of [['redis', redisStore], ['postgres', postgresStore]] as const) {
      if (!PARTS.has(part) && (part !== 'postgres' || !PARTS.has('cost'))) continue;
      const store = await open();
      try {
        if (PARTS.has(part)) rows.push([store.name, await measureStore(store, rounds, seconds, inProcess)]);
        if (PARTS.has('cost') && store.beside !== undefined) cost = await store.beside(rounds);
      } finally {
        await store.stop();
      }
    }
  } finally {
    await stop(inProcess.child);
  }
  const lines = [
    '| store | stored calls/s, one web instance, 10 connections | its CPU per stored call: web + store | worker jobs/s (concurrency 20) | CPU per job: worker + store | lastNode added latency, 1 connection | CPU per lastNode call: web + worker + store |',
    '|---|---|---|---|---|---|---|',
    ...rows.map(([name, row]) => `| ${name} | ${int(row.stored)} | ${us(row.webCpu)} + ${us(row.storeCpuStored)} | ${int(row.drained)} | ` +
      `${us(row.workerCpu)} + ${us(row.storeCpuJob)} | +${(row.added / 1000).toFixed(2)} ms | ${us(row.cpuPerCall)} |`),
  ];
  const table = rows.length === 0 ? [] : [`${rounds} rounds, medians; ${int(DRAIN_JOBS)} jobs per drain round, ${int(ONE_CONNECTION_CALLS)} calls per latency round.`, '', ...lines];
  const comparison = cost === '' ? [] : ['', '### What queue mode costs PostgreSQL, beside BullMQ driven directly and graphile-worker (same cluster, same run)', '', cost];
  return [...table, ...comparison].join('\n');
}
