/**
 * One contender of the HTTP benchmarks, in its own process (forked by bench/http.ts). argv: scenario, then options.
 * Reports `{ type: 'ready', port, activationMs?, heapPerWebhook? }` over IPC. `middleware-redis` and `mwnode-redis`
 * serve the JSON call from a RedisWebhookRegistry on BENCH_REDIS_URL (bench/redis-http.ts).
 */
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import busboy from 'busboy';
import express from 'express';
import { createWebhookMiddleware, MemoryWebhookRegistry, type WebhookRegistry } from '../../lib/index.js';
import { openBenchRedisRegistry } from './bench-redis-registry.js';

const [scenario = 'node-json', sizeArg = '1'] = process.argv.slice(2);
const STARTED = { message: 'Workflow was started' };
/** The secret of the signed webhook (`/webhook/signed`, GitHub's scheme); bench/signed.ts signs with the same. */
const BENCH_SIGNING_SECRET = 'bench-signing-secret';
let report: Record<string, number> = {};
/** Run at 'stop': the Redis registry and its client are closed before the process exits. */
let cleanup = async (): Promise<void> => undefined;

async function redisRegistry(): Promise<WebhookRegistry> {
  const redis = await openBenchRedisRegistry(`bench-http-${process.pid}:`);
  cleanup = redis.close;
  return redis.registry;
}

function nodeHttp(): RequestListener {
  return (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const body = JSON.stringify(STARTED);
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  };
}

function bareExpress(kind: string): RequestListener {
  const app = express();
  if (kind === 'json') app.post('/webhook/hook', express.json(), (_req, res) => { res.json(STARTED); });
  if (kind === 'form') app.post('/webhook/form', express.urlencoded({ extended: false }), (_req, res) => { res.json({ ok: true }); });
  if (kind === 'multipart') {
    app.post('/webhook/upload', (req, res) => {
      const parser = busboy({ headers: req.headers });
      const files: Buffer[] = [];
      parser.on('file', (_name, file) => {
        const chunks: Buffer[] = [];
        file.on('data', (chunk: Buffer) => chunks.push(chunk)).on('end', () => files.push(Buffer.concat(chunks)));
      });
      parser.on('close', () => { res.json({ ok: true, files: files.length }); });
      req.pipe(parser);
    });
  }
  return app;
}

async function withMiddleware(kind: string, statics: number, dynamics: number, bare = false): Promise<RequestListener> {
  const registry = kind === 'redis' ? await redisRegistry() : new MemoryWebhookRegistry();
  global.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const started = performance.now();
  for (let i = 0; i < statics - 1; i += 1) {
    await registry.activate({ workflowId: `s${i}`, nodes: [{ name: 'Webhook', parameters: { path: `filler/static-${i}`, httpMethod: 'POST' } }] });
  }
  for (let i = 0; i < dynamics; i += 1) {
    await registry.activate({ workflowId: `d${i}`, nodes: [{ name: 'Webhook', webhookId: `id-${i}`, parameters: { path: 'orders/:orderId', httpMethod: 'POST' } }] });
  }
  await registry.activate({ workflowId: 'hook', nodes: [{ name: 'Webhook', parameters: { path: 'hook', httpMethod: 'POST' } }] });
  await registry.activate({ workflowId: 'form', nodes: [{ name: 'Webhook', parameters: { path: 'form', httpMethod: 'POST', responseMode: 'lastNode' } }] });
  await registry.activate({ workflowId: 'upload', nodes: [{ name: 'Webhook', parameters: { path: 'upload', httpMethod: 'POST', responseMode: 'lastNode' } }] });
  await registry.activate({ workflowId: 'signed', nodes: [{ name: 'Webhook', parameters: { path: 'signed', httpMethod: 'POST', authentication: 'signatureAuth' } }] });
  const activationMs = performance.now() - started;
  global.gc?.();
  const count = statics + dynamics;
  report = { activationMs, heapPerWebhook: count > 1 ? (process.memoryUsage().heapUsed - heapBefore) / count : 0 };
  const output = { items: [{ json: { ok: true } }] };
  const middleware = createWebhookMiddleware(registry, kind === 'json' || kind === 'redis' ? async () => output : async (run) => ({ items: [{ json: { ok: true, files: Object.keys(run.items[0]?.binary ?? {}).length } }] }),
    { credentials: () => ({ scheme: 'github', secret: BENCH_SIGNING_SECRET }) });
  if (bare) return (req, res) => middleware(req, res, () => { res.statusCode = 404; res.end(); });
  const app = express();
  app.use(middleware);
  return app;
}

const [family, kind = 'json'] = scenario.split('-');
function nodeBusboy(): RequestListener {
  return (req, res) => {
    const parser = busboy({ headers: req.headers });
    parser.on('file', (_name, file) => { const chunks: Buffer[] = []; file.on('data', (c: Buffer) => chunks.push(c)).on('end', () => Buffer.concat(chunks)); });
    parser.on('close', () => { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"ok":true,"files":1}'); });
    req.pipe(parser);
  };
}

const listener = scenario === 'node-multipart' ? nodeBusboy() : family === 'node' ? nodeHttp()
  : family === 'express' ? bareExpress(kind)
  : await withMiddleware(kind, Number(sizeArg), Number(process.argv[4] ?? 0), family === 'mwnode');
const server = createServer(listener);
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send?.({ type: 'ready', port: (server.address() as AddressInfo).port, ...report }));
process.on('message', (message: { type?: string }) => {
  if (message.type === 'stop') server.close(() => { void cleanup().finally(() => process.exit(0)); });
});
process.on('SIGINT', () => process.exit(0));
// The benchmark died without stopping us (a Redis contender would otherwise reconnect forever to a Redis gone with it).
process.on('disconnect', () => process.exit(1));
