/**
 * Runs generated hostile requests through a real server on loopback and checks every answer: no 5xx, no hang past
 * a bound, a JSON body with a code on every error, no executor call for a refused request. Used by the fuzz spec
 * (a few thousand requests) and by `npm run fuzz` (100 000).
 */
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import express from 'express';
import { createWebhookMiddleware, handleClientError, MemoryWebhookRegistry } from '../../../lib/index.js';
import { FUZZ_SECRET, FUZZ_WAITS, generateRequest, random, type FuzzRequest } from './generate.js';

export interface FuzzServer {
  port: number;
  executed: Set<string>;
  /** Requests whose call resumed a waiting run. */
  resumed: Set<string>;
  close(): Promise<void>;
}

export async function startFuzzServer(tempDir: string): Promise<FuzzServer> {
  const registry = new MemoryWebhookRegistry();
  const node = (workflowId: string, parameters: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    registry.activate({ workflowId, nodes: [{ name: 'Webhook', parameters: parameters as never, ...extra }] });
  await node('json', { path: 'json', multipleMethods: true, httpMethod: ['GET', 'POST', 'PUT'], responseMode: 'lastNode', options: { rawBody: true } });
  await node('form', { path: 'form', httpMethod: 'POST' });
  await node('upload', { path: 'upload', httpMethod: 'POST', responseMode: 'lastNode', responseData: 'allEntries' });
  await node('users', { path: 'users/:id', multipleMethods: true, httpMethod: ['GET', 'DELETE', 'PATCH'], responseMode: 'lastNode' });
  await node('auth', { path: 'auth', httpMethod: 'POST', authentication: 'basicAuth', options: { ipWhitelist: '127.0.0.1, ::1' } });
  await node('cors', { path: 'cors', httpMethod: 'POST', responseMode: 'responseNode', options: { allowedOrigins: 'https://app.example.com', ignoreBots: true } });
  await node('any', { path: 'any', multipleMethods: true, httpMethod: ['DELETE', 'GET', 'HEAD', 'PATCH', 'POST', 'PUT'], responseMode: 'lastNode', responseData: 'noData' });
  await registry.listenForTest({ workflowId: 'json', nodes: [{ name: 'Webhook', parameters: { path: 'json', httpMethod: 'POST' } }] }, { timeoutMs: 24 * 3600 * 1000 });

  const now = Date.now();
  for (const [index, waitId] of FUZZ_WAITS.entries()) {
    await registry.putWait({ waitId, status: 'waiting', expiresAt: now + 3_600_000, workflowId: 'approval', nodeName: 'Wait', mode: 'production',
      startedAt: now, form: 'suspended', wait: index === 1 ? { suffix: 'approve', responseMode: 'lastNode' } : {} });
  }
  const executed = new Set<string>();
  const resumed = new Set<string>();
  const app = express();
  app.use('/hooks', createWebhookMiddleware(registry, async (run) => {
    const id = (run.items[0]?.json.headers as Record<string, unknown> | undefined)?.['x-fuzz-id'];
    if (typeof id === 'string') executed.add(id);
    if (typeof id === 'string' && run.resume !== undefined) resumed.add(id);
    run.respond({ status: 200, body: { ok: true } });
    return { items: [{ json: { ok: true } }] };
  }, {
    uploads: { tempDir, memoryThreshold: 16 * 1024 },
    limits: { bodySize: 64 * 1024, binarySize: 128 * 1024, fileSize: 64 * 1024 },
    credentials: () => ({ user: 'ada', password: 'lovelace' }),
    onWorkflowError: () => undefined,
    responseTimeoutMs: 5000,
    waitingSecret: FUZZ_SECRET,
  }));
  app.use((_req: express.Request, res: express.Response) => { res.status(404).json({ code: 'HOST_NOT_FOUND', message: 'Not here' }); });
  const server: Server = createServer({ requestTimeout: 5000, headersTimeout: 4000, connectionsCheckingInterval: 500 }, app);
  server.on('clientError', handleClientError);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    executed,
    resumed,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

export interface Exchange {
  request: FuzzRequest;
  status: number | undefined;
  /** The answer's status line and headers. */
  head: string;
  body: string;
  method: string;
  ms: number;
}

function exchange(port: number, request: FuzzRequest, boundMs: number): Promise<Exchange> {
  const started = performance.now();
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1');
    const done = (): void => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('latin1');
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1];
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const length = /\r\ncontent-length: (\d+)/i.exec(head)?.[1];
      const body = rest.join('\r\n\r\n');
      resolve({ request, status: status === undefined ? undefined : Number(status), head, body: length === undefined ? body : body.slice(0, Number(length)), method: request.bytes.toString('latin1', 0, 8).split(' ')[0] ?? '', ms: performance.now() - started });
    };
    const timer = setTimeout(() => { socket.destroy(); done(); }, boundMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', done);
    socket.on('error', () => undefined);
    socket.write(request.bytes, () => { if (request.cutShort) socket.end(); });
  });
}

export interface FuzzReport {
  count: number;
  statuses: Record<string, number>;
  maxMs: number;
  violations: string[];
}

/** Sends `count` requests, `concurrency` at a time; a violation is any answer the contract does not allow. */
export async function runFuzz(server: FuzzServer, count: number, options: { seed?: number; concurrency?: number; boundMs?: number } = {}): Promise<FuzzReport> {
  const rand = random(options.seed ?? 20261122);
  const bound = options.boundMs ?? 8000;
  const report: FuzzReport = { count, statuses: {}, maxMs: 0, violations: [] };
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const request = generateRequest(rand, next);
      next += 1;
      const result = await exchange(server.port, request, bound);
      check(result, server, report, bound);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 32 }, worker));
  return report;
}

function check(result: Exchange, server: FuzzServer, report: FuzzReport, bound: number): void {
  const { request, status } = result;
  const key = status === undefined ? 'closed' : String(status);
  report.statuses[key] = (report.statuses[key] ?? 0) + 1;
  report.maxMs = Math.max(report.maxMs, result.ms);
  const say = (what: string): void => { if (report.violations.length < 50) report.violations.push(`${request.id} ${request.category}: ${what}`); };
  if (result.ms >= bound) say(`no answer within ${bound} ms`);
  if (status === undefined) {
    if (!request.cutShort) say('connection closed without an answer');
    return;
  }
  if (status >= 500) say(`answered ${status}: ${result.body.slice(0, 200)}`);
  if (status >= 400 && server.executed.has(request.id)) say(`refused with ${status} but the workflow ran`);
  if (server.resumed.has(request.id) && !request.rightlySigned) say('resumed a waiting run without the right signature');
  if (status === 401 && !/\r\nwww-authenticate: ?\S/i.test(result.head)) say('answered 401 without a WWW-Authenticate challenge');
  if (status >= 400 && result.method !== 'HEAD') {
    try {
      const parsed = JSON.parse(result.body) as { code?: unknown };
      if (typeof parsed.code !== 'string') say(`error body without a code: ${result.body.slice(0, 200)}`);
    } catch {
      say(`error body is not JSON: ${result.body.slice(0, 200)}`);
    }
  }
}
