/**
 * What a crash loses of history: a server keeping calls on Redis or PostgreSQL, under `BENCH_HISTORY_RATE` (1 000)
 * calls a second (spread evenly), killed with SIGKILL `BENCH_HISTORY_KILL_MS` (2 500) ms into the load, plus 40 ms
 * more each run so that the kills fall at every point of the writer's 200 ms cycle, `BENCH_HISTORY_KILLS` (5) times
 * per store. Each run has a store of its own (a Redis prefix, a PostgreSQL schema) with room for every call;
 * its calls answered 2xx are set against those found in the store afterwards. The writer's
 * design says a crash loses the calls not yet written: up to `flushMs` (200) of them, and the batch on its way.
 */
import pg from 'pg';
import { createClient } from 'redis';
import { paced } from './history-paced.js';
import { flushOf, load, startServer } from './history-servers.js';
import type { BenchPostgres } from './postgres-server.js';
import type { BenchRedis } from './redis-server.js';

const WARM_CALLS = 500;

interface Run { killMs: number; answered: number; kept: number }

async function keptOn(kind: 'redis' | 'postgres', place: string, redis: BenchRedis, postgres: BenchPostgres): Promise<number> {
  if (kind === 'redis') {
    const client = createClient({ url: redis.url });
    client.on('error', () => undefined);
    await client.connect();
    try {
      return Number(await client.zCard(`${place}:history`));
    } finally {
      client.destroy();
    }
  }
  const client = new pg.Client({ connectionString: postgres.url });
  await client.connect();
  try {
    return Number((await client.query(`SELECT count(*) AS kept FROM ${place}.history_calls`)).rows[0]?.kept ?? 0);
  } finally {
    await client.end();
  }
}

async function crashRun(kind: 'redis' | 'postgres', run: number, redis: BenchRedis, postgres: BenchPostgres): Promise<Run> {
  const rate = Number(process.env.BENCH_HISTORY_RATE ?? 1000);
  const killMs = Number(process.env.BENCH_HISTORY_KILL_MS ?? 2500) + (run - 1) * 40;
  const place = `bench_crash_${kind}_${process.pid}_${run}`;
  const server = await startServer(`crash ${kind} ${run}`, kind, {
    BENCH_REDIS_URL: redis.url, BENCH_POSTGRES_URL: postgres.url, BENCH_HISTORY_PLACE: place, BENCH_HISTORY_MAX: '1000000',
  });
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  try {
    // The store's connections and schema are made, and the JIT warm, before the load the crash interrupts.
    await load(server.port, WARM_CALLS);
    await flushOf(server);
    const before = await keptOn(kind, place, redis, postgres);
    const killer = setTimeout(() => server.child.kill('SIGKILL'), killMs);
    const sent = await paced(server.port, killMs / 1000 + 1, rate);
    clearTimeout(killer);
    await exited;
    return { killMs, answered: sent.answered2xx, kept: await keptOn(kind, place, redis, postgres) - before };
  } finally {
    server.child.kill('SIGKILL');
  }
}

export async function benchHistoryCrash(redis: BenchRedis, postgres: BenchPostgres): Promise<string> {
  const kills = Number(process.env.BENCH_HISTORY_KILLS ?? 5);
  const rate = Number(process.env.BENCH_HISTORY_RATE ?? 1000);
  const lines = [`Killed with SIGKILL under ${rate.toLocaleString('en')} calls a second, \`flushMs\` 200 (default):`, '',
    '| store | run | killed after | calls answered 2xx | found in history | lost | lost, in ms of calls at that pace |', '|---|---:|---:|---:|---:|---:|---:|'];
  for (const kind of ['redis', 'postgres'] as const) {
    for (let run = 1; run <= kills; run += 1) {
      const { killMs, answered, kept } = await crashRun(kind, run, redis, postgres);
      const lost = answered - kept;
      process.stderr.write(`history crash ${kind} ${run}: ${answered} answered, ${kept} kept\n`);
      lines.push(`| ${kind === 'redis' ? 'Redis' : 'PostgreSQL'} | ${run} | ${(killMs / 1000).toFixed(2)} s | ${answered.toLocaleString('en')} | ${kept.toLocaleString('en')} | ${lost} | ${Math.round((lost * 1000) / rate)} |`);
    }
  }
  return lines.join('\n');
}
