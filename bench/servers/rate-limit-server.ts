/**
 * The server of `npm run bench -- ratelimit`, in its own process (forked by bench/rate-limit.ts): the middleware on
 * node:http (where nothing hides its cost) with one address per case, from a memory registry, a Redis registry on
 * BENCH_REDIS_URL (argv[2] `redis`) or a PostgreSQL registry on BENCH_POSTGRES_URL (argv[2] `postgres`). BENCH_ENTRY loads the middleware from a built package instead (this checkout's
 * dist/, or an older commit's build, as the speed bench makes them), which serves the unlimited address only. Answers `cpu` over IPC with its
 * process.cpuUsage(), so the runner measures CPU per call over a fixed number of calls.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { openBenchPostgresRegistry } from './bench-postgres-registry.js';
import { openBenchRedisRegistry } from './bench-redis-registry.js';

type Lib = typeof import('../../lib/index.js');

const [registryKind = 'memory'] = process.argv.slice(2);
const entry = process.env.BENCH_ENTRY;
const lib = (await import(entry === undefined ? '../../lib/index.js' : pathToFileURL(resolve(entry)).href)) as Lib;
let cleanup = async (): Promise<void> => undefined;

async function registryOf(): Promise<import('../../lib/index.js').WebhookRegistry> {
  if (registryKind === 'postgres') {
    const postgres = await openBenchPostgresRegistry(`bench_rate_${process.pid}`);
    cleanup = postgres.close;
    return postgres.registry;
  }
  if (registryKind !== 'redis') return new lib.MemoryWebhookRegistry();
  const redis = await openBenchRedisRegistry(`bench-rate-${process.pid}:`);
  cleanup = redis.close;
  return redis.registry;
}

/** Limits no bench run reaches (a day, a billion calls), except `spent`, which refuses every call after its first. */
const ROOMY = { limit: 1_000_000_000, windowMs: 86_400_000 };
const CASES: Record<string, unknown> = {
  open: undefined,
  address: ROOMY,
  ip: { ...ROOMY, key: 'ip' },
  header: { ...ROOMY, key: 'x-api-key' },
  spent: { limit: 1, windowMs: 86_400_000 },
};

const registry = await registryOf();
for (const [path, rateLimit] of Object.entries(CASES)) {
  if (entry !== undefined && rateLimit !== undefined) continue;
  await registry.activate({
    workflowId: path, nodes: [{ name: 'Webhook', parameters: { path, httpMethod: 'POST' } }],
    ...(rateLimit === undefined ? {} : { settings: { rateLimit } as never }),
  });
}
const middleware = lib.createWebhookMiddleware(registry, async () => ({ items: [] }), {});
const server = createServer((req, res) => middleware(req, res, () => { res.statusCode = 404; res.end(); }));
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send?.({ type: 'ready', port: (server.address() as AddressInfo).port }));
process.on('message', (message: { type?: string }) => {
  if (message.type === 'cpu') {
    global.gc?.();
    process.send?.({ type: 'cpu', usage: process.cpuUsage() });
  }
  if (message.type === 'stop') server.close(() => { void cleanup().finally(() => process.exit(0)); });
});
process.on('SIGINT', () => process.exit(0));
process.on('disconnect', () => process.exit(1));
