/**
 * `npm run bench -- history`: what keeping call history costs a call (issue 63), three measures in one run.
 * 1. CPU and latency: one server per contender (servers/history-server.ts: the middleware on node:http, one webhook,
 *    a 1 kB JSON body, `bodyBytes` 4096), each in its own process: history off in this build, in a second server of
 *    it (the noise floor), and in an older commit (`BENCH_HISTORY_BASE`, default 27ab35d, main before history), then
 *    history on with the memory store (and with it keeping no body, `bodyBytes` 0), the Redis and the PostgreSQL
 *    store (a private redis-server and PostgreSQL). autocannon in another process sends `BENCH_CALLS` (20 000)
 *    calls over 10 connections; the server's `process.cpuUsage()` before and after (its pending batch written and a
 *    gc() run first, so the writes and garbage of those calls are in their bill) gives µs per call; the store's own
 *    CPU beside it. Each contender is measured right before or after this build's history-off server, the order
 *    flipping every round; the ratio is the median of those pairs.
 * 2. At a steady 1 000 calls a second, each server's and store's CPU per call and PostgreSQL's statements per call
 *    (history-steady.ts).
 * 3. What a crash loses: servers keeping calls on Redis and PostgreSQL killed with SIGKILL under load (history-crash.ts).
 * `BENCH_ROUNDS` (default 5) rounds; `BENCH_HISTORY_PARTS` a comma list of cpu, steady, crash (default all).
 */
import { benchHistoryCrash } from './history-crash.js';
import { cpuOf, load, olderSources, startServer, stopServer, type Load, type Server } from './history-servers.js';
import { benchHistorySteady, steadyContenders } from './history-steady.js';
import { median } from './http.js';
import { startPostgres, type BenchPostgres } from './postgres-server.js';
import { redisCpu, startRedis, type BenchRedis } from './redis-server.js';

interface Contender { server: Server; store?: () => Promise<number> }
interface Measure { cpu: number; store: number; load: Load }

const fixed = (value: number, digits = 1): string => value.toFixed(digits);

async function measure(contender: Contender, amount: number): Promise<Measure> {
  const [before, storeBefore] = await Promise.all([cpuOf(contender.server), contender.store?.() ?? 0]);
  const sent = await load(contender.server.port, amount);
  const [after, storeAfter] = await Promise.all([cpuOf(contender.server), contender.store?.() ?? 0]);
  return { cpu: (after - before) / amount, store: (storeAfter - storeBefore) / amount, load: sent };
}

async function cpuTable(redis: BenchRedis, postgres: BenchPostgres, rounds: number, older: { commit: string; entry: string }): Promise<string> {
  const amount = Number(process.env.BENCH_CALLS ?? 20_000);
  const { commit: base, entry } = older;
  const started: Server[] = [];
  const begin = async (label: string, kind: string, env: NodeJS.ProcessEnv = {}): Promise<Server> => {
    const server = await startServer(label, kind, env);
    started.push(server);
    return server;
  };
  try {
    const own: Contender = { server: await begin('history off, this build', 'off') };
    const contenders: Contender[] = [
      { server: await begin('history off, this build, a second server (the noise floor)', 'off') },
      { server: await begin(`history off, ${base} (before history)`, 'off', { BENCH_ENTRY: entry }) },
      { server: await begin('history on, memory store', 'memory') },
      { server: await begin('history on, memory store, no body kept (bodyBytes 0)', 'memory', { BENCH_HISTORY_BODY_BYTES: '0' }) },
      { server: await begin('history on, Redis store', 'redis', { BENCH_REDIS_URL: redis.url }), store: () => redisCpu(redis.url) },
      { server: await begin('history on, PostgreSQL store', 'postgres', { BENCH_POSTGRES_URL: postgres.url }), store: () => Promise.resolve(postgres.cpuMicros()) },
    ];
    const all = [own, ...contenders];
    // Warm-up: the JIT, the stores' connections, the PostgreSQL schema, and each store filled to its retention.
    for (const contender of all) await measure(contender, Math.min(amount, 12_000));
    const measures = new Map<Contender, Measure[]>(all.map((contender) => [contender, []]));
    const ratios = new Map<Contender, number[]>(contenders.map((contender) => [contender, []]));
    const take = async (contender: Contender): Promise<Measure> => {
      const got = await measure(contender, amount);
      measures.get(contender)?.push(got);
      return got;
    };
    for (let round = 0; round < rounds; round += 1) {
      for (const contender of contenders) {
        const [first, second] = round % 2 === 0 ? [own, contender] : [contender, own];
        const a = await take(first);
        const b = await take(second);
        const [mine, theirs] = first === own ? [a, b] : [b, a];
        ratios.get(contender)?.push(theirs.cpu / mine.cpu);
        process.stderr.write(`history round ${round + 1}: ${contender.server.label} ${fixed(theirs.cpu)} µs against ${fixed(mine.cpu)} µs\n`);
      }
    }
    const lines = [`${amount.toLocaleString('en')} calls per measurement over 10 connections, ${rounds} rounds: medians; the ratio is the`
      + ' median of the rounds\' ratios, each of two measurements back to back', '',
      '| server | server µs CPU/call | ÷ history off, this build (rounds) | store µs CPU/call | calls/s | mean latency | p99 |',
      '|---|---:|---|---:|---:|---:|---:|'];
    for (const contender of all) {
      const got = measures.get(contender) ?? [];
      const ratio = ratios.get(contender);
      const shown = ratio === undefined ? '—' : `${fixed(median(ratio), 3)} (${ratio.map((one) => fixed(one, 2)).join(', ')})`;
      const storeShown = contender.store === undefined ? '—' : fixed(median(got.map((one) => one.store)));
      lines.push(`| ${contender.server.label} | ${fixed(median(got.map((one) => one.cpu)))} | ${shown} | ${storeShown} | `
        + `${Math.round(median(got.map((one) => one.load.perSecond))).toLocaleString('en')} | ${fixed(median(got.map((one) => one.load.mean)), 2)} ms | ${median(got.map((one) => one.load.p99))} ms |`);
    }
    return lines.join('\n');
  } finally {
    await Promise.all(started.map(stopServer));
  }
}

export async function benchHistory(): Promise<string> {
  const parts = new Set((process.env.BENCH_HISTORY_PARTS ?? 'cpu,steady,crash').split(','));
  const commit = process.env.BENCH_HISTORY_BASE ?? '27ab35d';
  const older = { commit, entry: olderSources(commit) };
  const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
  const redis = await startRedis();
  let postgres: BenchPostgres | undefined;
  try {
    postgres = await startPostgres({ statements: true });
    const sections: string[] = [];
    if (parts.has('cpu')) sections.push(await cpuTable(redis, postgres, rounds, older));
    if (parts.has('steady')) sections.push(await benchHistorySteady(postgres, steadyContenders(redis, postgres, older)));
    if (parts.has('crash')) sections.push(await benchHistoryCrash(redis, postgres));
    return sections.join('\n\n');
  } finally {
    await postgres?.stop();
    await redis.stop();
  }
}

