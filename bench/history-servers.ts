/**
 * The servers of the history benchmark and how the runner talks to them: forked with the history store they keep
 * calls in, asked for their CPU and to write their pending batch over IPC, loaded with a fixed number of calls by
 * autocannon in a process of its own (a steady pace is history-paced.ts); and the older commit's library, as
 * sources, for the server that serves history off as that commit did.
 */
import { fork, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { autocannonJson } from './http.js';
import { ROOT } from './speed/runner.js';

const SERVER = fileURLToPath(new URL('./servers/history-server.ts', import.meta.url));

/**
 * A 1 kB JSON order (1 024 bytes), as a shop sends it: the body every call of the benchmark carries, and with
 * `bodyBytes: 4096` the body history keeps whole.
 */
export const BODY = (() => {
  const items = Array.from({ length: 6 }, (_, at) => ({ sku: `SKU-${1000 + at}`, name: `Loose leaf tea, tin ${at + 1}`, qty: at + 1, price: 12.5 + at }));
  const order = {
    id: 'ord_8f14e45fceea167a', status: 'paid', currency: 'EUR', total: 187.5, createdAt: '2026-11-28T12:00:00.000Z',
    customer: { id: 'cus_42', name: 'Ada Lovelace', email: 'ada@example.com', phone: '+44 20 7946 0958' },
    shipping: { street: '12 Analytical Engine Row', city: 'London', postcode: 'NW1 6XE', country: 'GB' },
    items, note: '',
  };
  const text = JSON.stringify(order);
  return JSON.stringify({ ...order, note: 'x'.repeat(1024 - text.length) });
})();

export const PATH = '/webhook/orders';

export interface Server { label: string; child: ChildProcess; port: number }

/** `kind`: off, memory, redis or postgres; `env`: the store's URL, BENCH_ENTRY, BENCH_HISTORY_*. */
export async function startServer(label: string, kind: string, env: NodeJS.ProcessEnv): Promise<Server> {
  const child = fork(SERVER, [kind], { execArgv: ['--expose-gc', '--conditions=workflow-webhooks-source', '--import', 'tsx'], env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message: { port: number }) => resolve(message.port));
    child.once('exit', (code) => reject(new Error(`server ${label} exited with ${String(code)}`)));
  });
  return { label, child, port };
}

function ask<T>(child: ChildProcess, type: string, answer: string, read: (message: Record<string, unknown>) => T): Promise<T> {
  return new Promise((resolve, reject) => {
    const heard = (message: Record<string, unknown>): void => {
      if (message.type !== answer) return;
      child.off('message', heard);
      child.off('exit', gone);
      resolve(read(message));
    };
    const gone = (): void => {
      child.off('message', heard);
      reject(new Error(`the server exited before it answered ${type}`));
    };
    child.on('message', heard);
    child.once('exit', gone);
    child.send({ type });
  });
}

/** The server's CPU so far (user + system, µs), its pending batch written and a gc() run first. */
export const cpuOf = (server: Server): Promise<number> => ask(server.child, 'cpu', 'cpu', (message) => {
  const usage = message.usage as NodeJS.CpuUsage;
  return usage.user + usage.system;
});

/** Resolves once the server wrote the calls waiting for its next batch. */
export const flushOf = (server: Server): Promise<void> => ask(server.child, 'flush', 'flushed', () => undefined);

export function stopServer({ child }: Server): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.send({ type: 'stop' });
    setTimeout(() => child.kill(), 5000).unref();
  });
}

/** autocannon's latencies are whole milliseconds but for the mean: the mean and p99 are what it can tell apart. */
export interface Load { calls: number; perSecond: number; mean: number; p99: number }

interface Report { requests: { total: number }; duration: number; latency: { average: number; p99: number }; non2xx: number; errors: number }

/** Sends exactly `amount` calls of the 1 kB order over 10 connections, each as soon as the last was answered. */
export async function load(port: number, amount: number): Promise<Load> {
  const args = ['-j', '-c', '10', '-a', String(amount), '-m', 'POST', '-H', 'content-type=application/json', '-b', BODY, `http://127.0.0.1:${port}${PATH}`];
  const report = await autocannonJson<Report>(args);
  if (report.non2xx > 0 || report.errors > 0) throw new Error(`${report.non2xx} answers other than 2xx, ${report.errors} errors`);
  return { calls: report.requests.total, perSecond: report.requests.total / report.duration, mean: report.latency.average, p99: report.latency.p99 };
}

/**
 * The library of `commit` as sources (its lib/ from git, this checkout's node_modules linked in), run through tsx as
 * this checkout's are: the two builds differ in their code only. Made once under ~/.cache/workflow-webhooks/sources.
 */
export function olderSources(commit: string): string {
  const git = (...args: string[]): ReturnType<typeof spawnSync> => spawnSync('git', args, { cwd: ROOT, maxBuffer: 512 * 2 ** 20 });
  const resolved = git('rev-parse', '--verify', '--quiet', `${commit}^{commit}`);
  if (resolved.status !== 0) throw new Error(`BENCH_HISTORY_BASE=${commit} is not a commit of this clone`);
  const dir = join(process.env.BENCH_BUILDS_DIR ?? join(homedir(), '.cache', 'workflow-webhooks', 'sources'), resolved.stdout.toString().trim());
  const entry = join(dir, 'lib', 'index.ts');
  if (existsSync(entry)) return entry;
  // Unpacked beside its final place and renamed into it, so an interrupted copy is never taken for a finished one.
  const work = `${dir}.unpacking-${process.pid}`;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  try {
    const archive = git('archive', '--format=tar', commit, 'lib', 'package.json', 'tsconfig.json');
    if (archive.status !== 0) throw new Error(`git archive ${commit} failed: ${archive.stderr.toString().trim()}`);
    const untar = spawnSync('tar', ['-x', '-C', work], { input: archive.stdout as Buffer });
    if (untar.status !== 0) throw new Error(`tar failed: ${untar.stderr.toString().trim()}`);
    symlinkSync(join(ROOT, 'node_modules'), join(work, 'node_modules'), 'dir');
    renameSync(work, dir);
    return entry;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
