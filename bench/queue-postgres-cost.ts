/**
 * What queue mode costs the database on PostgreSQL, beside its two yardsticks on the same throwaway cluster in the
 * same run: BullMQ's PostgreSQL backend driven directly (what the library cannot do with less) and graphile-worker
 * (the PostgreSQL-native queue most Node teams know). For each, in rounds that alternate their order: the database's
 * CPU per stored job (`jobs` jobs stored 10 at a time: through a queue-mode web instance for the library) and per
 * completed job (one worker, concurrency 20, no-op, draining them), and, from pg_stat_statements, the statements that
 * time went to, per job. Run by bench/queue-stores.ts on its PostgreSQL cluster. See bench/README.md.
 */
import type { ChildProcess } from 'node:child_process';
import { createPostgresBackend, withBackend } from 'bullmq';
import pg from 'pg';
import { stop } from './http.js';
import type { BenchPostgres } from './postgres-server.js';
import { cannon, median, pin } from './pinned.js';
import { start, until, type Child } from './queue-mode.js';

const PATH = '/hooks/webhook/bench';
const BODY = '{"order":42,"item":"Tea","quantity":3}';
const WARM_JOBS = 200;
/** The probes of this benchmark (how many jobs are done) carry this mark, so the statement tables leave them out. */
const PROBE = '/* bench probe */';
/** Statements shown per contender and phase. */
const TOP = Number(process.env.BENCH_TOP_STATEMENTS ?? 6);
/** The database counts as quiet under this much CPU in a second (its idle processes with every contender up: ~0). */
const QUIET_MICROS = 10_000;

/** One queue as the benchmark drives it: a producer kept running, a worker started for each drain. */
interface Contender {
  name: string;
  /** Stores `jobs` jobs; resolves the rate they were stored at (jobs/s). */
  store(jobs: number): Promise<number>;
  worker(): Promise<Child>;
  done(): Promise<number>;
  empty(): Promise<void>;
  close(): Promise<void>;
}

interface Phase { cpu: number[]; rate: number[]; sessions: number[]; statements: Map<string, { calls: number; ms: number }> }

function asked(child: ChildProcess, message: object, answer: string): Promise<void> {
  return new Promise((resolve) => {
    const listener = (reply: { type: string }): void => {
      if (reply.type !== answer) return;
      child.off('message', listener);
      resolve();
    };
    child.on('message', listener);
    child.send(message);
  });
}

async function count(probe: pg.Client, sql: string, values: unknown[]): Promise<number> {
  return Number((await probe.query(`${PROBE} ${sql}`, values)).rows[0]?.count ?? 0);
}

/** The library: a queue-mode web instance (onReceived) that stores, the library's bench worker that drains. */
async function library(url: string, probe: pg.Client): Promise<Contender> {
  const env = { DATABASE_URL: url, QUEUE_NAME: 'cost-library' };
  const web = await start('queue-mode-web.ts', ['queue', 'onReceived'], env);
  pin(web.child.pid, 'web');
  const { Queue } = withBackend(createPostgresBackend);
  const jobs = new Queue('cost-library', { connection: { connectionString: url } });
  return {
    name: 'workflow-webhooks (queue mode)',
    // autocannon's own rate: the time it takes to start is not the store's.
    store: async (amount) => (await cannon({ port: web.port, path: PATH, body: BODY }, 10, { amount })).rate,
    worker: () => start('queue-mode-worker.ts', [], { ...env, QUEUE_CONCURRENCY: '20' }),
    done: () => count(probe, "SELECT count(*) FROM bullmq.job WHERE queue = $1 AND state = 'completed'", ['cost-library']),
    empty: () => jobs.obliterate({ force: true }),
    close: async () => { await jobs.close(); await stop(web.child); },
  };
}

/** BullMQ's backend driven directly, or graphile-worker: bench/servers/pg-queue-direct.ts. */
async function direct(engine: 'bullmq' | 'graphile', url: string, probe: pg.Client, jobData: string): Promise<Contender> {
  const env = { DATABASE_URL: url, QUEUE_NAME: 'cost-direct', JOB_DATA: jobData };
  const producer = await start('pg-queue-direct.ts', [engine, 'produce'], env);
  pin(producer.child.pid, 'web');
  let stored = 0;
  const { Queue } = withBackend(createPostgresBackend);
  const jobs = engine === 'bullmq' ? new Queue('cost-direct', { connection: { connectionString: url } }) : undefined;
  return {
    name: engine === 'bullmq' ? 'BullMQ 6 PostgreSQL backend, direct' : 'graphile-worker 0.17',
    store: async (amount) => {
      const began = performance.now();
      await asked(producer.child, { type: 'produce', jobs: amount, connections: 10 }, 'produced');
      stored += amount;
      return amount / ((performance.now() - began) / 1000);
    },
    worker: () => start('pg-queue-direct.ts', [engine, 'work'], { ...env, QUEUE_CONCURRENCY: '20' }),
    // graphile-worker deletes a job once it is done: done is what was stored less what is left.
    done: async () => (jobs === undefined ? stored - await count(probe, 'SELECT count(*) FROM graphile_worker.jobs', [])
      : count(probe, "SELECT count(*) FROM bullmq.job WHERE queue = $1 AND state = 'completed'", ['cost-direct'])),
    empty: async () => {
      if (jobs !== undefined) await jobs.obliterate({ force: true });
      else await probe.query(`${PROBE} DELETE FROM graphile_worker._private_jobs`);
      stored = 0;
    },
    close: async () => { await jobs?.close(); await stop(producer.child); },
  };
}

/** The job data the library stored for a call: the yardsticks store as many bytes per job. */
async function libraryJobData(probe: pg.Client): Promise<string> {
  const found = await probe.query(`${PROBE} SELECT data FROM bullmq.job WHERE queue = 'cost-library' LIMIT 1`);
  const data: unknown = found.rows[0]?.data;
  return typeof data === 'string' ? data : JSON.stringify(data);
}

/** pg_stat_statements since the last reset, this benchmark's probes left out, into `into`. */
async function takeStatements(probe: pg.Client, into: Map<string, { calls: number; ms: number }>): Promise<void> {
  const found = await probe.query(`${PROBE} SELECT query, calls, total_exec_time FROM pg_stat_statements
    WHERE query NOT LIKE '%bench probe%' AND query NOT LIKE '%pg_stat_statements%'`);
  for (const row of found.rows as Array<{ query: string; calls: string; total_exec_time: number }>) {
    const text = row.query.replace(/\s+/g, ' ').trim();
    const kept = into.get(text) ?? { calls: 0, ms: 0 };
    into.set(text, { calls: kept.calls + Number(row.calls), ms: kept.ms + row.total_exec_time });
  }
  await probe.query(`${PROBE} SELECT pg_stat_statements_reset()`);
}

/** Connections the server has accepted so far (each one a backend forked, authenticated and its caches filled). */
async function sessions(probe: pg.Client): Promise<number> {
  return Number((await probe.query(`${PROBE} SELECT sum(sessions) AS sessions FROM pg_stat_database`)).rows[0]?.sessions ?? 0);
}

/**
 * Waits (up to 30 s) until the database has been quiet for a second: what the previous window left it to do in the
 * background (autovacuum of the rows it updated or deleted, a checkpoint) would otherwise land in whichever window
 * comes next, most in the longest. So that work counts for no contender.
 */
async function settle(postgres: BenchPostgres): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (let before = postgres.cpuMicros(); Date.now() < deadline;) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const now = postgres.cpuMicros();
    if (now - before <= QUIET_MICROS) return;
    before = now;
  }
}

async function measure(contender: Contender, jobs: number, postgres: BenchPostgres, probe: pg.Client, phases: [Phase, Phase]): Promise<void> {
  const [stored, completed] = phases;
  await contender.empty();
  await settle(postgres);
  await probe.query(`${PROBE} SELECT pg_stat_statements_reset()`);
  let opened = await sessions(probe);
  let cpu = postgres.cpuMicros();
  stored.rate.push(await contender.store(jobs));
  stored.cpu.push((postgres.cpuMicros() - cpu) / jobs);
  stored.sessions.push(await sessions(probe) - opened);
  await settle(postgres);
  await takeStatements(probe, stored.statements);
  opened = await sessions(probe);
  cpu = postgres.cpuMicros();
  const began = performance.now();
  const worker = await contender.worker();
  pin(worker.child.pid, 'web');
  try {
    await until(async () => (await contender.done()) >= jobs, 300_000, 100);
    completed.rate.push(jobs / ((performance.now() - began) / 1000));
    completed.cpu.push((postgres.cpuMicros() - cpu) / jobs);
    completed.sessions.push(await sessions(probe) - opened);
  } finally {
    await stop(worker.child);
  }
  await takeStatements(probe, completed.statements);
}

const us = (value: number): string => `${Math.round(value)} µs`;
const int = (value: number): string => Math.round(value).toLocaleString('en');

function statementLines(name: string, label: string, phase: Phase, jobs: number): string[] {
  const total = jobs * phase.cpu.length;
  return [...phase.statements].sort((a, b) => b[1].ms - a[1].ms).slice(0, TOP).map(([query, { calls, ms }]) =>
    `| ${name} | ${label} | ${(calls / total).toFixed(2)} | ${((ms * 1000) / total).toFixed(1)} | \`${query.slice(0, 110).replaceAll('|', '\\|')}\` |`);
}

/** The comparison, on the cluster of `postgres` (started with pg_stat_statements). */
export async function benchPostgresCost(postgres: BenchPostgres, rounds: number, jobs: number): Promise<string> {
  const probe = new pg.Client({ connectionString: postgres.url });
  await probe.connect();
  const contenders: Contender[] = [];
  try {
    await probe.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    const ours = await library(postgres.url, probe);
    contenders.push(ours);
    await ours.store(WARM_JOBS);
    const jobData = await libraryJobData(probe);
    contenders.push(await direct('bullmq', postgres.url, probe, jobData), await direct('graphile', postgres.url, probe, jobData));
    const phases = contenders.map((): [Phase, Phase] => [{ cpu: [], rate: [], sessions: [], statements: new Map() }, { cpu: [], rate: [], sessions: [], statements: new Map() }]);
    // Warm: every schema made and every statement planned before the first measured round.
    const warm = phases.map((): [Phase, Phase] => [{ cpu: [], rate: [], sessions: [], statements: new Map() }, { cpu: [], rate: [], sessions: [], statements: new Map() }]);
    for (const [index, contender] of contenders.entries()) await measure(contender, WARM_JOBS, postgres, probe, warm[index] as [Phase, Phase]);
    // What the database spends with nothing to do (its own background processes, the contenders' idle connections):
    // a phase that lasts longer carries more of it.
    await settle(postgres);
    const idleFrom = postgres.cpuMicros();
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const idlePerSecond = (postgres.cpuMicros() - idleFrom) / 3;
    for (let round = 0; round < rounds; round += 1) {
      for (let turn = 0; turn < contenders.length; turn += 1) {
        const index = (round + turn) % contenders.length;
        await measure(contenders[index] as Contender, jobs, postgres, probe, phases[index] as [Phase, Phase]);
        await contenders[index]?.empty();
      }
    }
    const perJob = (index: number, round: number): number => (phases[index]?.[0].cpu[round] ?? 0) + (phases[index]?.[1].cpu[round] ?? 0);
    const ratios = Array.from({ length: rounds }, (_, round) => perJob(0, round) / perJob(1, round));
    const rows = contenders.map((contender, index) => {
      const [stored, completed] = phases[index] as [Phase, Phase];
      const both = Array.from({ length: rounds }, (_, round) => perJob(index, round));
      return `| ${contender.name} | ${int(median(stored.rate))} | ${us(median(stored.cpu))} | ${int(median(completed.rate))} | ${us(median(completed.cpu))} | ` +
        `${us(median(both))} | ${(median(both.map((value, round) => value / perJob(1, round)))).toFixed(2)}× | ${median(stored.sessions)} + ${median(completed.sessions)} |`;
    });
    const statements = contenders.flatMap((contender, index) => {
      const [stored, completed] = phases[index] as [Phase, Phase];
      return [...statementLines(contender.name, 'store', stored, jobs), ...statementLines(contender.name, 'drain', completed, jobs)];
    });
    return [
      `${rounds} rounds, medians; ${int(jobs)} jobs stored 10 at a time, then drained by one worker (concurrency 20); the job data of every contender is the library's (${jobData.length} bytes of JSON).`,
      '',
      '| queue on PostgreSQL | jobs stored/s | database CPU per stored job | jobs completed/s | database CPU per completed job | database CPU per job | ÷ BullMQ direct | connections opened: store + drain |',
      '|---|---|---|---|---|---|---|---|',
      ...rows,
      '',
      `Library ÷ BullMQ direct per round: ${ratios.map((ratio) => ratio.toFixed(2)).join(', ')} (goal ≤ 1.3). ` +
        `The database idle, every contender's processes up: ${(idlePerSecond / 1000).toFixed(1)} ms of CPU per second.`,
      '',
      'Statements the database ran, per job (pg_stat_statements, top-level statements, execution time only):',
      '',
      '| queue | phase | calls per job | µs per job | statement |',
      '|---|---|---|---|---|',
      ...statements,
    ].join('\n');
  } finally {
    for (const contender of contenders) await contender.close().catch(() => undefined);
    await probe.end();
  }
}
