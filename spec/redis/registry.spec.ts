import { expect } from 'chai';
import type { RegisteredWebhook, WebhookRegistry } from 'workflow-webhooks';
import { RedisWebhookRegistry } from 'workflow-webhooks/redis';
import { describeRegistryContract } from '../support/registry-contract/index.js';
import { REDIS } from '../support/redis-server.js';
import { shortenRateWindows } from '../support/redis/rate-windows.js';
import { NODE_REDIS_5, TOPOLOGIES, type RunningTopology } from '../support/redis/topologies.js';
import { findService, markNotRun } from '../support/services.js';

type Client = { destroy(): unknown };

if (findService(REDIS) === undefined) {
  markNotRun('RedisWebhookRegistry keeps the registry contract (one redis-server, Redis Cluster, Sentinel)', REDIS);
} else {
  for (const starter of [...TOPOLOGIES, ...NODE_REDIS_5]) {
    describe(`RedisWebhookRegistry on ${starter.name}`, function () {
      this.timeout(20_000);
      let topology: RunningTopology;
      let next = 0;
      const clients = new Map<WebhookRegistry, { client: Client; prefix: string }>();

      async function open(prefix: string, maxWaiting?: number): Promise<RedisWebhookRegistry> {
        const client = await topology.client();
        const registry = new RedisWebhookRegistry({ client, prefix, onEvent: () => undefined, ...(maxWaiting === undefined ? {} : { maxWaiting }) });
        await registry.ready();
        clients.set(registry, { client, prefix });
        return registry;
      }

      before(async () => {
        topology = await starter.start() as RunningTopology;
      });
      after(async () => {
        await topology.stop();
      });

      it('lets exactly one of 1 000 racing activations from three instances win; every loser names the winner', async () => {
        const prefix = `race-${process.pid}:`;
        const instances = await Promise.all([open(prefix), open(prefix), open(prefix)]);
        try {
          const outcomes = await Promise.allSettled(Array.from({ length: 1000 }, (_, index) =>
            (instances[index % 3] as RedisWebhookRegistry).activate({ workflowId: `wf-${index}`, workflowName: `Racer ${index}`, nodes: [{ name: 'Webhook', parameters: { path: 'race', httpMethod: 'POST' } }] })));
          const winners = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? outcome.value : []));
          expect(winners).to.have.length(1);
          const winner = winners[0] as RegisteredWebhook;
          const expected = `The path "race" and method POST are already in use by workflow "${winner.workflowName as string}" (${winner.workflowId}), node "Webhook".`;
          const messages = new Set(outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [(outcome.reason as Error).message] : [])));
          expect([...messages]).to.deep.equal([expected]);
        } finally {
          // Closed whatever the outcome: an open registry keeps mocha from ending.
          for (const instance of instances) {
            await (instance as RedisWebhookRegistry).close();
            await clients.get(instance)?.client.destroy();
          }
        }
      });

      describeRegistryContract('RedisWebhookRegistry', {
        create: () => open(`spec-${process.pid}-${(next += 1)}:`),
        peer: (registry) => open(clients.get(registry)?.prefix as string),
        dispose: async (registry) => {
          await (registry as RedisWebhookRegistry).close();
          await clients.get(registry)?.client.destroy();
          clients.delete(registry);
        },
        remembersMessageIds: true,
        listsTestWebhooks: true,
        listsWaits: true,
        keepsWaits: { withMaxWaiting: (maxWaiting) => open(`spec-${process.pid}-${(next += 1)}:`, maxWaiting) },
        countsRateLimits: true,
        addsRateLimitCalls: true,
        keepsDigestKey: true,
        rateLimitClock: (registry, work) => work((ms) => shortenRateWindows(clients.get(registry)?.client as object, clients.get(registry)?.prefix as string, ms)),
      });
    });
  }
}
