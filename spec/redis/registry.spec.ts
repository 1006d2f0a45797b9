import { createClient } from 'redis';
import type { WebhookRegistry } from 'workflow-webhooks';
import { RedisWebhookRegistry } from 'workflow-webhooks/redis';
import { describeRegistryContract } from '../support/registry-contract/index.js';
import { REDIS, RedisServer } from '../support/redis-server.js';
import { findService, markNotRun } from '../support/services.js';

type Client = { destroy(): unknown };

if (findService(REDIS) === undefined) {
  markNotRun('RedisWebhookRegistry keeps the registry contract', REDIS);
} else {
  let server: RedisServer;
  let next = 0;
  const clients = new Map<WebhookRegistry, { client: Client; prefix: string }>();

  async function open(prefix: string): Promise<RedisWebhookRegistry> {
    const client = createClient({ url: server.url });
    client.on('error', () => undefined);
    await client.connect();
    const registry = new RedisWebhookRegistry({ client, prefix, onEvent: () => undefined });
    await registry.ready();
    clients.set(registry, { client, prefix });
    return registry;
  }

  before(async () => {
    server = await RedisServer.start() as RedisServer;
  });
  after(async () => {
    await server.stop();
  });

  describeRegistryContract('RedisWebhookRegistry', {
    create: () => open(`spec-${process.pid}-${(next += 1)}:`),
    peer: (registry) => open(clients.get(registry)?.prefix as string),
    dispose: async (registry) => {
      await (registry as RedisWebhookRegistry).close();
      clients.get(registry)?.client.destroy();
      clients.delete(registry);
    },
  });
}
