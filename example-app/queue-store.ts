/**
 * Where `npm run start:queue` keeps its jobs, webhooks and calls: the PostgreSQL of DATABASE_URL (queue, registry and
 * call log in the schema DATABASE_SCHEMA, default `orders_api`; no Redis at all), or else a redis-server of the
 * example's own, started here and stopped last. The workers get what they need to reach the same store.
 */
import type { ChildProcess } from 'node:child_process';
import type { WebhookRegistry } from 'workflow-webhooks';
import type { CallLog } from 'workflow-webhooks/console';
import type { QueueConnection } from 'workflow-webhooks/queue';
import { openSharedStore } from './shared-store.js';
import { startLocalRedis } from './local-redis.js';

export interface QueueStore {
  /** For the banner: where the jobs are. */
  described: string;
  /** The queue's and the workers' `connection`, and, on PostgreSQL, the schema of the library's tables. */
  connection: QueueConnection;
  schema: string | undefined;
  registry: WebhookRegistry;
  callLog: CallLog;
  /** What a worker process needs in its environment to reach the same store. */
  workerEnv: Record<string, string>;
  /** A redis-server of the example's own, which may stop by itself; undefined on PostgreSQL. */
  redisProcess: ChildProcess | undefined;
  /** Closes the registry and the call log (the queue and the workers are closed by their owners). */
  close(): Promise<void>;
  /** Stops what the example started for it (its redis-server), once nothing uses it; says so. */
  stop(print: (line: string) => void): Promise<void>;
}

export const REDIS_PREFIX = 'orders-api:';

export async function openQueueStore(env: NodeJS.ProcessEnv): Promise<QueueStore> {
  if (env.DATABASE_URL !== undefined && env.DATABASE_URL !== '') {
    const schema = env.DATABASE_SCHEMA ?? 'orders_api';
    const shared = await openSharedStore({ DATABASE_URL: env.DATABASE_URL, DATABASE_SCHEMA: schema });
    if (shared === undefined) throw new Error('DATABASE_URL names no database');
    return {
      described: `PostgreSQL (schema ${schema}; no Redis)`, connection: env.DATABASE_URL, schema,
      registry: shared.registry, callLog: shared.callLog, redisProcess: undefined,
      workerEnv: { DATABASE_URL: env.DATABASE_URL, DATABASE_SCHEMA: schema },
      close: shared.close,
      stop: async () => undefined,
    };
  }
  const redis = await startLocalRedis();
  try {
    const shared = await openSharedStore({ REDIS_URL: redis.url, REDIS_PREFIX });
    if (shared === undefined) throw new Error('the local redis-server gave no URL');
    return {
      described: redis.url, connection: redis.url, schema: undefined,
      registry: shared.registry, callLog: shared.callLog, redisProcess: redis.child,
      workerEnv: { REDIS_URL: redis.url, REDIS_PREFIX },
      close: shared.close,
      stop: async (print) => {
        await redis.stop();
        print('redis-server stopped');
      },
    };
  } catch (error) {
    await redis.stop();
    throw error;
  }
}
