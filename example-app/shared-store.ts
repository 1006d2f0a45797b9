/**
 * The store several instances of the example share, chosen by the environment: PostgreSQL with DATABASE_URL (a
 * PostgresWebhookRegistry and PostgresCallLog in the schema DATABASE_SCHEMA, default `orders_api`), or Redis with
 * REDIS_URL (a RedisWebhookRegistry and RedisCallLog under REDIS_PREFIX, default `orders-api:`). Each store's client
 * is imported only when it is asked for, so an instance on one never loads the other.
 */
import type { WebhookRegistry } from 'workflow-webhooks';
import type { CallLog } from 'workflow-webhooks/console';

export interface SharedStore {
  /** Where the webhooks live, for the instance's banner: `Redis` or `PostgreSQL`. */
  name: string;
  registry: WebhookRegistry;
  callLog: CallLog;
  close: () => Promise<void>;
}

/** The store the environment names, connected and loaded; undefined when it names none (one instance, in memory). */
export async function openSharedStore(env: NodeJS.ProcessEnv): Promise<SharedStore | undefined> {
  if (env.DATABASE_URL !== undefined && env.DATABASE_URL !== '') return openPostgres(env.DATABASE_URL, env.DATABASE_SCHEMA ?? 'orders_api');
  if (env.REDIS_URL !== undefined && env.REDIS_URL !== '') return openRedis(env.REDIS_URL, env.REDIS_PREFIX ?? 'orders-api:');
  return undefined;
}

async function openPostgres(url: string, schema: string): Promise<SharedStore> {
  const { default: pg } = await import('pg');
  const { PostgresCallLog, PostgresWebhookRegistry } = await import('workflow-webhooks/postgres');
  // The app's own pool, as a backend that already uses PostgreSQL has one; the registry and the log borrow from it.
  const pool = new pg.Pool({ connectionString: url, connectionTimeoutMillis: 5000 });
  // An idle connection the server dropped is reported here; the registry reports what matters (away, back).
  pool.on('error', () => undefined);
  try {
    // ready() creates the schema on first start (migrations under an advisory lock: instances may start at once).
    const registry = new PostgresWebhookRegistry({ pool, schema });
    await registry.ready();
    // Every instance's calls in one table, so the console of any instance shows them all.
    const callLog = new PostgresCallLog({ pool, schema });
    return { name: 'PostgreSQL', registry, callLog, close: async () => { await callLog.close(); await registry.close(); await pool.end(); } };
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
}

async function openRedis(url: string, prefix: string): Promise<SharedStore> {
  const { createClient } = await import('redis');
  const { RedisCallLog, RedisWebhookRegistry } = await import('workflow-webhooks/redis');
  const client = createClient({ url });
  // node-redis emits every failed reconnect; the registry reports what matters (it went away, it came back).
  client.on('error', () => undefined);
  try {
    // node-redis retries a first connect forever; an instance that cannot reach Redis should say so and stop.
    await Promise.race([client.connect(), new Promise((_resolve, reject) => {
      setTimeout(() => reject(new Error('no answer within 5 s')), 5000).unref();
    })]);
    const registry = new RedisWebhookRegistry({ client, prefix });
    await registry.ready();
    const callLog = new RedisCallLog({ client, keyPrefix: prefix });
    return { name: 'Redis', registry, callLog, close: async () => { await callLog.close(); await registry.close(); client.destroy(); } };
  } catch (error) {
    client.destroy();
    throw error;
  }
}
