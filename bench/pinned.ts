/**
 * Processes on chosen cores, for the queue-mode benchmark on a 2-core machine: the web instance alone on one core,
 * redis-server and the load generator on the other ("Redis elsewhere"), so a web instance's rate is its own and not
 * what is left of a core it shares. Also the figures that hold up on a shared machine: CPU time per call, read from
 * the measured process itself, and latencies timed per call with the monotonic clock.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const AUTOCANNON = createRequire(import.meta.url).resolve('autocannon/autocannon.js');
const LATENCY_CLIENT = fileURLToPath(new URL('./servers/latency-client.ts', import.meta.url));

/** The cores: the web instance's, and the one redis-server and the load share; undefined when there is no taskset or one core. */
export const CORES: { web: string; rest: string } | undefined = (() => {
  if (cpus().length < 2) return undefined;
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
    return { web: '0', rest: '1' };
  } catch {
    return undefined;
  }
})();

/** Pins a process and all its threads (taskset -a) to a core; nothing without CORES. */
export function pin(pid: number | undefined, core: 'web' | 'rest'): void {
  if (CORES === undefined || pid === undefined) return;
  execFileSync('taskset', ['-a', '-cp', CORES[core], String(pid)], { stdio: 'ignore' });
}

/** The command line of a node program on the load's core. */
function onRestCore(args: string[]): [string, string[]] {
  return CORES === undefined ? [process.execPath, args] : ['taskset', ['-c', CORES.rest, process.execPath, ...args]];
}

function run(args: string[]): Promise<string> {
  const [command, line] = onRestCore(args);
  return new Promise((resolve, reject) => {
    const child = spawn(command, line, { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString(); });
    child.once('error', reject);
    child.on('exit', () => resolve(out));
  });
}

/** A call to send: its body, as JSON unless `type` says another content type. */
export interface Post { port: number; path: string; body: string; type?: string }

export interface RateSample { rate: number; calls: number; p50: number }

/** autocannon on the load's core: `connections` connections for `seconds` (or exactly `amount` calls). */
export async function cannon(post: Post, connections: number, { seconds, amount }: { seconds?: number; amount?: number }): Promise<RateSample> {
  const args = [AUTOCANNON, '-j', '-c', String(connections), '-m', 'POST', '-H', `content-type=${post.type ?? 'application/json'}`, '-b', post.body];
  if (amount !== undefined) args.push('-a', String(amount));
  else args.push('-d', String(seconds ?? 5));
  const result = JSON.parse(await run([...args, `http://127.0.0.1:${post.port}${post.path}`])) as {
    requests: { average: number; total: number }; latency: { p50: number }; non2xx: number; errors: number;
  };
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${post.path}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return { rate: result.requests.average, calls: result.requests.total, p50: result.latency.p50 };
}

export interface LatencySample { calls: number; seconds: number; p50: number; p90: number; p99: number }

/**
 * Exactly `amount` calls over `connections` keep-alive connections, each timed (µs): a closed loop, or with `rate`
 * (calls per second over all connections) an open loop whose calls are due at that pace (servers/latency-client.ts).
 */
export async function timedCalls(post: Post, connections: number, amount: number, rate = 0): Promise<LatencySample> {
  const out = await run(['--import', 'tsx', LATENCY_CLIENT, String(post.port), post.path, post.body, String(connections), String(amount), String(rate)]);
  const result = JSON.parse(out) as { calls: number; seconds: number; latenciesUs: { p50: number; p90: number; p99: number }; non2xx: number };
  if (result.non2xx > 0) throw new Error(`${post.path}: ${result.non2xx} non-2xx answers`);
  return { calls: result.calls, seconds: result.seconds, ...result.latenciesUs };
}

/** The process's CPU time so far (user + system, µs), asked over IPC. */
export function cpuOf(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    const listener = (message: { type: string; cpu: number }): void => {
      if (message.type !== 'cpu') return;
      child.off('message', listener);
      resolve(message.cpu);
    };
    child.on('message', listener);
    child.send({ type: 'cpu' });
  });
}

/**
 * CPU time so far (user + system, µs) of a process that is not ours to ask over IPC (redis-server), from
 * /proc/<pid>/stat in clock ticks of 10 ms; undefined where there is no /proc.
 */
export function cpuOfPid(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return undefined;
  }
}

export const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
