/**
 * The side-by-side speed table: the same small JSON, urlencoded form and 100 KiB multipart calls to every
 * contender, each server in its own process pinned to one core and autocannon (10 connections) on the other,
 * a warm-up, then rounds that alternate contenders; medians and the ratios the goals are stated in. The middleware
 * runs from the built package, as hosts run it (built first when the sources are newer).
 */
import { fork, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, multipartFile, stop, type Load } from './http.js';
import { nodeRedDir } from './node-red.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const AUTOCANNON = createRequire(import.meta.url).resolve('autocannon/autocannon.js');
const KINDS = ['json', 'form', 'multipart'] as const;
type Kind = (typeof KINDS)[number];
const HEADINGS: Record<Kind, string> = { json: 'small JSON', form: 'urlencoded form', multipart: '100 KiB multipart' };

export interface Contender { label: string; server: string; args: string[]; env?: Record<string, string> }
export interface SpeedSettings { seconds: number; warmup: number; rounds: number; connections: number; kinds: readonly Kind[] }

/** The columns to run: all, or those named in a comma list (`BENCH_KINDS=multipart`); an unknown name is an error. */
export function speedKinds(list: string | undefined): Kind[] {
  if (list === undefined || list === '') return [...KINDS];
  const named = list.split(',').map((name) => name.trim());
  const unknown = named.filter((name) => !(KINDS as readonly string[]).includes(name));
  if (unknown.length > 0) throw new Error(`BENCH_KINDS: unknown ${unknown.join(', ')}; the columns are ${KINDS.join(', ')}`);
  return KINDS.filter((kind) => named.includes(kind));
}

const canPin = spawnSync('taskset', ['-c', '0', 'true']).status === 0;

function newest(dir: string): number {
  return Math.max(...readdirSync(dir, { withFileTypes: true }).map((entry) =>
    (entry.isDirectory() ? newest(join(dir, entry.name)) : statSync(join(dir, entry.name)).mtimeMs)));
}

/** The contenders import the package by name without the source condition: dist/, rebuilt when stale. */
export function ensureBuild(): void {
  const built = join(ROOT, 'dist', 'index.js');
  let fresh = false;
  try {
    fresh = statSync(built).mtimeMs >= newest(join(ROOT, 'lib'));
  } catch {
    fresh = false;
  }
  if (!fresh && spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' }).status !== 0) throw new Error('npm run build failed');
}

async function start(contender: Contender): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(fileURLToPath(new URL(`./servers/${contender.server}`, import.meta.url)), contender.args, {
    execArgv: ['--import', 'tsx'], env: { ...process.env, ...contender.env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message: { port: number }) => resolve(message.port));
    child.once('exit', (code) => reject(new Error(`${contender.label} exited with ${String(code)}`)));
  });
  // -a: every thread of the server (its GC and libuv helpers too), else they run beside autocannon on its core and
  // a server that leaves more work to them looks faster than its one core allows.
  if (canPin && child.pid !== undefined) spawnSync('taskset', ['-a', '-pc', '0', String(child.pid)], { stdio: 'ignore' });
  return { child, port };
}

function load(port: number, what: Load, seconds: number, connections: number): Promise<number> {
  const args = [AUTOCANNON, '-j', '-c', String(connections), '-d', String(seconds), '-m', 'POST'];
  for (const [name, value] of Object.entries(what.headers)) args.push('-H', `${name}=${value}`);
  if (typeof what.body === 'string') args.push('-b', what.body);
  else args.push('-i', what.body.file);
  args.push(`http://127.0.0.1:${port}${what.path}`);
  const [command, commandArgs] = canPin ? ['taskset', ['-c', '1', process.execPath, ...args]] : [process.execPath, args];
  return new Promise((resolve, reject) => {
    const child = spawn(command as string, commandArgs as string[], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString(); });
    child.on('exit', () => {
      try {
        const result = JSON.parse(out) as { requests: { average: number }; non2xx: number; errors: number };
        if (result.non2xx > 0 || result.errors > 0) reject(new Error(`${what.path}: ${result.non2xx} non-2xx answers, ${result.errors} errors`));
        else resolve(result.requests.average);
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });
}

export function loads(dir: string): Record<Kind, Load> {
  const upload = multipartFile(dir);
  return {
    json: { path: '/webhook/hook', headers: { 'content-type': 'application/json' }, body: '{"order":1234,"items":[{"sku":"tea","qty":2}],"customer":{"name":"Ada"}}' },
    form: { path: '/webhook/hook', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'name=Ada+Lovelace&email=ada%40example.com&tags=a&tags=b&note=hello+world' },
    multipart: { path: '/webhook/hook', headers: { 'content-type': upload.type }, body: { file: upload.file } },
  };
}

const LABELS = {
  limit: 'node:http that only parses the body and answers (the limit)',
  onNode: 'this middleware on node:http (onReceived)',
  route: 'Express 5 route with express.json()/urlencoded()/busboy',
  inExpress: 'this middleware in Express 5 (onReceived)',
  reading: 'the same, its run reading every file\'s bytes',
  nodeRed: 'Node-RED 4.1 `http in` → `http response`, embedded in Express 4',
} as const;

/**
 * In the order they run: each compared pair is side by side (the limit and the middleware on node:http, the Express
 * route and the middleware in Express, then Node-RED), so a pair meets the same moment of a noisy host.
 */
function contenders(kind: Kind, nodeRed: { dir: string } | { notRun: string }): Contender[] {
  const list: Contender[] = [
    { label: LABELS.limit, server: 'speed-server.ts', args: ['node', kind] },
    { label: LABELS.onNode, server: 'speed-server.ts', args: ['mwnode', kind] },
    { label: LABELS.route, server: 'speed-server.ts', args: ['express', kind] },
    { label: LABELS.inExpress, server: 'speed-server.ts', args: ['middleware', kind] },
  ];
  // The middleware joins a file's chunks into one Buffer only when the run reads it; the route always does. This
  // row has the run read every file, so the same work is compared too.
  if (kind === 'multipart') list.push({ label: LABELS.reading, server: 'speed-server.ts', args: ['middleware-reads', kind] });
  if ('dir' in nodeRed) {
    list.push({ label: LABELS.nodeRed, server: 'node-red-server.ts', args: [kind], env: { NODE_RED_DIR: join(nodeRed.dir, 'node_modules', 'node-red') } });
  }
  return list;
}

export const fmt = (n: number): string => Math.round(n).toLocaleString('en');

/**
 * Starts the contenders together, warms each up, then measures them in alternating rounds (every other one
 * backwards: a host that drifts during a round favours no contender); each contender's req/s, one per round.
 */
export async function measure(list: Contender[], body: Load, kind: string, settings: Omit<SpeedSettings, 'kinds'>): Promise<Map<string, number[]>> {
  const running = [];
  for (const contender of list) running.push({ contender, ...(await start(contender)) });
  const samples = new Map<string, number[]>(running.map(({ contender }) => [contender.label, []]));
  try {
    for (const { port } of running) await load(port, body, settings.warmup, settings.connections);
    for (let round = 0; round < settings.rounds; round += 1) {
      for (const { contender, port } of round % 2 === 0 ? running : [...running].reverse()) {
        const rate = await load(port, body, settings.seconds, settings.connections);
        // Every round on stderr: the spread between rounds says how far the medians can be trusted.
        process.stderr.write(`${kind} round ${round + 1}: ${contender.label}: ${fmt(rate)} req/s\n`);
        samples.get(contender.label)?.push(rate);
      }
    }
  } finally {
    await Promise.all(running.map(({ child }) => stop(child)));
  }
  return samples;
}

export async function benchSpeed(settings: SpeedSettings): Promise<string> {
  ensureBuild();
  const nodeRed = nodeRedDir();
  const dir = mkdtempSync(join(tmpdir(), 'ww-speed-'));
  /** Each contender's req/s per kind, one entry per round. */
  const results = new Map<string, Partial<Record<Kind, number[]>>>();
  try {
    const bodies = loads(dir);
    for (const kind of settings.kinds) {
      const samples = await measure(contenders(kind, nodeRed), bodies[kind], kind, settings);
      for (const [label, list] of samples) results.set(label, { ...results.get(label), [kind]: list });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return report(results, nodeRed, settings);
}

function report(results: Map<string, Partial<Record<Kind, number[]>>>, nodeRed: { dir: string } | { notRun: string }, settings: SpeedSettings): string {
  const row = (label: string): Partial<Record<Kind, number[]>> => results.get(label) ?? {};
  const [limit, route, inExpress, reading, onNode, red] = [row(LABELS.limit), row(LABELS.route), row(LABELS.inExpress), row(LABELS.reading), row(LABELS.onNode), row(LABELS.nodeRed)];
  const kinds = settings.kinds;
  const headings = kinds.map((kind) => HEADINGS[kind]).join(' | ');
  const lines = [`${canPin ? 'Servers (every thread) pinned to core 0, autocannon to core 1' : 'Not pinned (no taskset)'}; ${settings.connections} connections, `
    + `${settings.warmup} s warm-up, ${settings.rounds} rounds × ${settings.seconds} s (every other round backwards), medians; `
    + 'a ratio is the median of the rounds\' ratios.', '',
  `| contender | ${headings} |`, `|---|${kinds.map(() => '---:').join('|')}|`];
  for (const [label, values] of results) lines.push(`| ${label} | ${kinds.map((kind) => (values[kind] === undefined ? '—' : fmt(median(values[kind])))).join(' | ')} |`);
  if ('notRun' in nodeRed) lines.push(`| Node-RED 4.1 | not run: ${nodeRed.notRun} |${' |'.repeat(kinds.length - 1)}`);
  /** The median of the rounds' own ratios: each round compares two servers measured minutes, not a run, apart. */
  const ratio = (over: number[] | undefined, of: number[] | undefined): { value: string; rounds: string } => {
    if (over === undefined || of === undefined || over.length !== of.length) return { value: '—', rounds: '' };
    const each = over.map((rate, round) => rate / (of[round] as number));
    return { value: median(each).toFixed(2), rounds: each.map((r) => r.toFixed(2)).join(', ') };
  };
  const goal = (label: string, over: Partial<Record<Kind, number[]>>, of: Partial<Record<Kind, number[]>>, targets: Record<Kind, number>): string =>
    `| ${label} | ${kinds.map((kind) => {
      const { value, rounds } = ratio(over[kind], of[kind]);
      if (value === '—') return `— (goal ≥ ${targets[kind]})`;
      return `${value}× (goal ≥ ${targets[kind]}, ${Number(value) >= targets[kind] ? 'met' : 'not met'}; rounds ${rounds})`;
    }).join(' | ')} |`;
  lines.push('', `| ratio | ${headings} |`, `|---|${kinds.map(() => '---').join('|')}|`,
    goal('middleware in Express 5 ÷ Express 5 route', inExpress, route, { json: 1, form: 1, multipart: 1 }),
    goal('middleware in Express 5 ÷ Node-RED', inExpress, red, { json: 1.1, form: 1.1, multipart: 1.1 }),
    goal('middleware on node:http ÷ the limit', onNode, limit, { json: 0.6, form: 0.6, multipart: 0.8 }));
  if (kinds.includes('multipart')) {
    // No goal: the same work as the route (every file joined into one Buffer), for the reader to weigh the above.
    const { value, rounds } = ratio(reading.multipart, route.multipart);
    lines.push(`| its run reading every file ÷ Express 5 route (the same work; no goal) | ${kinds.map((kind) =>
      (kind === 'multipart' ? `${value}×${rounds === '' ? '' : ` (rounds ${rounds})`}` : '—')).join(' | ')} |`);
  }
  return lines.join('\n');
}
