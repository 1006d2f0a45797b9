/**
 * The server of `npm run bench -- history`, in its own process (forked by bench/history-servers.ts): the middleware
 * on node:http (where nothing hides its cost) with one webhook on a memory registry, keeping its calls in the history
 * store argv[2] names: `off` (no history option), `memory`, `redis` (BENCH_REDIS_URL) or `postgres`
 * (BENCH_POSTGRES_URL), with `bodyBytes` 4096 so a 1 kB body is kept whole (BENCH_HISTORY_BODY_BYTES=0: no body). BENCH_ENTRY loads the middleware from
 * another copy of the library (an older commit's sources), which serves `off` only. Over IPC: `cpu` answers with
 * `process.cpuUsage()` once the calls waiting for the next batch are written (so their write is in the bill) and a
 * `gc()` ran (so is their garbage); `flush` writes that batch and answers; `stop` closes everything.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { HistoryStore } from '../../lib/core/history.js';

type Lib = typeof import('../../lib/index.js');

const [storeKind = 'off'] = process.argv.slice(2);
const entry = process.env.BENCH_ENTRY;
const lib = (await import(entry === undefined ? '../../lib/index.js' : pathToFileURL(resolve(entry)).href)) as Lib;
/** Every crash run gets a store of its own (a prefix, a schema), so what it kept is counted alone. */
const place = process.env.BENCH_HISTORY_PLACE ?? `bench_history_${process.pid}`;
/** Retention as the stores default it, unless the crash runs ask for room for every call they send. */
const maxEntries = process.env.BENCH_HISTORY_MAX === undefined ? undefined : Number(process.env.BENCH_HISTORY_MAX);
let cleanup = async (): Promise<void> => undefined;

async function storeOf(): Promise<HistoryStore | undefined> {
  if (storeKind === 'off') return undefined;
  const retention = maxEntries === undefined ? {} : { maxEntries };
  if (storeKind === 'memory') return new lib.MemoryHistoryStore(retention);
  if (storeKind === 'redis') {
    const url = process.env.BENCH_REDIS_URL;
    if (url === undefined) throw new Error('the Redis history store needs BENCH_REDIS_URL');
    const [{ createClient }, { RedisHistoryStore }] = await Promise.all([import('redis'), import('../../lib/redis/index.js')]);
    const client = createClient({ url });
    client.on('error', (error: unknown) => console.error('bench redis client:', error));
    await client.connect();
    const store = new RedisHistoryStore({ client, prefix: `${place}:`, ...retention });
    cleanup = async () => {
      await store.close();
      client.destroy();
    };
    return store;
  }
  if (storeKind !== 'postgres') throw new Error(`unknown history store ${storeKind}: off, memory, redis or postgres`);
  const url = process.env.BENCH_POSTGRES_URL;
  if (url === undefined) throw new Error('the PostgreSQL history store needs BENCH_POSTGRES_URL');
  const [{ default: pg }, { PostgresHistoryStore }] = await Promise.all([import('pg'), import('../../lib/postgres/index.js')]);
  const pool = new pg.Pool({ connectionString: url });
  pool.on('error', (error: unknown) => console.error('bench postgres pool:', error));
  const store = new PostgresHistoryStore({ pool, schema: place, ...retention });
  cleanup = async () => {
    await store.close();
    await pool.end();
  };
  return store;
}

const registry = new lib.MemoryWebhookRegistry();
await registry.activate({ workflowId: 'orders', nodes: [{ name: 'Webhook', parameters: { path: 'orders', httpMethod: 'POST' } }] });
const store = await storeOf();
const bodyBytes = Number(process.env.BENCH_HISTORY_BODY_BYTES ?? 4096);
const middleware = lib.createWebhookMiddleware(registry, async () => ({ items: [] }), store === undefined ? {} : { history: { store, bodyBytes } });
// An older commit's middleware has no `history`; this build's has one only with the option.
const { history } = middleware as { history?: { flush(): Promise<void> } };
const server = createServer((req, res) => middleware(req, res, () => { res.statusCode = 404; res.end(); }));
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send?.({ type: 'ready', port: (server.address() as AddressInfo).port }));
process.on('message', (message: { type?: string }) => {
  if (message.type === 'cpu') {
    void (history?.flush() ?? Promise.resolve()).then(() => {
      global.gc?.();
      process.send?.({ type: 'cpu', usage: process.cpuUsage() });
    });
  }
  if (message.type === 'flush') void (history?.flush() ?? Promise.resolve()).then(() => process.send?.({ type: 'flushed' }));
  if (message.type === 'stop') {
    server.close();
    server.closeAllConnections();
    void middleware.close({ timeoutMs: 2000 }).then(cleanup).finally(() => process.exit(0));
  }
});
process.on('SIGINT', () => process.exit(0));
process.on('disconnect', () => process.exit(1));
