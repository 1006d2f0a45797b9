/**
 * One contender of the side-by-side speed table (bench/speed.ts), in its own process: argv `<family> <kind>` with
 * family `node` (parses the body and answers, the limit), `switched` (the limit after the prototype switch Express
 * makes on every request, without Express), `ceiling` (that same handler in Express 5's app.use(), the
 * most Express lets a handler do), `express` (an Express 5 route with express.json(), express.urlencoded() or busboy),
 * `middleware` (this middleware in Express 5), `middleware-reads` (the same, its run reading every file's bytes,
 * which joins them into one Buffer), `middleware-otel-api` and `middleware-otel-sdk` (the middleware with
 * OpenTelemetry, without and with an SDK), `middleware-console` (the middleware with the webhook console mounted,
 * which records every call), `mwnode` (this middleware on node:http), `mwnode-schema` (the same with a 10-field JSON
 * Schema for the body) or `connect-front` (this middleware mounted at /hooks
 * by Connect in front of an Express app), and kind `json`, `form` or `multipart`. It
 * imports the package by name, so the runner decides whether that is the built package (as hosts run it) or the
 * sources; with BENCH_BUILD (the main module of an older build, bench/speed/baselines.ts) the middleware is that
 * build's. Reports `{ type: 'ready', port }` over IPC and answers the allocation measure's messages (gc-probe.ts).
 */
import { createServer, IncomingMessage, ServerResponse, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parse as parseQueryString } from 'node:querystring';
import { pathToFileURL } from 'node:url';
import busboy from 'busboy';
import connect from 'connect';
import express from 'express';
import type { CallTelemetry, WebhookExecutor } from 'workflow-webhooks';
import { serveGcProbe } from './gc-probe.js';
import { ORDER_SCHEMA } from './order-schema.js';

const { createWebhookMiddleware, MemoryWebhookRegistry } = (process.env.BENCH_BUILD === undefined
  ? await import('workflow-webhooks')
  : await import(pathToFileURL(process.env.BENCH_BUILD).href)) as typeof import('workflow-webhooks');
const [family = 'node', kind = 'json'] = process.argv.slice(2);
const STARTED = JSON.stringify({ message: 'Workflow was started' });

function answer(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(STARTED) });
  res.end(STARTED);
}

/**
 * An upload read as every contender reads it: text fields into an object, each file's bytes into one Buffer, then
 * `done` (busboy skips the fields of a parser without a 'field' listener, which no real route can do).
 */
function readUpload(req: IncomingMessage, done: (fields: Record<string, string>, files: Record<string, Buffer>) => void): void {
  const parser = busboy({ headers: req.headers });
  const fields: Record<string, string> = {};
  const files: Record<string, Buffer> = {};
  parser.on('field', (name, value) => { fields[name] = value; });
  parser.on('file', (name, file) => {
    const chunks: Buffer[] = [];
    file.on('data', (chunk: Buffer) => chunks.push(chunk)).on('end', () => { files[name] = Buffer.concat(chunks); });
  });
  parser.on('close', () => done(fields, files));
  req.pipe(parser);
}

/** The limit: read the body, parse it as the kind says, answer; nothing else. */
function bareNode(): RequestListener {
  if (kind === 'multipart') return (req, res) => readUpload(req, () => answer(res));
  return (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      if (kind === 'json') JSON.parse(text);
      else parseQueryString(text);
      answer(res);
    });
  };
}

function bareExpress(): RequestListener {
  const app = express();
  if (kind === 'json') app.post('/webhook/:path', express.json(), (_req, res) => { res.json({ message: 'Workflow was started' }); });
  if (kind === 'form') app.post('/webhook/:path', express.urlencoded({ extended: false }), (_req, res) => { res.json({ message: 'Workflow was started' }); });
  if (kind === 'multipart') {
    app.post('/webhook/:path', (req, res) => readUpload(req, () => { res.json({ message: 'Workflow was started' }); }));
  }
  return app;
}

/**
 * `middleware-otel-api`: with `webhookTelemetry()` and no SDK (the API's no-ops). `middleware-otel-sdk`: with the
 * SDK as a host sets it up (context manager, batched spans, periodic metrics), exporting to memory, emptied every second.
 */
async function telemetryOf(name: string): Promise<CallTelemetry | undefined> {
  if (!name.startsWith('middleware-otel')) return undefined;
  const { webhookTelemetry } = await import('workflow-webhooks/opentelemetry');
  if (name === 'middleware-otel-api') return webhookTelemetry();
  const [{ context }, { AsyncLocalStorageContextManager }, traceSdk, metricsSdk] = await Promise.all([
    import('@opentelemetry/api'), import('@opentelemetry/context-async-hooks'), import('@opentelemetry/sdk-trace'), import('@opentelemetry/sdk-metrics'),
  ]);
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const spans = new traceSdk.InMemorySpanExporter();
  const metrics = new metricsSdk.InMemoryMetricExporter(metricsSdk.AggregationTemporality.CUMULATIVE);
  setInterval(() => { spans.reset(); metrics.reset(); }, 1000).unref();
  return webhookTelemetry({
    tracerProvider: new traceSdk.TracerProvider({ spanProcessors: [new traceSdk.BatchSpanProcessor({ exporter: spans })] }),
    meterProvider: new metricsSdk.MeterProvider({ readers: [new metricsSdk.PeriodicExportingMetricReader({ exporter: metrics, exportIntervalMillis: 1000 })] }),
  });
}

async function withMiddleware(bare: boolean, readsFiles: boolean): Promise<RequestListener> {
  const registry = new MemoryWebhookRegistry();
  await registry.activate({
    workflowId: 'hook', nodes: [{ name: 'Webhook', parameters: { path: 'hook', httpMethod: 'POST' } }],
    ...(family === 'mwnode-schema' ? { schemas: { Webhook: { body: ORDER_SCHEMA } } } : {}),
  });
  const output = { items: [{ json: { ok: true } }] };
  const executor: WebhookExecutor = readsFiles
    ? (run) => {
      let bytes = 0;
      for (const file of Object.values(run.items[0]?.binary ?? {})) bytes += file.data?.length ?? 0;
      if (bytes === 0) throw new Error('the upload carried no bytes');
      return output;
    }
    : () => output;
  const telemetry = await telemetryOf(family);
  const middleware = createWebhookMiddleware(registry, executor, telemetry === undefined ? {} : { telemetry });
  if (bare) return (req, res) => middleware(req, res, () => { res.statusCode = 404; res.end(); });
  if (family === 'connect-front') {
    // docs/hosts.md "In front of Express": Connect mounts the middleware under a path, without Express's prototype
    // switch, and hands every other request to the Express app.
    const front = connect();
    front.use('/hooks', middleware);
    front.use(express());
    return front as unknown as RequestListener;
  }
  const app = express();
  app.use(middleware);
  if (family === 'middleware-console') {
    // Mounted as a host would; no page is opened, so what is measured is the recording of every call.
    const { createWebhookConsole } = await import('workflow-webhooks/console');
    app.use('/admin/webhooks', createWebhookConsole({ registry, middleware, webhookUrl: '/', public: true }));
  }
  return app;
}

/**
 * The limit after the one thing Express 5 does to every request before its first middleware that costs the most:
 * it switches the prototypes of req and res to its own (which extend Node's), so that `req.ip` or `res.json()`
 * exist. No Express is loaded; the row shows how much of Express's ceiling that switch alone costs.
 */
function switched(): RequestListener {
  const request = Object.create(IncomingMessage.prototype) as object;
  const response = Object.create(ServerResponse.prototype) as object;
  const handler = bareNode();
  return (req, res) => {
    Object.setPrototypeOf(req, request);
    Object.setPrototypeOf(res, response);
    handler(req, res);
  };
}

/** Express's ceiling: the limit's own handler as the only middleware of an Express 5 app. */
function ceiling(): RequestListener {
  const app = express();
  app.use(bareNode());
  return app;
}

const listener = family === 'node' ? bareNode() : family === 'switched' ? switched() : family === 'ceiling' ? ceiling() : family === 'express' ? bareExpress()
  : await withMiddleware(family === 'mwnode' || family === 'mwnode-schema', family === 'middleware-reads');
serveGcProbe();
const server = createServer(listener);
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send?.({ type: 'ready', port: (server.address() as AddressInfo).port }));
process.on('message', (message: { type?: string }) => {
  if (message.type === 'stop') server.close(() => process.exit(0));
});
process.on('SIGINT', () => process.exit(0));
process.on('disconnect', () => process.exit(1));
