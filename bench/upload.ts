/**
 * Uploads a 1 GiB multipart file (generated on the fly, never stored) to each contender in its own process,
 * alternating contenders, and reports throughput and the server's peak RSS growth.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

interface Ready { type: 'ready'; port: number }
interface Done { type: 'done'; rssGrowth: number }

const MIB = 1024 * 1024;
const SERVER = fileURLToPath(new URL('./servers/upload-server.ts', import.meta.url));

function start(mode: string): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(SERVER, [mode], { execArgv: ['--expose-gc', '--conditions=workflow-webhooks-source', '--import', 'tsx'], stdio: 'inherit' });
  return new Promise((resolve, reject) => {
    child.once('message', (message: Ready) => resolve({ child, port: message.port }));
    child.once('error', reject);
  });
}

function upload(port: number, bytes: number): Promise<number> {
  const boundary = 'bench-boundary-7f3a';
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const chunk = Buffer.alloc(256 * 1024, 0x61);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/webhook/upload', headers: {
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': String(head.length + bytes + tail.length),
    } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve(performance.now() - started) : reject(new Error(`status ${res.statusCode}`))));
    });
    req.on('error', reject);
    let left = bytes;
    req.write(head);
    const pump = (): void => {
      while (left > 0) {
        const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
        left -= piece.length;
        if (!req.write(piece)) { req.once('drain', pump); return; }
      }
      req.end(tail);
    };
    pump();
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

export async function benchUpload(bytes = 1024 * MIB, rounds = 3): Promise<string> {
  const contenders = ['busboy', 'middleware'];
  const servers = new Map(await Promise.all(contenders.map(async (mode) => [mode, await start(mode)] as const)));
  const results = new Map(contenders.map((mode) => [mode, { seconds: [] as number[], rss: [] as number[] }]));
  try {
    for (let round = 0; round < rounds; round += 1) {
      for (const mode of contenders) {
        const server = servers.get(mode);
        if (server === undefined) continue;
        const done = new Promise<Done>((resolve) => server.child.once('message', resolve));
        const ms = await upload(server.port, bytes);
        const report = await done;
        results.get(mode)?.seconds.push(ms / 1000);
        results.get(mode)?.rss.push(report.rssGrowth);
      }
    }
  } finally {
    await Promise.all([...servers.values()].map(({ child }) => new Promise((resolve) => {
      child.once('exit', resolve);
      child.send({ type: 'stop' });
    })));
  }
  const floor = bytes / MIB / median(results.get('busboy')?.seconds ?? []);
  const lines = ['| contender | MiB/s (median) | ratio to busboy → disk | peak RSS growth (max) |', '|---|---|---|---|'];
  for (const mode of contenders) {
    const result = results.get(mode);
    const speed = bytes / MIB / median(result?.seconds ?? []);
    const label = mode === 'busboy' ? 'busboy piped to disk (bare node:http)' : 'workflow-webhooks multipart';
    lines.push(`| ${label} | ${speed.toFixed(0)} | ${(speed / floor).toFixed(2)} | ${(Math.max(...(result?.rss ?? [0])) / MIB).toFixed(1)} MiB |`);
  }
  return `${(bytes / MIB).toFixed(0)} MiB multipart file, ${rounds} rounds per contender\n\n${lines.join('\n')}`;
}
