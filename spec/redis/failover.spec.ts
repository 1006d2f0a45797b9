import { expect } from 'chai';
import { createCluster, createSentinel } from 'redis';
import { RedisWebhookRegistry, type RedisRegistryEvent } from 'workflow-webhooks/redis';
import { eventually } from '../support/registry-contract/instances.js';
import { workflowOf } from '../support/registry-contract/fixture.js';
import { REDIS } from '../support/redis-server.js';
import { RedisClusterGroup, RedisSentinelGroup } from '../support/redis-topologies.js';
import { findService, markNotRun } from '../support/services.js';
import { closeAll } from '../support/close-all.js';

type Closable = { destroy(): unknown };

const found = async (registry: RedisWebhookRegistry, path: string): Promise<boolean> => (await registry.lookup('production', 'GET', path)).found;

/** Activates until one attempt succeeds (changes are refused while no primary answers); how many were refused. */
async function activateOnceServed(registry: RedisWebhookRegistry, path: string, untilMs: number): Promise<number> {
  let refused = 0;
  for (;;) {
    try {
      await registry.activate(workflowOf(path, { path, httpMethod: 'GET' }));
      return refused;
    } catch (error) {
      if ((error as { code?: string }).code !== 'REGISTRY_UNAVAILABLE' || Date.now() > untilMs) throw error;
      refused += 1;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

if (findService(REDIS) === undefined) {
  markNotRun('the Redis registry follows a Sentinel failover and a cluster\'s slot move', REDIS);
} else {
  describe('the Redis registry when the topology changes under it', function () {
    this.timeout(60_000);
    const opened: { registry: RedisWebhookRegistry; client: Closable }[] = [];
    afterEach(() => closeAll(...opened.splice(0).flatMap(({ registry, client }) => [() => registry.close(), () => client.destroy()])));

    describe('behind Sentinel', () => {
      let group: RedisSentinelGroup;
      before(async () => { group = await RedisSentinelGroup.start(findService(REDIS) as string, { replicas: 1 }); });
      after(async () => { await group?.stop(); });

      async function open(): Promise<{ registry: RedisWebhookRegistry; events: RedisRegistryEvent[] }> {
        const client = createSentinel({ name: group.name, sentinelRootNodes: group.sentinelRootNodes });
        client.on('error', () => undefined);
        await client.connect();
        const events: RedisRegistryEvent[] = [];
        // 2 s: a first connection found through the sentinels took over 500 ms on a loaded machine, failing ready().
        const registry = new RedisWebhookRegistry({ client, prefix: 'failover:', commandTimeoutMs: 2000, onEvent: (event) => events.push(event) });
        await registry.ready();
        opened.push({ registry, client });
        return { registry, events };
      }

      it('serves its routes from memory while the primary is down, and takes changes again from the promoted replica, seen by every instance, without a restart', async () => {
        const [one, two] = [await open(), await open()];
        await one.registry.activate(workflowOf('before', { path: 'before', httpMethod: 'GET' }));
        await eventually(() => found(two.registry, 'before'), 5000);
        // The activation must be on the replica before the primary goes, or the failover may lose it (replicas: 0).
        await eventually(async () => (await group.cli(group.servers[1]!.port, 'HLEN', 'failover:routes')).trim() === '1', 5000);

        // The sentinels are stopped (SIGSTOP) before the primary is killed, so that nothing can be promoted while the
        // routes are looked up: those lookups are served with no primary at all. They go on at once after (a sentinel
        // that misses its own timer for 2 s would wait 30 s in TILT mode before failing over).
        const was = await group.primaryPort();
        for (const sentinel of group.sentinels) sentinel.pause();
        let whileDown: boolean[];
        try {
          await group.servers.find((server) => server.port === was)?.kill();
          whileDown = [await found(one.registry, 'before'), await found(two.registry, 'before')];
        } finally {
          for (const sentinel of group.sentinels) sentinel.resume();
        }
        expect(whileDown, 'served while the primary was down').to.deep.equal([true, true]);
        for (const by = Date.now() + 30_000; await group.primaryPort() === was;) {
          if (Date.now() > by) throw new Error('Sentinel promoted no replica within 30 s');
          await new Promise((resolve) => setTimeout(resolve, 100));
        }

        await activateOnceServed(one.registry, 'after', Date.now() + 15_000);
        await eventually(() => found(two.registry, 'after'), 5000);
        expect(await found(two.registry, 'before')).to.equal(true);
        expect((await two.registry.list()).map((hook) => hook.path).sort()).to.deep.equal(['after', 'before']);
        expect(one.events.filter((event) => event.type === 'storeReset')).to.deep.equal([]);
      });
    });

    describe('on a Redis Cluster', () => {
      let group: RedisClusterGroup;
      before(async () => { group = await RedisClusterGroup.start(findService(REDIS) as string); });
      after(async () => { await group?.stop(); });

      it('follows its hash slot to another master (MOVED) and keeps every route and change', async () => {
        const clients = await Promise.all([0, 1].map(async () => {
          const client = createCluster({ rootNodes: group.rootNodes });
          client.on('error', () => undefined);
          await client.connect();
          return client;
        }));
        const [one, two] = await Promise.all(clients.map(async (client) => {
          const registry = new RedisWebhookRegistry({ client, prefix: '{moving}:', commandTimeoutMs: 500, onEvent: () => undefined });
          await registry.ready();
          opened.push({ registry, client });
          return registry;
        })) as [RedisWebhookRegistry, RedisWebhookRegistry];
        await one.activate(workflowOf('before', { path: 'before', httpMethod: 'GET' }));
        await eventually(() => found(two, 'before'), 5000);

        const slot = (await group.cli(group.nodes[0]!.port, 'CLUSTER', 'KEYSLOT', '{moving}:routes')).trim();
        const owner = await group.ownerOf(Number(slot));
        const target = group.nodes.find((node) => node.port !== owner)!;
        await group.moveSlot(Number(slot), owner, target.port);
        expect(await group.ownerOf(Number(slot))).to.equal(target.port);

        await one.activate(workflowOf('after', { path: 'after', httpMethod: 'GET' }));
        await eventually(() => found(two, 'after'), 5000);
        expect((await two.list()).map((hook) => hook.path).sort()).to.deep.equal(['after', 'before']);
        expect((await group.cli(target.port, 'HLEN', '{moving}:routes')).trim()).to.equal('2');
      });
    });
  });
}
