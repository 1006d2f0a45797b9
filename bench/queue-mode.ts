/**
 * Queue mode against in process, in one run: onReceived throughput and lastNode latency of the same Express app
 * with either executor, jobs per second end to end through two workers, and the web instance's RSS while 100 000
 * jobs wait with no worker running. Every server and worker is a process of its own; redis-server is started here.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import { createClient } from 'redis';
import { autocannon, median, stop, type BenchSettings, type Load, type Sample } from './http.js';
import { startRedis } from './redis-server.js';

const AUTOCANNON = createRequire(import.meta.url).resolve('autocannon/autocannon.js');
const EXEC_ARGV = ['--expose-gc', '--conditions=workflow-webhooks-source', '--import', 'tsx'];
const LOAD: Load = { path: '/hooks/webhook/bench', headers: { 'content-type': 'application/json' }, body: '{"order":42,"item":"Tea","quantity":3}' };

export interface Child { child: ChildProcess; port: number }

export async function start(script: string, args: string[], env: Record<string, string>): Promise<Child> {
  const child = fork(fileURLToPath(new URL(`./servers/${script}`, import.meta.url)), args, { execArgv: EXEC_ARGV, env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message: { port: number }) => resolve(message.port));
    child.once('exit', (code) => reject(new Error(`${script} ${args.join(' ')} exited with ${String(code)}`)));
  });
  return { child, port };
}

function rssOf(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    child.once('message', (message: { rss: number }) => resolve(message.rss));
    child.send({ type: 'rss' });
  });
}

/** Sends exactly `amount` calls (autocannon -a), 10 connections. */
function send(port: number, amount: number): Promise<void> {
  const args = [AUTOCANNON, '-j', '-c', '10', '-a', String(amount), '-m', 'POST', '-H', 'content-type=application/json', '-b', LOAD.body as string, `http://127.0.0.1:${port}${LOAD.path}`];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString(); });
    child.on('exit', () => {
      const result = JSON.parse(out) as { non2xx: number; errors: number };
      if (result.non2xx > 0 || result.errors > 0) reject(new Error(`${result.non2xx} non-2xx answers, ${result.errors} errors`));
      else resolve();
    });
  });
}

/** Alternates two servers over the rounds; medians of each. */
export async function pair(a: Child, b: Child, settings: BenchSettings): Promise<[Sample[], Sample[]]> {
  const samples: [Sample[], Sample[]] = [[], []];
  for (let round = 0; round < settings.rounds; round += 1) {
    const order = round % 2 === 0 ? [0, 1] as const : [1, 0] as const;
    for (const index of order) samples[index].push(await autocannon((index === 0 ? a : b).port, LOAD, settings));
  }
  return samples;
}

const mb = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

export async function benchQueue(base: BenchSettings): Promise<string> {
  const settings = { ...base, connections: 10 };
  const redis = await startRedis();
  const env = { REDIS_URL: redis.url, QUEUE_NAME: 'bench' };
  const connection = createClient({ url: redis.url });
  connection.on('error', () => undefined);
  await connection.connect();
  const jobs = new Queue('bench', { connection: connection as never });
  const children: Child[] = [];
  const lines: string[] = [];
  try {
    const servers = {
      received: [await start('queue-mode-web.ts', ['inprocess', 'onReceived'], env), await start('queue-mode-web.ts', ['queue', 'onReceived'], env)] as const,
      lastNode: [await start('queue-mode-web.ts', ['inprocess', 'lastNode'], env), await start('queue-mode-web.ts', ['queue', 'lastNode'], env)] as const,
    };
    children.push(...servers.received, ...servers.lastNode);
    const rate = (list: Sample[]): number => median(list.map((s) => s.requests));
    const p50 = (list: Sample[]): number => median(list.map((s) => s.p50));
    const ratioRow = (label: string, [inProcess, queued]: [Sample[], Sample[]], goal: string): string =>
      `| ${label} | ${Math.round(rate(inProcess)).toLocaleString('en')} | ${Math.round(rate(queued)).toLocaleString('en')} | ${(rate(queued) / rate(inProcess)).toFixed(2)}× | ${goal} |`;
    lines.push('| measurement | in process | queue mode | result | goal |', '|---|---|---|---|---|');
    // The web instance's own rate: no worker on this machine (in a deployment they run elsewhere), jobs pile up.
    lines.push(ratioRow('onReceived JSON, Express 5, req/s, 10 connections; no worker on the machine', await pair(...servers.received, settings), '≥ 0.7×'));
    await jobs.obliterate({ force: true });
    const workers = [await start('queue-mode-worker.ts', [], env), await start('queue-mode-worker.ts', [], env)];
    children.push(...workers);
    // The whole system on two cores: the two workers and redis-server take CPU from the web instance.
    lines.push(ratioRow('the same, two workers draining on the same two cores', await pair(...servers.received, settings), ''));
    const lastNode = await pair(...servers.lastNode, settings);
    lines.push(`| lastNode, median latency, 10 connections | ${p50(lastNode[0]).toFixed(2)} ms | ${p50(lastNode[1]).toFixed(2)} ms | +${(p50(lastNode[1]) - p50(lastNode[0])).toFixed(2)} ms | ≤ +3 ms |`);
    lines.push(ratioRow('lastNode, req/s', lastNode, ''));

    // End to end: calls stored by the web instance, run and completed by the two workers.
    await until(async () => (await jobs.getWaitingCount()) === 0);
    const before = await jobs.getCompletedCount();
    const total = 20_000;
    const started = performance.now();
    await send(servers.received[1].port, total);
    await until(async () => (await jobs.getCompletedCount()) >= before + total, 120_000);
    const seconds = (performance.now() - started) / 1000;
    lines.push(`| jobs end to end, 2 workers × concurrency 20, no-op executor | | ${Math.round(total / seconds).toLocaleString('en')} jobs/s | ${total.toLocaleString('en')} jobs in ${seconds.toFixed(1)} s | |`);

    // Waiting jobs cost the web instance nothing: no worker runs, 100 000 jobs pile up in Redis.
    await Promise.all(workers.map(({ child }) => stop(child)));
    const web = servers.received[1];
    const rss = [await rssOf(web.child)];
    await send(web.port, 50_000);
    rss.push(await rssOf(web.child));
    await send(web.port, 50_000);
    rss.push(await rssOf(web.child));
    const waiting = await jobs.getWaitingCount();
    lines.push(`| web instance RSS after a GC: at rest, 50 000 and 100 000 jobs waiting | | ${rss.map(mb).join(' → ')} | ${waiting.toLocaleString('en')} jobs waiting | flat |`);
  } finally {
    await Promise.all(children.filter(({ child }) => child.exitCode === null).map(({ child }) => stop(child)));
    await jobs.close();
    connection.destroy();
    await redis.stop();
  }
  return lines.join('\n');
}

export async function until(probe: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!await probe()) {
    if (Date.now() > deadline) throw new Error(`not reached within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
