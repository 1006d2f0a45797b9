/**
 * Runs the contenders of the speed table: each server forked into its own process with every thread pinned to core 0,
 * autocannon on core 1, a warm-up, then rounds that alternate the contenders (every other round backwards); also
 * drives a fixed number of calls for the allocation measure. The servers import the built package (dist/), rebuilt
 * here when the sources are newer, as hosts run it.
 */
import { fork, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { multipartFile, stop, type Load } from '../http.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const AUTOCANNON = createRequire(import.meta.url).resolve('autocannon/autocannon.js');
export const KINDS = ['json', 'form', 'multipart'] as const;
export type Kind = (typeof KINDS)[number];
export const HEADINGS: Record<Kind, string> = { json: 'small JSON', form: 'urlencoded form', multipart: '100 KiB multipart' };

export interface Contender {
  label: string;
  /** A file of bench/servers/, forked with `args`. */
  server: string;
  args: string[];
  env?: Record<string, string>;
  /** Where the server mounts the webhooks ('' at the root): the calls go to `<prefix>/webhook/hook`. */
  prefix?: string;
}
export interface SpeedSettings { seconds: number; warmup: number; rounds: number; connections: number; kinds: readonly Kind[] }
export interface Running { contender: Contender; child: ChildProcess; port: number }

export const canPin = spawnSync('taskset', ['-c', '0', 'true']).status === 0;
/** Rounded, thousands separated; never `-0`. */
export const fmt = (n: number): string => (Math.round(n) || 0).toLocaleString('en');

function newest(dir: string): number {
  return Math.max(...readdirSync(dir, { withFileTypes: true }).map((entry) =>
    (entry.isDirectory() ? newest(join(dir, entry.name)) : statSync(join(dir, entry.name)).mtimeMs)));
}

/** The contenders import the package by name without the source condition: dist/, rebuilt when stale. */
export function ensureBuild(): void {
  let fresh = false;
  try {
    fresh = statSync(join(ROOT, 'dist', 'index.js')).mtimeMs >= newest(join(ROOT, 'lib'));
  } catch {
    fresh = false;
  }
  if (!fresh && spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' }).status !== 0) throw new Error('npm run build failed');
}

export function loads(dir: string): Record<Kind, Load> {
  const upload = multipartFile(dir);
  return {
    json: { path: '/webhook/hook', headers: { 'content-type': 'application/json' }, body: '{"order":1234,"items":[{"sku":"tea","qty":2}],"customer":{"name":"Ada"}}' },
    form: { path: '/webhook/hook', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'name=Ada+Lovelace&email=ada%40example.com&tags=a&tags=b&note=hello+world' },
    multipart: { path: '/webhook/hook', headers: { 'content-type': upload.type }, body: { file: upload.file } },
  };
}

/** The next IPC message of `type` from the server (it may send others first). */
export function reply<T>(child: ChildProcess, type: string, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: { type?: string }): void => {
      if (message.type !== type) return;
      child.off('exit', onExit);
      child.off('message', onMessage);
      resolve(message as T);
    };
    const onExit = (code: number | null): void => {
      child.off('message', onMessage);
      reject(new Error(`${what} exited with ${String(code)}`));
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

export async function start(contender: Contender): Promise<Running> {
  // --expose-gc: the allocation measure starts its window after a full GC.
  const child = fork(fileURLToPath(new URL(`../servers/${contender.server}`, import.meta.url)), contender.args, {
    execArgv: ['--expose-gc', '--import', 'tsx'], env: { ...process.env, ...contender.env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const { port } = await reply<{ port: number }>(child, 'ready', contender.label);
  // -a: every thread of the server (its GC and libuv helpers too), else they run beside autocannon on its core and
  // a server that leaves more work to them looks faster than its one core allows.
  if (canPin && child.pid !== undefined) spawnSync('taskset', ['-a', '-pc', '0', String(child.pid)], { stdio: 'ignore' });
  return { contender, child, port };
}

/** How long (`seconds`) or how many calls (`amount`). */
export type Span = { seconds: number } | { amount: number };

/**
 * autocannon against one server; its mean req/s and the count of 2xx answers. Anything but a 2xx, an error or a
 * timeout fails the run: a contender that refuses calls must not look fast.
 */
export function load(running: Running, what: Load, span: Span, connections: number): Promise<{ rate: number; ok: number }> {
  const args = [AUTOCANNON, '-j', '-c', String(connections), 'seconds' in span ? '-d' : '-a', String('seconds' in span ? span.seconds : span.amount), '-m', 'POST'];
  for (const [name, value] of Object.entries(what.headers)) args.push('-H', `${name}=${value}`);
  if (typeof what.body === 'string') args.push('-b', what.body);
  else args.push('-i', what.body.file);
  args.push(`http://127.0.0.1:${running.port}${running.contender.prefix ?? ''}${what.path}`);
  const [command, commandArgs] = canPin ? ['taskset', ['-c', '1', process.execPath, ...args]] : [process.execPath, args];
  return new Promise((resolve, reject) => {
    const child = spawn(command as string, commandArgs as string[], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString(); });
    child.on('exit', () => {
      try {
        const result = JSON.parse(out) as { requests: { average: number }; non2xx: number; errors: number; timeouts: number; '2xx': number };
        if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
          reject(new Error(`${running.contender.label}: ${result.non2xx} non-2xx answers, ${result.errors} errors, ${result.timeouts} timeouts`));
        } else resolve({ rate: result.requests.average, ok: result['2xx'] });
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });
}

/**
 * Starts the contenders together, warms each up, then measures them in alternating rounds (every other one
 * backwards: a host that drifts during a round favours no contender); each contender's req/s, one per round.
 */
export async function measure(list: Contender[], body: Load, kind: string, settings: Omit<SpeedSettings, 'kinds'>): Promise<Map<string, number[]>> {
  const running: Running[] = [];
  const samples = new Map<string, number[]>(list.map((contender) => [contender.label, []]));
  try {
    for (const contender of list) running.push(await start(contender));
    for (const server of running) await load(server, body, { seconds: settings.warmup }, settings.connections);
    for (let round = 0; round < settings.rounds; round += 1) {
      for (const server of round % 2 === 0 ? running : [...running].reverse()) {
        const { rate } = await load(server, body, { seconds: settings.seconds }, settings.connections);
        // Every round on stderr: the spread between rounds says how far the medians can be trusted.
        process.stderr.write(`${kind} round ${round + 1}: ${server.contender.label}: ${fmt(rate)} req/s\n`);
        samples.get(server.contender.label)?.push(rate);
      }
    }
  } finally {
    await Promise.all(running.map(({ child }) => stop(child)));
  }
  return samples;
}
