/**
 * Where concurrent large uploads wait on the PostgreSQL binary store (issue 62): `BENCH_UPLOADS` uploads (default 10)
 * of `BENCH_UPLOAD_MIB` MiB (default 30) sent at once to a queue-mode web instance on a throwaway PostgreSQL, with
 * the queue's default deadlines, and once alone. Prints each call's status and time, and per file how long the store
 * took to take it, split into the time waiting for a connection of the pool and the time the statements ran.
 * Measured here, never asserted: `node --conditions=workflow-webhooks-source --import tsx bench/postgres-uploads.ts`.
 */
import { createServer, type Server } from 'node:http';
import { performance } from 'node:perf_hooks';
import { MemoryWebhookRegistry, createWebhookMiddleware, type WebhookExecutor } from 'workflow-webhooks';
import { createWebhookQueue, createWebhookWorker, postgresBinaryStore, type BinaryStore } from 'workflow-webhooks/queue';
import { startPostgres } from './postgres-server.js';

const MIB = 1024 * 1024;
const UPLOADS = Number(process.env.BENCH_UPLOADS ?? 10);
const SIZE = Number(process.env.BENCH_UPLOAD_MIB ?? 30) * MIB;
const QUIET = { warn: (): void => undefined, error: (): void => undefined };

/**
 * The store, its puts timed (from the first statement's start to the file's listing) and each of its statements
 * (waiting for a connection of the queue's pool included).
 */
function timed(store: BinaryStore, puts: number[], statements: number[]): BinaryStore {
  return {
    kind: store.kind, maxBytes: store.maxBytes,
    attach: (host) => store.attach?.(host.kind !== 'postgres' ? host : {
      ...host,
      async query(sql, values) {
        const started = performance.now();
        try {
          return await host.query(sql, values);
        } finally {
          statements.push(performance.now() - started);
        }
      },
    }),
    async put(source, bytes) {
      const started = performance.now();
      try {
        return await store.put(source, bytes);
      } finally {
        puts.push(performance.now() - started);
      }
    },
    get: (ref) => store.get(ref),
    remove: (refs) => store.remove(refs),
  };
}

async function upload(port: number, data: Buffer): Promise<{ status: number; ms: number; code?: string }> {
  const form = new FormData();
  form.append('file', new Blob([data]), 'big.bin');
  const started = performance.now();
  const res = await fetch(`http://127.0.0.1:${port}/hooks/webhook/upload`, { method: 'POST', body: form });
  const body = await res.json().catch(() => ({})) as { code?: string; message?: string };
  if (res.status !== 200) console.log(`  refused: ${body.message ?? ''}`);
  return { status: res.status, ms: Math.round(performance.now() - started), code: body.code };
}

function percentile(values: number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))] ?? 0);
}

async function round(port: number, count: number, puts: number[], statements: number[]): Promise<void> {
  puts.length = 0;
  statements.length = 0;
  const data = Buffer.alloc(SIZE, 0x61);
  const started = performance.now();
  const answers = await Promise.all(Array.from({ length: count }, () => upload(port, data)));
  const wall = Math.round(performance.now() - started);
  const statuses = answers.map((answer) => `${answer.status}${answer.code === undefined ? '' : ` ${answer.code}`} ${answer.ms} ms`);
  console.log(`${count} × ${SIZE / MIB} MiB at once: ${wall} ms in all; answers: ${statuses.join(', ')}`);
  console.log(`  store.put per file (ms): ${puts.map((ms) => Math.round(ms)).join(', ')}`);
  console.log(`  its ${statements.length} statements (ms, pool wait included): median ${percentile(statements, 0.5)}, p95 ${percentile(statements, 0.95)}, max ${percentile(statements, 1)}`);
}

async function main(): Promise<void> {
  const postgres = await startPostgres();
  const puts: number[] = [];
  const statements: number[] = [];
  const store = timed(postgresBinaryStore(), puts, statements);
  const registry = new MemoryWebhookRegistry();
  await registry.activate({ workflowId: 'files', nodes: [{ name: 'Webhook', parameters: { path: 'upload', httpMethod: 'POST' } }] });
  const queue = createWebhookQueue({ connection: postgres.url, name: 'uploads', binaryStore: store, logger: QUIET });
  const executor: WebhookExecutor = async () => ({ items: [] });
  const worker = createWebhookWorker({ connection: postgres.url, name: 'uploads', binaryStore: store, executor, logger: QUIET });
  await Promise.all([queue.ready(), worker.ready()]);
  const middleware = createWebhookMiddleware(registry, queue.executor, { logger: QUIET });
  const server: Server = createServer((req, res) => {
    if (req.url?.startsWith('/hooks/')) {
      req.url = req.url.slice('/hooks'.length);
      middleware(req, res, () => { res.statusCode = 404; res.end(); });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  try {
    await round(port, 1, puts, statements);
    await round(port, UPLOADS, puts, statements);
    await round(port, 1, puts, statements);
  } finally {
    server.close();
    await middleware.close({ timeoutMs: 500 });
    await worker.close({ timeoutMs: 1000 });
    await queue.close();
    await postgres.stop();
  }
}

await main();
