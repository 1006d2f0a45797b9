/**
 * Where a lastNode call's time goes in queue mode: the median time of each stage of a call (received → job stored
 * → taken by a worker → run finished → reply published → reply seen by the web instance → answered), at one
 * connection and at 10, through one worker process. Timestamps, not cores: it shows the same waits on a 2-core
 * machine as on a large one. A stage that grows with the connections is a wait (a queue of calls in front of
 * something), one that does not is work. The web instance measures with the queue's `stageTimes` option
 * (servers/call-stages.ts); the latency client times each call too. See bench/README.md.
 */
import { createClient } from 'redis';
import { stop } from './http.js';
import { CORES, cpuOf, cpuOfPid, median, pin, timedCalls, type LatencySample, type Post } from './pinned.js';
import { start, type Child } from './queue-mode.js';
import { startRedis } from './redis-server.js';
import type { CallStageTimes } from './servers/call-stages.js';

/** Calls per round at each number of connections, and the worker's concurrency. */
const CALLS = Number(process.env.BENCH_STAGE_CALLS ?? 3000);
const CONCURRENCY = Number(process.env.BENCH_WORKER_CONCURRENCY ?? 10);
const CONNECTIONS = [1, 10] as const;

/** The stages of the table: a name and its duration in one call (ms). */
const STAGES: [string, (call: CallStageTimes) => number][] = [
  ['received → job stored (Redis acknowledged `Queue.add`)', (c) => c.stored - c.received],
  ['job stored → taken by a worker (its processor starts)', (c) => c.taken - c.stored],
  ['taken → run finished (result packed)', (c) => c.finished - c.taken],
  ['run finished → reply published', (c) => c.published - c.finished],
  ['reply published → reply seen by the web instance', (c) => c.seen - c.published],
  ['reply seen → answered', (c) => c.answered - c.seen],
];
/** Not a stage of its own (part of the second): BullMQ's `processedOn` is whole ms, counted here from its middle. */
const PROCESSED_ON: [string, (call: CallStageTimes) => number] = [
  'of which: job stored → BullMQ\'s `processedOn` (the worker asks to move the job to active; whole ms, +0.5)', (c) => c.processedOn + 0.5 - c.stored,
];

/** A round's medians, and the CPU time per call (µs) of the web instance, the worker and redis-server meanwhile. */
interface Round {
  stages: number[]; processedOn: number; client: LatencySample; cpu: { web: number; worker: number; redis: number };
  /** Redis commands per call: BullMQ's and ours are scripts (EVALSHA); BZPOPMIN is a worker's blocking wait for a job. */
  commands: { scripts: number; blocking: number };
}

interface Measured { web: Child; worker: Child; redisPid: number; commandCounts: () => Promise<{ scripts: number; blocking: number }> }

/** Calls of EVALSHA and BZPOPMIN so far, from INFO commandstats. */
async function commandCounts(client: { sendCommand(args: string[]): Promise<unknown> }): Promise<{ scripts: number; blocking: number }> {
  const info = String(await client.sendCommand(['INFO', 'commandstats']));
  const calls = (command: string): number => Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(info)?.[1] ?? 0);
  return { scripts: calls('evalsha'), blocking: calls('bzpopmin') };
}

function stagesOf(child: Child): Promise<CallStageTimes[]> {
  return new Promise((resolve) => {
    const listener = (message: { type: string; stages: CallStageTimes[] }): void => {
      if (message.type !== 'stages') return;
      child.child.off('message', listener);
      resolve(message.stages);
    };
    child.child.on('message', listener);
    child.child.send({ type: 'stages' });
  });
}

async function round({ web, worker, redisPid, commandCounts: counts }: Measured, post: Post, connections: number): Promise<Round> {
  await stagesOf(web);
  const before = { web: await cpuOf(web.child), worker: await cpuOf(worker.child), redis: cpuOfPid(redisPid) ?? NaN, commands: await counts() };
  const client = await timedCalls(post, connections, CALLS);
  const after = { web: await cpuOf(web.child), worker: await cpuOf(worker.child), redis: cpuOfPid(redisPid) ?? NaN, commands: await counts() };
  const calls = await stagesOf(web);
  if (calls.length < CALLS * 0.9) throw new Error(`stage times of ${calls.length} calls out of ${CALLS}`);
  const medianOf = (duration: (call: CallStageTimes) => number): number => median(calls.map(duration));
  const cpu = { web: (after.web - before.web) / client.calls, worker: (after.worker - before.worker) / client.calls, redis: (after.redis - before.redis) / client.calls };
  const commands = {
    scripts: (after.commands.scripts - before.commands.scripts) / client.calls, blocking: (after.commands.blocking - before.commands.blocking) / client.calls,
  };
  return { stages: STAGES.map(([, duration]) => medianOf(duration)), processedOn: medianOf(PROCESSED_ON[1]), client, cpu, commands };
}

const ms = (value: number): string => `${value.toFixed(3)} ms`;

export async function benchQueueStages(rounds: number): Promise<string> {
  const redis = await startRedis();
  pin(redis.pid, 'rest');
  const env = { REDIS_URL: redis.url, QUEUE_NAME: 'stages' };
  const children: Child[] = [];
  const counter = createClient({ url: redis.url });
  counter.on('error', () => undefined);
  await counter.connect();
  const results = new Map<number, Round[]>(CONNECTIONS.map((connections) => [connections, []]));
  try {
    const web = await start('queue-mode-web.ts', ['queue', 'lastNode'], { ...env, BENCH_STAGES: '1' });
    children.push(web);
    pin(web.child.pid, 'web');
    const worker = await start('queue-mode-worker.ts', [], { ...env, QUEUE_CONCURRENCY: String(CONCURRENCY) });
    children.push(worker);
    pin(worker.child.pid, 'rest');
    const post: Post = { port: web.port, path: '/hooks/webhook/bench', body: '{"order":42,"item":"Tea","quantity":3}' };
    await timedCalls(post, 10, 1000);
    for (let index = 0; index < rounds; index += 1) {
      for (const connections of index % 2 === 0 ? CONNECTIONS : [...CONNECTIONS].reverse()) {
        const measured = await round({ web, worker, redisPid: redis.pid, commandCounts: () => commandCounts(counter) }, post, connections);
        results.get(connections)?.push(measured);
        process.stderr.write(`stages, ${connections} connection(s): ${measured.stages.map(ms).join(', ')}; client p50 ${ms(measured.client.p50 / 1000)}\n`);
      }
    }
  } finally {
    await Promise.all(children.filter(({ child }) => child.exitCode === null).map(({ child }) => stop(child)));
    counter.destroy();
    await redis.stop();
  }
  const of = (connections: number): Round[] => results.get(connections) ?? [];
  const stage = (connections: number, index: number): number => median(of(connections).map((r) => r.stages[index] ?? 0));
  const sum = (connections: number): number => STAGES.reduce((total, _stage, index) => total + stage(connections, index), 0);
  const lines = [`| stage of a lastNode call (median) | ${CONNECTIONS.map((c) => `${c} connection${c === 1 ? '' : 's'}`).join(' | ')} |`, '|---|---:|---:|'];
  STAGES.forEach(([name], index) => lines.push(`| ${name} | ${CONNECTIONS.map((c) => ms(stage(c, index))).join(' | ')} |`));
  lines.push(`| ${PROCESSED_ON[0]} | ${CONNECTIONS.map((c) => ms(median(of(c).map((r) => r.processedOn)))).join(' | ')} |`);
  const [one, ten] = [sum(1), sum(10)];
  lines.push(`| **sum of the stages' medians** | ${ms(one)} | ${ms(ten)} (${(ten / one).toFixed(2)}×; goal ≤ 1.5×, ${ten <= one * 1.5 ? 'met' : 'not met'}) |`);
  lines.push(`| the client's p50 / p99 (whole call, HTTP included) | ${CONNECTIONS.map((c) => `${ms(median(of(c).map((r) => r.client.p50)) / 1000)} / ${ms(median(of(c).map((r) => r.client.p99)) / 1000)}`).join(' | ')} |`);
  const cpuOfEach = (c: number): string => (['web', 'worker', 'redis'] as const).map((side) => median(of(c).map((r) => r.cpu[side])).toFixed(0)).join(' / ');
  lines.push(`| CPU per call, µs: web instance / worker / redis-server | ${CONNECTIONS.map(cpuOfEach).join(' | ')} |`);
  const commandsOf = (c: number): string => `${median(of(c).map((r) => r.commands.scripts)).toFixed(2)} / ${median(of(c).map((r) => r.commands.blocking)).toFixed(2)}`;
  lines.push(`| Redis commands per call: scripts (EVALSHA: store, move to active, finish) / BZPOPMIN (a worker's wait for a job) | ${CONNECTIONS.map(commandsOf).join(' | ')} |`);
  lines.push(`| calls answered per second | ${CONNECTIONS.map((c) => Math.round(median(of(c).map((r) => r.client.calls / r.client.seconds))).toLocaleString('en')).join(' | ')} |`);
  const placement = CORES === undefined ? 'not pinned' : `web instance on core ${CORES.web}; redis-server, the worker and the latency client on core ${CORES.rest}`;
  const roundLines = CONNECTIONS.map((c) => `- ${c} connection(s), sums per round: ${of(c).map((r) => ms(r.stages.reduce((a, b) => a + b, 0))).join(', ')}`);
  return [`${rounds} rounds × ${CALLS.toLocaleString('en')} calls at each, medians of the rounds' medians; one worker process, concurrency ${CONCURRENCY}, ` +
    `no-op executor, 38-byte JSON; ${placement}.`, '', ...lines, '', ...roundLines].join('\n');
}
