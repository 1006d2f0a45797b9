/**
 * HTTP throughput of the middleware with the Redis registry against the memory registry: the small JSON POST of the
 * `json` benchmark, each server in its own process (servers/http-server.ts), autocannon in another, rounds
 * alternating (A-B-B-A), medians, and the ratio of each Redis contender to the memory contender on the same host.
 * Same method and helpers as http.ts.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { autocannon, median, stop, type BenchSettings, type Load, type Sample } from './http.js';

const SERVER = fileURLToPath(new URL('./servers/http-server.ts', import.meta.url));
const LOAD: Load = {
  path: '/webhook/hook',
  headers: { 'content-type': 'application/json' },
  body: '{"order":1234,"items":[{"sku":"tea","qty":2}],"customer":{"name":"Ada"}}',
};

interface Contender { label: string; scenario: string; baseline: string }

async function start(scenario: string, redisUrl: string): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(SERVER, [scenario], {
    execArgv: ['--expose-gc', '--conditions=workflow-webhooks-source', '--import', 'tsx'],
    env: { ...process.env, BENCH_REDIS_URL: redisUrl },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message: { port: number }) => resolve(message.port));
    child.once('exit', (code) => reject(new Error(`server ${scenario} exited with ${String(code)}`)));
  });
  return { child, port };
}

export async function benchRedisHttp(settings: BenchSettings, redisUrl: string): Promise<string> {
  const contenders: Contender[] = [
    { label: 'memory registry, Express 5', scenario: 'middleware-json', baseline: 'memory registry, Express 5' },
    { label: 'Redis registry, Express 5', scenario: 'middleware-redis', baseline: 'memory registry, Express 5' },
    { label: 'memory registry, node:http', scenario: 'mwnode-json', baseline: 'memory registry, node:http' },
    { label: 'Redis registry, node:http', scenario: 'mwnode-redis', baseline: 'memory registry, node:http' },
  ];
  const running: { contender: Contender; child: ChildProcess; port: number }[] = [];
  const samples = new Map<string, Sample[]>(contenders.map((c) => [c.label, []]));
  try {
    for (const contender of contenders) running.push({ contender, ...(await start(contender.scenario, redisUrl)) });
    for (let round = 0; round < settings.rounds; round += 1) {
      // Every other round in reverse order, so that a drift in the shared machine's load within a round does not
      // always favour the same contender (a Redis contender is always measured right after its memory twin).
      const order = round % 2 === 0 ? running : [...running].reverse();
      for (const { contender, port } of order) samples.get(contender.label)?.push(await autocannon(port, LOAD, settings));
    }
  } finally {
    await Promise.all(running.map(({ child }) => stop(child)));
  }
  const of = (label: string, field: keyof Sample): number => median(samples.get(label)?.map((s) => s[field]) ?? []);
  // Each round measures a Redis contender right before or after its memory twin, so the ratio of the two is taken
  // round by round and its median reported: a burst of other work on the machine then moves both sides of a ratio.
  const paired = (label: string, baseline: string): number => {
    const base = samples.get(baseline) ?? [];
    return median((samples.get(label) ?? []).map((sample, round) => sample.requests / (base[round]?.requests ?? Number.NaN)));
  };
  const lines = ['| contender | req/s (median) | p50 ms | p99 ms | ratio to the memory registry on the same host (median of rounds) |',
    '|---|---|---|---|---|'];
  for (const { label, baseline } of contenders) {
    lines.push(`| ${[label, Math.round(of(label, 'requests')).toLocaleString('en'), of(label, 'p50').toFixed(1), of(label, 'p99').toFixed(1),
      paired(label, baseline).toFixed(2)].join(' | ')} |`);
  }
  return lines.join('\n');
}
