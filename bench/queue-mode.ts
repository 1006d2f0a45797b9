/**
 * Queue mode against in process, in one run, each figure the median of `rounds` rounds (every round printed):
 * - onReceived, a JSON body and a form: the web instance's rate and CPU time per call, queue mode ÷ in process, with
 *   the web instance alone on one core and redis-server and autocannon on the other ("Redis elsewhere"), no worker
 *   draining meanwhile;
 * - lastNode: the latency a call through the queue adds, timed per call in microseconds (one worker, on the other
 *   core with redis-server and the client): at 10 connections in a closed loop (which saturates that core: its
 *   latency is 10 ÷ the rate the core sustains, so the worker's and redis-server's CPU per job are reported beside
 *   it), at 10 connections in an open loop below that rate, and at one connection;
 * - jobs/s through one worker process alone on one core, draining jobs stored beforehand (no-op executor);
 * - the web instance's RSS while 100 000 jobs wait with no worker running.
 * Every server and worker is a process of its own; redis-server is started here. See bench/README.md.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import { createClient } from 'redis';
import { stop, type BenchSettings } from './http.js';
import { cannon, CORES, cpuOf, cpuOfPid, median, pin, timedCalls, type LatencySample, type Post, type RateSample } from './pinned.js';
import { startRedis } from './redis-server.js';

const EXEC_ARGV = ['--expose-gc', '--conditions=workflow-webhooks-source', '--import', 'tsx'];
const PATH = '/hooks/webhook/bench';
const BODY = '{"order":42,"item":"Tea","quantity":3}';
/** The same order as a form (the onReceived rows are measured with both). */
const FORM = { body: 'order=42&item=Tea&quantity=3', type: 'application/x-www-form-urlencoded' };
/** Calls per lastNode round, and jobs per worker round. */
const LATENCY_CALLS = Number(process.env.BENCH_LATENCY_CALLS ?? 5000);
const DRAIN_JOBS = Number(process.env.BENCH_DRAIN_JOBS ?? 20_000);
/** The open loop's pace (calls per second over 10 connections, about half what a shared core carries through the queue), and the one-connection rounds' calls. */
const PACED_RATE = Number(process.env.BENCH_PACED_RATE ?? 1000);
const ONE_CONNECTION_CALLS = Number(process.env.BENCH_ONE_CONNECTION_CALLS ?? 2000);
/** The one worker's concurrency: enough to keep one core busy between Redis round trips. */
const WORKER_CONCURRENCY = Number(process.env.BENCH_WORKER_CONCURRENCY ?? 20);

export interface Child { child: ChildProcess; port: number }

export async function start(script: string, args: string[], env: Record<string, string>): Promise<Child> {
  const child = fork(fileURLToPath(new URL(`./servers/${script}`, import.meta.url)), args, { execArgv: EXEC_ARGV, env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message: { port: number }) => resolve(message.port));
    child.once('exit', (code) => reject(new Error(`${script} ${args.join(' ')} exited with ${String(code)}`)));
  });
  return { child, port };
}

function rssOf(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    child.once('message', (message: { rss: number }) => resolve(message.rss));
    child.send({ type: 'rss' });
  });
}

/** Alternates two servers over the rounds (autocannon as bench/http.ts runs it); the replicas benchmark uses it. */
export { pair } from './queue-pair.js';

const mb = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
const int = (value: number): string => Math.round(value).toLocaleString('en');
const ms = (us: number): string => `${(us / 1000).toFixed(2)} ms`;
const signed = (text: string): string => (text.startsWith('-') ? text.replace('-', '−') : `+${text}`);

interface Measured<T> { sample: T; cpuPerCall: number }

/** One measurement of `server`, with the CPU time it spent per call meanwhile. */
async function measured<T extends { calls: number }>(server: Child, measure: () => Promise<T>): Promise<Measured<T>> {
  const before = await cpuOf(server.child);
  const sample = await measure();
  return { sample, cpuPerCall: (await cpuOf(server.child) - before) / sample.calls };
}

/** Rounds over a pair (in process, queue mode), alternating which goes first. */
async function alternate<T>(rounds: number, pairOf: readonly [Child, Child], measure: (server: Child) => Promise<T>): Promise<[T[], T[]]> {
  const samples: [T[], T[]] = [[], []];
  for (let round = 0; round < rounds; round += 1) {
    for (const index of round % 2 === 0 ? [0, 1] as const : [1, 0] as const) samples[index].push(await measure(pairOf[index]));
  }
  return samples;
}

export async function benchQueue(base: BenchSettings): Promise<string> {
  const { rounds, seconds } = base;
  const redis = await startRedis();
  pin(redis.pid, 'rest');
  const env = { REDIS_URL: redis.url, QUEUE_NAME: 'bench' };
  const connection = createClient({ url: redis.url });
  connection.on('error', () => undefined);
  await connection.connect();
  const jobs = new Queue('bench', { connection: connection as never });
  const children: Child[] = [];
  const web = async (where: string, mode: string): Promise<Child> => {
    const server = await start('queue-mode-web.ts', [where, mode], env);
    pin(server.child.pid, 'web');
    children.push(server);
    return server;
  };
  const post = (server: Child): Post => ({ port: server.port, path: PATH, body: BODY });
  const lines: string[] = [];
  const roundLines: string[] = [];
  try {
    const received = [await web('inprocess', 'onReceived'), await web('queue', 'onReceived')] as const;
    const lastNode = [await web('inprocess', 'lastNode'), await web('queue', 'lastNode')] as const;

    // onReceived: the web instance's own rate, with a JSON body and with a form; its jobs pile up (emptied before
    // each round), no worker runs.
    lines.push('| measurement | in process | queue mode | result | goal |', '|---|---|---|---|---|');
    for (const [kind, body] of [['JSON', undefined], ['form', FORM]] as const) {
      const sent = (server: Child): Post => (body === undefined ? post(server) : { ...post(server), ...body });
      for (const server of received) await cannon(sent(server), 10, { seconds: 2 });
      const [inProcess, queued] = await alternate(rounds, received, async (server) => {
        await connection.sendCommand(['FLUSHALL']);
        return measured<RateSample>(server, () => cannon(sent(server), 10, { seconds }));
      });
      const rate = (list: Measured<RateSample>[]): number => median(list.map((m) => m.sample.rate));
      const cpu = (list: Measured<RateSample>[]): number => median(list.map((m) => m.cpuPerCall));
      lines.push(`| onReceived ${kind}, Express 5, req/s, 10 connections; Redis elsewhere, no worker | ${int(rate(inProcess))} | ${int(rate(queued))} | ` +
        `${(rate(queued) / rate(inProcess)).toFixed(2)}× | ≥ 0.7× |`);
      lines.push(`| the same, web instance's CPU time per call | ${cpu(inProcess).toFixed(1)} µs | ${cpu(queued).toFixed(1)} µs | ` +
        `${signed((cpu(queued) - cpu(inProcess)).toFixed(1))} µs per stored call | |`);
      roundLines.push(`onReceived ${kind} rounds, in process: ${inProcess.map((m) => `${int(m.sample.rate)} req/s ${m.cpuPerCall.toFixed(1)} µs`).join('; ')}`,
        `onReceived ${kind} rounds, queue mode: ${queued.map((m) => `${int(m.sample.rate)} req/s ${m.cpuPerCall.toFixed(1)} µs`).join('; ')}`);
    }
    await jobs.obliterate({ force: true });

    // lastNode: one worker beside redis-server and the client; each call timed. A closed loop at 10 connections
    // saturates the core the worker, redis-server and the client share, so its latency is 10 ÷ the rate that core
    // sustains; an open loop below that rate, and one connection, show what the hop itself adds.
    const worker = await start('queue-mode-worker.ts', [], { ...env, QUEUE_CONCURRENCY: '10' });
    pin(worker.child.pid, 'rest');
    for (const server of lastNode) await timedCalls(post(server), 10, 1000);
    const redisBefore = cpuOfPid(redis.pid);
    const workerBefore = await cpuOf(worker.child);
    let queuedCalls = 0;
    const [direct, through] = await alternate(rounds, lastNode, async (server) => {
      const sample = await timedCalls(post(server), 10, LATENCY_CALLS);
      if (server === lastNode[1]) queuedCalls += sample.calls;
      return sample;
    });
    const redisAfter = cpuOfPid(redis.pid);
    const workerPerJob = (await cpuOf(worker.child) - workerBefore) / queuedCalls;
    const redisPerJob = redisBefore === undefined || redisAfter === undefined ? undefined : (redisAfter - redisBefore) / queuedCalls;
    const [pacedDirect, pacedThrough] = await alternate(rounds, lastNode, (server) => timedCalls(post(server), 10, Math.round(PACED_RATE * 3), PACED_RATE));
    const [oneDirect, oneThrough] = await alternate(rounds, lastNode, (server) => timedCalls(post(server), 1, ONE_CONNECTION_CALLS));
    await stop(worker.child);
    const p50 = (list: LatencySample[]): number => median(list.map((s) => s.p50));
    const p99 = (list: LatencySample[]): number => median(list.map((s) => s.p99));
    const rateOf = (list: LatencySample[]): number => median(list.map((s) => s.calls / s.seconds));
    const latencyRow = (what: string, a: LatencySample[], b: LatencySample[], at: (list: LatencySample[]) => number, goal: string): string =>
      `| ${what} | ${ms(at(a))} | ${ms(at(b))} | ${signed(ms(at(b) - at(a)))} | ${goal} |`;
    lines.push(latencyRow('lastNode, median latency, 10 connections, closed loop (each sends again once answered)', direct, through, p50, '≤ +2 ms'));
    lines.push(latencyRow('the same, p99', direct, through, p99, ''));
    lines.push(`| the same, calls answered per second (the closed loop's rate) | ${int(rateOf(direct))} | ${int(rateOf(through))} | ` +
      `per job through the queue: ${redisPerJob === undefined ? '' : `${redisPerJob.toFixed(0)} µs of redis-server and `}${workerPerJob.toFixed(0)} µs of worker CPU, on the core the client shares | |`);
    lines.push(latencyRow(`lastNode, median latency, 10 connections, open loop at ${int(PACED_RATE)} calls/s`, pacedDirect, pacedThrough, p50, ''));
    lines.push(latencyRow(`the same, p99`, pacedDirect, pacedThrough, p99, ''));
    lines.push(latencyRow('lastNode, median latency, 1 connection', oneDirect, oneThrough, p50, ''));
    const described = (s: LatencySample): string => `p50 ${ms(s.p50)} p99 ${ms(s.p99)} ${int(s.calls / s.seconds)} calls/s`;
    roundLines.push(`lastNode closed-loop rounds, in process: ${direct.map(described).join('; ')}`,
      `lastNode closed-loop rounds, queue mode: ${through.map(described).join('; ')}`,
      `lastNode open-loop rounds (${int(PACED_RATE)} calls/s), in process: ${pacedDirect.map(described).join('; ')}`,
      `lastNode open-loop rounds, queue mode: ${pacedThrough.map(described).join('; ')}`,
      `lastNode one-connection rounds, in process: ${oneDirect.map(described).join('; ')}`,
      `lastNode one-connection rounds, queue mode: ${oneThrough.map(described).join('; ')}`);

    // One worker alone on a core drains jobs stored beforehand.
    const drains: { rate: number; cpuPerJob: number }[] = [];
    for (let round = 0; round < rounds; round += 1) {
      await jobs.obliterate({ force: true });
      await cannon(post(received[1]), 10, { amount: DRAIN_JOBS });
      const started = performance.now();
      const drainer = await start('queue-mode-worker.ts', [], { ...env, QUEUE_CONCURRENCY: String(WORKER_CONCURRENCY) });
      pin(drainer.child.pid, 'web');
      await until(async () => (await jobs.getCompletedCount()) >= DRAIN_JOBS, 120_000, 5);
      const elapsed = (performance.now() - started) / 1000;
      drains.push({ rate: DRAIN_JOBS / elapsed, cpuPerJob: await cpuOf(drainer.child) / DRAIN_JOBS });
      await stop(drainer.child);
    }
    lines.push(`| jobs/s through one worker on one core, concurrency ${WORKER_CONCURRENCY}, no-op executor | | ${int(median(drains.map((d) => d.rate)))} jobs/s | ` +
      `${median(drains.map((d) => d.cpuPerJob)).toFixed(0)} µs of worker CPU per job | |`);
    roundLines.push(`one-worker rounds (${int(DRAIN_JOBS)} jobs each, start-up included): ${drains.map((d) => `${int(d.rate)} jobs/s ${d.cpuPerJob.toFixed(0)} µs/job`).join('; ')}`);

    // Waiting jobs cost the web instance nothing: no worker runs, 100 000 jobs pile up in Redis.
    await jobs.obliterate({ force: true });
    const queueWeb = received[1];
    const rss = [await rssOf(queueWeb.child)];
    await cannon(post(queueWeb), 10, { amount: 50_000 });
    rss.push(await rssOf(queueWeb.child));
    await cannon(post(queueWeb), 10, { amount: 50_000 });
    rss.push(await rssOf(queueWeb.child));
    const waiting = await jobs.getWaitingCount();
    lines.push(`| web instance RSS after a GC: at rest, 50 000 and 100 000 jobs waiting | | ${rss.map(mb).join(' → ')} | ${int(waiting)} jobs waiting | flat |`);
  } finally {
    await Promise.all(children.filter(({ child }) => child.exitCode === null).map(({ child }) => stop(child)));
    await jobs.close();
    connection.destroy();
    await redis.stop();
  }
  const placement = CORES === undefined ? 'not pinned (no taskset, or one core)' : `web instances and the draining worker on core ${CORES.web}; ` +
    `redis-server, autocannon, the latency client and the lastNode worker on core ${CORES.rest}`;
  return [`${rounds} rounds, medians; ${placement}.`, '', ...lines, '', ...roundLines.map((line) => `- ${line}`)].join('\n');
}

export async function until(probe: () => Promise<boolean>, ms = 60_000, everyMs = 100): Promise<void> {
  const deadline = Date.now() + ms;
  while (!await probe()) {
    if (Date.now() > deadline) throw new Error(`not reached within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
