/**
 * `npm run bench -- ratelimit`: what a rate limit costs per call, as CPU time, which a shared machine measures far
 * more steadily than throughput. First the stage alone, in this process. Then one server per registry (the middleware
 * on node:http, servers/rate-limit-server.ts; the memory registry, the Redis registry on a private redis-server and the
 * PostgreSQL registry on a private PostgreSQL server),
 * each in its own process; autocannon in another sends a fixed number of calls to one address at a time, and the
 * server's `process.cpuUsage()` before and after gives µs per call (user + system, its GC included). The addresses:
 * no limit; a limit with room, keyed by address, by caller address, by header; a spent limit (every call refused
 * 429). Each limited address is measured right after or before the unlimited one of its server (the order flips every
 * round), and the table gives the median of those paired ratios; with Redis, redis-server's own CPU per call (INFO
 * cpu) beside it, with PostgreSQL that of the postmaster and its backends (/proc). `BENCH_BASELINE=<commit>` adds the unlimited address served by that commit's build (made as the
 * speed bench makes its pinned older builds) against this checkout's dist/, paired `BENCH_BASELINE_ROUNDS` (21) times,
 * beside a second baseline server against the first (the noise floor), each serving that address alone.
 * `BENCH_CALLS` sets the calls per measurement (default 20 000).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { autocannonJson, median, stop } from './http.js';
import { startPostgres } from './postgres-server.js';
import { redisCpu, startRedis } from './redis-server.js';
import { buildBaseline } from './speed/baselines.js';
import { ensureBuild, ROOT } from './speed/runner.js';
import { MemoryWebhookRegistry } from '../lib/index.js';
import { limitCall, rateLimitSettings, resolveRateLimitOptions } from '../lib/webhooks/rate-limit/index.js';
import type { IncomingMessage, ServerResponse } from 'node:http';

const SERVER = fileURLToPath(new URL('./servers/rate-limit-server.ts', import.meta.url));
const BODY = '{"order":1234,"items":[{"sku":"tea","qty":2}],"customer":{"name":"Ada"}}';

interface Server { label: string; child: ChildProcess; port: number }
interface Case { label: string; path: string; status: number; headers?: Record<string, string> }

const CASES: Case[] = [
  { label: 'no rate limit', path: '/webhook/open', status: 200 },
  { label: 'limited, key address, with room', path: '/webhook/address', status: 200 },
  { label: 'limited, key ip, with room', path: '/webhook/ip', status: 200 },
  { label: 'limited, key x-api-key header, with room', path: '/webhook/header', status: 200, headers: { 'x-api-key': 'sk_live_bench_0123456789abcdef' } },
  { label: 'limited, spent: refused 429', path: '/webhook/spent', status: 429 },
];

async function start(label: string, args: string[], env: NodeJS.ProcessEnv): Promise<Server> {
  const child = fork(SERVER, args, { execArgv: ['--expose-gc', '--conditions=workflow-webhooks-source', '--import', 'tsx'], env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message: { port: number }) => resolve(message.port));
    child.once('exit', (code) => reject(new Error(`server ${label} exited with ${String(code)}`)));
  });
  return { label, child, port };
}

function cpuOf(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    const heard = (message: { type?: string; usage?: NodeJS.CpuUsage }): void => {
      if (message.type !== 'cpu' || message.usage === undefined) return;
      child.off('message', heard);
      resolve(message.usage.user + message.usage.system);
    };
    child.on('message', heard);
    child.send({ type: 'cpu' });
  });
}

/** Sends exactly `amount` calls over 10 connections; rejects if any got another status than the case's. */
async function send(port: number, one: Case, amount: number): Promise<void> {
  const args = ['-j', '-c', String(Math.min(10, amount)), '-a', String(amount), '-m', 'POST', '-H', 'content-type=application/json', '-b', BODY];
  for (const [name, value] of Object.entries(one.headers ?? {})) args.push('-H', `${name}=${value}`);
  args.push(`http://127.0.0.1:${port}${one.path}`);
  const result = await autocannonJson<{ non2xx: number; errors: number; statusCodeStats?: Record<string, { count: number }> }>(args);
  const wrong = one.status === 200 ? result.non2xx : amount - (result.statusCodeStats?.[String(one.status)]?.count ?? 0);
  // A spent address let its one call through before the measured calls, so all of them must be refused.
  if (result.errors > 0 || wrong > 0) throw new Error(`${one.path}: ${wrong} calls answered otherwise than ${one.status}, ${result.errors} errors`);
}


/** The built package of that commit (as the speed bench builds its pinned older builds), and this checkout's dist/. */
function builtEntries(ref: string): { own: string; base: string } {
  const built = buildBaseline({ commit: ref, reason: 'BENCH_BASELINE of npm run bench -- ratelimit' });
  if ('notRun' in built) throw new Error(`BENCH_BASELINE=${ref}: ${built.notRun}`);
  ensureBuild();
  return { own: join(ROOT, 'dist', 'index.js'), base: built.entry };
}

/** Nanoseconds per call of `call` (which may return a promise), the median of five runs of `calls` calls. */
async function perCall(calls: number, call: () => unknown): Promise<number> {
  const runs: number[] = [];
  for (let run = 0; run < 5; run += 1) {
    const started = process.hrtime.bigint();
    for (let index = 0; index < calls; index += 1) {
      const pending = call();
      if (pending instanceof Promise) await pending;
    }
    runs.push(Number(process.hrtime.bigint() - started) / calls);
  }
  return median(runs);
}

/**
 * The rate limit stage alone, in this process, over the memory registry: what an unlimited call pays on top of what it
 * paid before, and what a limited one pays with room left, by key (wall time, median of five runs; no HTTP).
 */
async function stageAlone(): Promise<string> {
  const registry = new MemoryWebhookRegistry();
  const roomy = { limit: 1_000_000_000, windowMs: 86_400_000 };
  const activate = async (path: string, rateLimit?: object): Promise<unknown> => (await registry.activate({
    workflowId: path, nodes: [{ name: 'Webhook', parameters: { path, httpMethod: 'POST' } }], ...(rateLimit === undefined ? {} : { settings: { rateLimit } as never }),
  }))[0];
  const settings = rateLimitSettings(resolveRateLimitOptions(undefined), 0, registry, { warn: () => undefined, error: () => undefined });
  const req = { headers: { 'x-api-key': 'sk_live_bench_0123456789abcdef' }, socket: { remoteAddress: '203.0.113.7' } } as unknown as IncomingMessage;
  const res = { getHeader: () => undefined, setHeader: () => res } as unknown as ServerResponse;
  const rows: string[] = [];
  for (const [label, webhook, calls] of [
    ['no rate limit', await activate('open'), 10_000_000],
    ['limited, key address', await activate('address', roomy), 300_000],
    ['limited, key ip', await activate('ip', { ...roomy, key: 'ip' }), 300_000],
    ['limited, key x-api-key header', await activate('header', { ...roomy, key: 'x-api-key' }), 300_000],
  ] as const) {
    const ns = await perCall(calls, () => limitCall(req, res, 'production', webhook as never, settings, undefined));
    rows.push(`| ${label} | ${ns < 1000 ? `${ns.toFixed(1)} ns` : `${(ns / 1000).toFixed(2)} µs`} | ${calls.toLocaleString('en')} |`);
  }
  return ['The stage alone, in this process, memory registry (no HTTP; wall time per call, median of 5 runs):', '',
    '| address | per call | calls per run |', '|---|---|---|', ...rows].join('\n');
}

export async function benchRateLimit(settings: { rounds: number }): Promise<string> {
  const stage = await stageAlone();
  const amount = Number(process.env.BENCH_CALLS ?? 20_000);
  const redis = await startRedis();
  const postgres = await startPostgres();
  const servers: Server[] = [];
  const baseline = process.env.BENCH_BASELINE;
  try {
    servers.push(await start('memory registry', ['memory'], {}));
    servers.push(await start('Redis registry', ['redis'], { BENCH_REDIS_URL: redis.url }));
    servers.push(await start('PostgreSQL registry', ['postgres'], { BENCH_POSTGRES_URL: postgres.url }));
    // The baseline and this build each serve the unlimited address alone, in servers set up alike, so that a pair
    // compares code, not what else a server has served; a second baseline server against the first is the noise floor.
    const alone: Server[] = [];
    let base = '';
    if (baseline !== undefined) {
      const entries = builtEntries(baseline);
      base = baseline;
      alone.push(await start('this build', ['memory'], { BENCH_ENTRY: entries.own }));
      alone.push(await start(base, ['memory'], { BENCH_ENTRY: entries.base }));
      alone.push(await start(`${base}, a second server`, ['memory'], { BENCH_ENTRY: entries.base }));
      servers.push(...alone);
    }
    const [memory, onRedis, onPostgres] = servers as [Server, Server, Server];
    /** The CPU so far of the store a server counts in: redis-server's, or every PostgreSQL process's; none for memory. */
    const storeCpu = async (server: Server): Promise<number> => (server === onRedis ? redisCpu(redis.url) : server === onPostgres ? postgres.cpuMicros() : 0);
    const cpu = new Map<string, number[]>();
    const redisCpuOf = new Map<string, number[]>();
    const ratios = new Map<string, number[]>();
    const keyOf = (server: Server, one: Case): string => `${server.label}\u0000${one.label}`;
    const push = (map: Map<string, number[]>, key: string, value: number): void => { map.set(key, [...(map.get(key) ?? []), value]); };
    const measure = async (server: Server, one: Case): Promise<number> => {
      const [before, redisBefore] = await Promise.all([cpuOf(server.child), storeCpu(server)]);
      await send(server.port, one, amount);
      const [after, redisAfter] = await Promise.all([cpuOf(server.child), storeCpu(server)]);
      const perCall = (after - before) / amount;
      push(cpu, keyOf(server, one), perCall);
      push(redisCpuOf, keyOf(server, one), (redisAfter - redisBefore) / amount);
      return perCall;
    };
    /** Two measurements back to back, in an order that flips every round; the second's CPU over the first's. */
    const pair = async (round: number, first: [Server, Case], second: [Server, Case]): Promise<number> => {
      if (round % 2 === 1) {
        const later = await measure(...second);
        return later / await measure(...first);
      }
      const earlier = await measure(...first);
      return await measure(...second) / earlier;
    };
    const open = CASES[0] as Case;
    // Warm-up: every path of every server, and the spent addresses' one call through.
    for (const server of servers) {
      for (const one of alone.includes(server) ? [open] : CASES) {
        if (one.status === 429) await send(server.port, { ...one, status: 200 }, 1);
        await send(server.port, one, Math.min(amount, 5000));
      }
    }
    const [own, earlier, again] = alone;
    const baselineRounds = Number(process.env.BENCH_BASELINE_ROUNDS ?? 21);
    for (let round = 0; own !== undefined && earlier !== undefined && again !== undefined && round < baselineRounds; round += 1) {
      push(ratios, keyOf(own, open), await pair(round, [earlier, open], [own, open]));
      push(ratios, keyOf(again, open), await pair(round, [earlier, open], [again, open]));
    }
    for (let round = 0; round < settings.rounds; round += 1) {
      for (const server of [memory, onRedis, onPostgres]) {
        for (const one of CASES.slice(1)) push(ratios, keyOf(server, one), await pair(round, [server, open], [server, one]));
      }
    }
    const lines = [stage, '', `${amount.toLocaleString('en')} calls per measurement, ${settings.rounds} rounds: median µs of CPU per call, and the median of`
      + ' the rounds\' ratios, each of two measurements taken back to back on the same server', '',
      '| registry | address | server µs/call | ratio to no limit, same server | store µs/call (redis-server, or PostgreSQL\'s processes) |', '|---|---|---|---|---|'];
    for (const server of [memory, onRedis, onPostgres]) {
      for (const one of CASES) {
        const key = keyOf(server, one);
        const ratio = ratios.get(key);
        const redisShown = server !== memory ? median(redisCpuOf.get(key) ?? []).toFixed(1) : '—';
        lines.push(`| ${server.label} | ${one.label} | ${median(cpu.get(key) ?? []).toFixed(1)} | ${ratio === undefined ? '—' : median(ratio).toFixed(2)} | ${redisShown} |`);
      }
    }
    if (own === undefined || earlier === undefined || again === undefined) return lines.join('\n');
    lines.push('', `The unlimited address against ${base}, each server serving it alone (memory registry), ${baselineRounds} pairs of`
      + ` ${amount.toLocaleString('en')} calls back to back, the order flipping every pair:`, '',
      '| server | µs/call (median) | ÷ the baseline (median of pairs) | range of pairs |', '|---|---|---|---|');
    for (const server of [own, earlier, again]) {
      const ratio = ratios.get(keyOf(server, open));
      const shown = ratio === undefined ? ['—', '—'] : [median(ratio).toFixed(2), `${Math.min(...ratio).toFixed(2)}–${Math.max(...ratio).toFixed(2)}`];
      lines.push(`| ${server.label} | ${median(cpu.get(keyOf(server, open)) ?? []).toFixed(1)} | ${shown[0]} | ${shown[1]} |`);
    }
    return lines.join('\n');
  } finally {
    await Promise.all(servers.map(({ child }) => stop(child)));
    await redis.stop();
    await postgres.stop();
  }
}
