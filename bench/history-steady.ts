/**
 * History at a steady pace (issue 63's goals are stated at 1 000 calls a second): each contender's server takes
 * `BENCH_HISTORY_STEADY_S` (default 10) seconds of calls at `BENCH_HISTORY_RATE` (1 000) a second, spread evenly
 * (history-paced.ts), after 3 s of warm-up at that pace. Per call: the server's CPU (its pending batch written
 * before it is read), the store's CPU (redis-server's, or PostgreSQL's processes'), and the statements PostgreSQL
 * ran, from pg_stat_statements (BEGIN/COMMIT included, the probe's own left out; exact, where pg_stat_database's
 * counters reach shared memory up to a second late); the latency at that pace. Contenders one after another, so
 * read their CPU against the noise of one window (a few %), not finer.
 */
import pg from 'pg';
import { paced } from './history-paced.js';
import { cpuOf, flushOf, startServer, stopServer } from './history-servers.js';
import type { BenchPostgres } from './postgres-server.js';
import { redisCpu, type BenchRedis } from './redis-server.js';

const PROBE = '/* bench probe */';

export interface SteadyContender { label: string; kind: string; env: NodeJS.ProcessEnv; store?: () => Promise<number> }

/** The statements run since the last reset, by text; the probe's own left out. */
async function statements(probe: pg.Client): Promise<Map<string, number>> {
  const found = await probe.query(`${PROBE} SELECT query, calls FROM pg_stat_statements WHERE query NOT LIKE '%bench probe%'`);
  const by = new Map<string, number>();
  for (const row of found.rows as Array<{ query: string; calls: string }>) {
    const text = row.query.replace(/\s+/g, ' ').trim();
    by.set(text, (by.get(text) ?? 0) + Number(row.calls));
  }
  return by;
}

/** The contenders of the CPU table, with their stores' CPU read as there. */
export function steadyContenders(redis: BenchRedis, postgres: BenchPostgres, base: { commit: string; entry: string }): SteadyContender[] {
  return [
    { label: 'history off, this build', kind: 'off', env: {} },
    { label: `history off, ${base.commit} (before history)`, kind: 'off', env: { BENCH_ENTRY: base.entry } },
    { label: 'history on, memory store', kind: 'memory', env: {} },
    { label: 'history on, memory store, no body kept (bodyBytes 0)', kind: 'memory', env: { BENCH_HISTORY_BODY_BYTES: '0' } },
    { label: 'history on, Redis store', kind: 'redis', env: { BENCH_REDIS_URL: redis.url }, store: () => redisCpu(redis.url) },
    { label: 'history on, PostgreSQL store', kind: 'postgres', env: { BENCH_POSTGRES_URL: postgres.url }, store: () => Promise.resolve(postgres.cpuMicros()) },
  ];
}

export async function benchHistorySteady(postgres: BenchPostgres, contenders: SteadyContender[]): Promise<string> {
  const seconds = Number(process.env.BENCH_HISTORY_STEADY_S ?? 10);
  const rate = Number(process.env.BENCH_HISTORY_RATE ?? 1000);
  const probe = new pg.Client({ connectionString: postgres.url });
  await probe.connect();
  try {
    await probe.query(`${PROBE} CREATE EXTENSION IF NOT EXISTS pg_stat_statements`);
    const lines = [`${seconds} s at ${rate.toLocaleString('en')} calls a second, spread evenly over 10 connections, 1 kB JSON bodies, \`flushMs\` 200 (default):`, '',
      '| server | calls answered 2xx | server µs CPU/call | ÷ the first | store µs CPU/call | PostgreSQL statements | calls per statement | p50 | p99 |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|'];
    let seen = new Map<string, number>();
    let first: number | undefined;
    for (const contender of contenders) {
      const server = await startServer(contender.label, contender.kind, contender.env);
      try {
        // Warm-up at the same pace: the JIT, the store's connections and the schema's migration are not measured.
        await paced(server.port, 3, rate);
        await flushOf(server);
        const [serverBefore, storeBefore] = await Promise.all([cpuOf(server), contender.store?.() ?? 0]);
        await probe.query(`${PROBE} SELECT pg_stat_statements_reset()`);
        const sent = await paced(server.port, seconds, rate);
        // The batch still waiting when the load ended belongs to these calls: cpuOf writes it first, counted.
        const [serverAfter, storeAfter] = await Promise.all([cpuOf(server), contender.store?.() ?? 0]);
        const ran = await statements(probe);
        const total = [...ran.values()].reduce((sum, calls) => sum + calls, 0);
        if (contender.kind === 'postgres') seen = ran;
        const calls = sent.answered2xx;
        const perCall = (serverAfter - serverBefore) / calls;
        first ??= perCall;
        process.stderr.write(`history steady: ${contender.label} ${perCall.toFixed(1)} µs/call, ${total} statements\n`);
        lines.push(`| ${contender.label} | ${calls.toLocaleString('en')} | ${perCall.toFixed(1)} | ${(perCall / first).toFixed(2)} | `
          + `${contender.store === undefined ? '—' : ((storeAfter - storeBefore) / calls).toFixed(1)} | ${total} | ${total === 0 ? '—' : (calls / total).toFixed(0)} | `
          + `${sent.p50.toFixed(2)} ms | ${sent.p99.toFixed(2)} ms |`);
      } finally {
        await stopServer(server);
      }
    }
    lines.push('', 'The statements of the PostgreSQL store\'s window:', '', '| calls | statement |', '|---:|---|');
    for (const [text, calls] of [...seen].sort((a, b) => b[1] - a[1])) lines.push(`| ${calls} | \`${text.slice(0, 140).replaceAll('|', '\\|')}\` |`);
    return lines.join('\n');
  } finally {
    await probe.end();
  }
}
