/**
 * HTTP throughput, each contender in its own process and autocannon in its own process, all on loopback. Rounds
 * alternate between contenders and the tables report medians and ratios (a 2-core machine is noisy).
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SERVER = fileURLToPath(new URL('./servers/http-server.ts', import.meta.url));
const AUTOCANNON = createRequire(import.meta.url).resolve('autocannon/autocannon.js');

interface Ready { type: 'ready'; port: number; activationMs?: number; heapPerWebhook?: number }
interface Contender { label: string; args: string[] }
export interface Load { path: string; headers: Record<string, string>; body: string | { file: string } }
export interface Sample { requests: number; p50: number; p99: number }

export interface BenchSettings { seconds: number; rounds: number; connections: number }

async function start(args: string[]): Promise<{ child: ChildProcess; ready: Ready }> {
  const child = fork(SERVER, args, { execArgv: ['--expose-gc', '--conditions=workflow-webhooks-source', '--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ready = await new Promise<Ready>((resolve, reject) => {
    child.once('message', (message: Ready) => resolve(message));
    child.once('exit', (code) => reject(new Error(`server ${args.join(' ')} exited with ${String(code)}`)));
  });
  return { child, ready };
}

export function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.send({ type: 'stop' });
    setTimeout(() => child.kill(), 3000).unref();
  });
}

export async function autocannon(port: number, load: Load, settings: BenchSettings): Promise<Sample> {
  const args = ['-j', '-c', String(settings.connections), '-d', String(settings.seconds), '-m', 'POST'];
  for (const [name, value] of Object.entries(load.headers)) args.push('-H', `${name}=${value}`);
  if (typeof load.body === 'string') args.push('-b', load.body);
  else args.push('-i', load.body.file);
  args.push(`http://127.0.0.1:${port}${load.path}`);
  const result = await autocannonJson<{ requests: { average: number }; latency: { p50: number; p99: number }; non2xx: number; errors: number }>(args);
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${load.path}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return { requests: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
}

/** Runs autocannon in a process of its own with `args` (after the script; `-j` among them) and reads its JSON report. */
export function autocannonJson<Report>(args: readonly string[]): Promise<Report> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [AUTOCANNON, ...args], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString(); });
    child.on('exit', () => {
      try {
        resolve(JSON.parse(out) as Report);
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });
}

export const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/** Runs contenders against one load, alternating; returns a Markdown table with ratios to `baseline`. */
async function compare(contenders: Contender[], load: Load, baseline: string, settings: BenchSettings, extra?: (ready: Ready) => string[]): Promise<string> {
  const running = [];
  for (const contender of contenders) running.push({ contender, ...(await start(contender.args)) });
  const samples = new Map<string, Sample[]>(contenders.map((c) => [c.label, []]));
  try {
    for (let round = 0; round < settings.rounds; round += 1) {
      for (const { contender, ready } of running) samples.get(contender.label)?.push(await autocannon(ready.port, load, settings));
    }
  } finally {
    await Promise.all(running.map(({ child }) => stop(child)));
  }
  const base = median(samples.get(baseline)?.map((s) => s.requests) ?? []);
  const extraHead = extra === undefined ? [] : ['activation', 'heap per webhook'];
  const lines = [`| contender | req/s (median) | p50 ms | p99 ms | ratio to ${baseline} |${extraHead.map((h) => ` ${h} |`).join('')}`,
    `|---|---|---|---|---|${extraHead.map(() => '---|').join('')}`];
  for (const { contender, ready } of running) {
    const list = samples.get(contender.label) ?? [];
    const requests = median(list.map((s) => s.requests));
    const cells = [contender.label, Math.round(requests).toLocaleString('en'), median(list.map((s) => s.p50)).toFixed(1), median(list.map((s) => s.p99)).toFixed(1), (requests / base).toFixed(2), ...(extra?.(ready) ?? [])];
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

export function multipartFile(dir: string): { file: string; type: string } {
  const boundary = 'bench7f3a';
  const file = join(dir, 'upload.body');
  writeFileSync(file, Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="title"\r\n\r\nreport\r\n--${boundary}\r\nContent-Disposition: form-data; name="doc"; filename="a.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`),
    Buffer.alloc(100 * 1024, 0x61),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]));
  return { file, type: `multipart/form-data; boundary=${boundary}` };
}

export async function benchHttp(settings: BenchSettings, only?: string): Promise<string> {
  const json: Load = { path: '/webhook/hook', headers: { 'content-type': 'application/json' }, body: '{"order":1234,"items":[{"sku":"tea","qty":2}],"customer":{"name":"Ada"}}' };
  const sections: string[] = [];
  if (only === undefined || only === 'json') {
    sections.push(`### Small JSON POST, answered at once\n\n${await compare([
      { label: 'node:http', args: ['node-json'] },
      { label: 'bare Express 5 + express.json()', args: ['express-json'] },
      { label: 'workflow-webhooks (onReceived) in Express 5', args: ['middleware-json'] },
      { label: 'workflow-webhooks (onReceived) on node:http', args: ['mwnode-json'] },
    ], json, 'bare Express 5 + express.json()', settings)}`);
  }
  if (only === undefined || only === 'scale') {
    const heap = (ready: Ready): string[] => [`${(ready.activationMs ?? 0).toFixed(0)} ms`, ready.heapPerWebhook ? `${Math.round(ready.heapPerWebhook)} B` : '—'];
    sections.push(`### The same call as the registry grows\n\n${await compare([
      { label: '1 webhook', args: ['middleware-json', '1', '0'] },
      { label: '10 000 static', args: ['middleware-json', '10000', '0'] },
      { label: '100 000 static + 10 000 dynamic', args: ['middleware-json', '100000', '10000'] },
    ], json, '1 webhook', settings, heap)}`);
  }
  if (only === undefined || only === 'form') {
    const form: Load = { path: '/webhook/form', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'name=Ada+Lovelace&email=ada%40example.com&tags=a&tags=b&note=hello+world' };
    sections.push(`### Form body, workflow answers (lastNode)\n\n${await compare([
      { label: 'bare Express 5 + express.urlencoded()', args: ['express-form'] },
      { label: 'workflow-webhooks (lastNode)', args: ['middleware-form'] },
    ], form, 'bare Express 5 + express.urlencoded()', settings)}`);
  }
  if (only === undefined || only === 'multipart') {
    const dir = mkdtempSync(join(tmpdir(), 'ww-bench-'));
    try {
      const { file, type } = multipartFile(dir);
      sections.push(`### 100 KB multipart upload, workflow answers (lastNode)\n\n${await compare([
        { label: 'bare Express 5 + busboy', args: ['express-multipart'] },
        { label: 'workflow-webhooks (lastNode)', args: ['middleware-multipart'] },
      ], { path: '/webhook/upload', headers: { 'content-type': type }, body: { file } }, 'bare Express 5 + busboy', settings)}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return sections.join('\n\n');
}
