/**
 * A RedisWebhookRegistry for a bench server, on its own prefix, loaded and following the change log: its client and
 * Redis' entry point imported only when a scenario asks for Redis (BENCH_REDIS_URL, set by the bench that started
 * redis-server). `close()` closes the registry, then its client.
 */
import type { WebhookRegistry } from '../../lib/index.js';

export async function openBenchRedisRegistry(prefix: string): Promise<{ registry: WebhookRegistry; close(): Promise<void> }> {
  const url = process.env.BENCH_REDIS_URL;
  if (url === undefined) throw new Error('a Redis scenario needs BENCH_REDIS_URL');
  const [{ createClient }, { RedisWebhookRegistry }] = await Promise.all([import('redis'), import('../../lib/redis/index.js')]);
  const client = createClient({ url });
  client.on('error', (error: unknown) => console.error('bench redis client:', error));
  await client.connect();
  const registry = new RedisWebhookRegistry({ client, prefix });
  await registry.ready();
  return {
    registry,
    close: async () => {
      await registry.close();
      client.destroy();
    },
  };
}
