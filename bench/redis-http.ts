/**
 * HTTP throughput of the middleware with the Redis registry against the memory registry: the small JSON POST of the
 * `json` benchmark, each server in its own process (servers/http-server.ts), autocannon in another, rounds
 * alternating (A-B-B-A), medians, and the ratio of each Redis contender to the memory contender on the same host.
 * Same method as http.ts, whose helpers are private to it, so they are repeated here in short.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { BenchSettings } from './http.js';

const SERVER = fileURLToPath(new URL('./servers/http-server.ts', import.meta.url));
const AUTOCANNON = createRequire(import.meta.url).resolve('autocannon/autocannon.js');
const BODY = '{"order":1234,"items":[{"sku":"tea","qty":2}],"customer":{"name":"Ada"}}';

interface Contender { label: string; scenario: string; baseline: string }
interface Sample { requests: number; p50: number; p99: number }

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

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.send({ type: 'stop' });
    setTimeout(() => child.kill(), 3000).unref();
  });
}

function autocannon(port: number, settings: BenchSettings): Promise<Sample> {
  const args = [AUTOCANNON, '-j', '-c', String(settings.connections), '-d', String(settings.seconds), '-m', 'POST',
    '-H', 'content-type=application/json', '-b', BODY, `http://127.0.0.1:${port}/webhook/hook`];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString(); });
    child.on('exit', () => {
      try {
        const result = JSON.parse(out) as { requests: { average: number }; latency: { p50: number; p99: number }; non2xx: number; errors: number };
        if (result.non2xx > 0 || result.errors > 0) reject(new Error(`${result.non2xx} non-2xx answers, ${result.errors} errors`));
        else resolve({ requests: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 });
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

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
      for (const { contender, port } of order) samples.get(contender.label)?.push(await autocannon(port, settings));
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
