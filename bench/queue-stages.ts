/**
 * Where a lastNode call's time goes in queue mode: the median time of each stage of a call (received → job stored
 * → taken by a worker → run finished → reply published → reply seen by the web instance → answered), at one
 * connection and at 10, through one worker process. Timestamps, not cores: it shows the same waits on a 2-core
 * machine as on a large one. A stage that grows with the connections is a wait (a queue of calls in front of
 * something), one that does not is work. The web instance measures with the queue's `stageTimes` option
 * (servers/call-stages.ts); the latency client times each call too. See bench/README.md.
 */
import { stop } from './http.js';
import { CORES, median, pin, timedCalls, type LatencySample, type Post } from './pinned.js';
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

interface Round { stages: number[]; processedOn: number; client: LatencySample }

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

async function round(web: Child, post: Post, connections: number): Promise<Round> {
  await stagesOf(web);
  const client = await timedCalls(post, connections, CALLS);
  const calls = await stagesOf(web);
  if (calls.length < CALLS * 0.9) throw new Error(`stage times of ${calls.length} calls out of ${CALLS}`);
  const medianOf = (duration: (call: CallStageTimes) => number): number => median(calls.map(duration));
  return { stages: STAGES.map(([, duration]) => medianOf(duration)), processedOn: medianOf(PROCESSED_ON[1]), client };
}

const ms = (value: number): string => `${value.toFixed(3)} ms`;

export async function benchQueueStages(rounds: number): Promise<string> {
  const redis = await startRedis();
  pin(redis.pid, 'rest');
  const env = { REDIS_URL: redis.url, QUEUE_NAME: 'stages' };
  const children: Child[] = [];
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
        const measured = await round(web, post, connections);
        results.get(connections)?.push(measured);
        process.stderr.write(`stages, ${connections} connection(s): ${measured.stages.map(ms).join(', ')}; client p50 ${ms(measured.client.p50 / 1000)}\n`);
      }
    }
  } finally {
    await Promise.all(children.filter(({ child }) => child.exitCode === null).map(({ child }) => stop(child)));
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
  lines.push(`| calls answered per second | ${CONNECTIONS.map((c) => Math.round(median(of(c).map((r) => r.client.calls / r.client.seconds))).toLocaleString('en')).join(' | ')} |`);
  const placement = CORES === undefined ? 'not pinned' : `web instance on core ${CORES.web}; redis-server, the worker and the latency client on core ${CORES.rest}`;
  const roundLines = CONNECTIONS.map((c) => `- ${c} connection(s), sums per round: ${of(c).map((r) => ms(r.stages.reduce((a, b) => a + b, 0))).join(', ')}`);
  return [`${rounds} rounds × ${CALLS.toLocaleString('en')} calls at each, medians of the rounds' medians; one worker process, concurrency ${CONCURRENCY}, ` +
    `no-op executor, 38-byte JSON; ${placement}.`, '', ...lines, '', ...roundLines].join('\n');
}
