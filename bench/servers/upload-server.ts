/**
 * One contender of the upload benchmark, in its own process (forked by bench/upload.ts):
 * `middleware` — this library, multipart file streamed to its temp directory;
 * `busboy` — a bare node:http server piping busboy's file stream straight to disk, the floor to compare with.
 * It reports its port, then, per request, the peak RSS growth over the RSS before the upload.
 */
import { createWriteStream, rmSync } from 'node:fs';
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import busboy from 'busboy';
import { createWebhookMiddleware, MemoryWebhookRegistry } from '../../lib/index.js';

const GIB = 1024 * 1024 * 1024;
const mode = process.argv[2];

function bareBusboy(): RequestListener {
  return (req, res) => {
    const parser = busboy({ headers: req.headers, limits: { fileSize: 2 * GIB } });
    const written: Promise<string>[] = [];
    parser.on('file', (_name, file) => {
      const path = join(tmpdir(), `bench-bare-${randomUUID()}`);
      written.push(new Promise((resolve) => { file.pipe(createWriteStream(path)).on('close', () => resolve(path)); }));
    });
    parser.on('close', () => {
      void Promise.all(written).then((paths) => {
        for (const path of paths) rmSync(path, { force: true });
        res.end('ok');
      });
    });
    req.pipe(parser);
  };
}

async function middleware(): Promise<RequestListener> {
  const registry = new MemoryWebhookRegistry();
  await registry.activate({ workflowId: 'upload', nodes: [{ name: 'Webhook', parameters: { path: 'upload', httpMethod: 'POST', responseMode: 'lastNode', responseData: 'noData' } }] });
  const handle = createWebhookMiddleware(registry, async (run) => ({ items: run.items }), {
    limits: { fileSize: 2 * GIB, totalFileSize: 2 * GIB },
  });
  return (req, res) => handle(req, res, () => { res.statusCode = 404; res.end(); });
}

const listener = mode === 'busboy' ? bareBusboy() : await middleware();
let peak = 0;
let sampler: NodeJS.Timeout | undefined;
const server = createServer((req, res) => {
  global.gc?.();
  const before = process.memoryUsage.rss();
  peak = before;
  sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage.rss()); }, 10);
  res.on('finish', () => {
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage.rss());
    process.send?.({ type: 'done', rssGrowth: peak - before });
  });
  listener(req, res);
});
server.listen(0, '127.0.0.1', () => process.send?.({ type: 'ready', port: (server.address() as AddressInfo).port }));
// Stop gracefully, so the temp files of the last call are removed before the process ends.
process.on('message', (message: { type?: string }) => {
  if (message.type !== 'stop') return;
  server.close();
  server.closeAllConnections();
  process.disconnect?.();
});
