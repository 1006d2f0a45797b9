/**
 * Queue mode on Redis Cluster when the slot that holds a queue moves to another master (a resharding): the web
 * instance and the worker, BullMQ's blocked BZPOPMIN among them, follow MOVED to the new master without a restart,
 * because every command goes through the node-redis cluster client. While the slot is half moved, a call is refused
 * 503 with that reason.
 */
import { expect } from 'chai';
import request from 'supertest';
import express from 'express';
import { createCluster } from 'redis';
import { createWebhookMiddleware, MemoryWebhookRegistry, type WebhookExecutor } from 'workflow-webhooks';
import { createWebhookQueue, createWebhookWorker } from 'workflow-webhooks/queue';
import { REDIS } from '../../support/redis-server.js';
import { RedisClusterGroup } from '../../support/redis-topologies.js';
import { findService, markNotRun } from '../../support/services.js';

const SILENT = { error: (): void => undefined, warn: (): void => undefined };

if (findService(REDIS) === undefined) {
  markNotRun('queue mode on Redis Cluster when the queue\'s slot moves', REDIS);
} else {
  describe('queue mode on Redis Cluster when the queue\'s slot moves to another master', function () {
    this.timeout(60_000);
    let group: RedisClusterGroup;
    before(async () => { group = await RedisClusterGroup.start(findService(REDIS) as string); });
    after(async () => { await group?.stop(); });

    function clusterClient() {
      const made = createCluster({ rootNodes: group.rootNodes });
      made.on('error', () => undefined);
      return made;
    }

    /** The master that holds `slot`, another one to move it to, and every node's id by port. */
    async function ends(slot: number): Promise<{ from: number; to: number; ids: Map<number, string> }> {
      const ids = new Map<number, string>();
      for (const node of group.nodes) ids.set(node.port, (await group.cli(node.port, 'CLUSTER', 'MYID')).trim());
      let from = 0;
      for (const node of group.nodes) {
        const myself = (await group.cli(node.port, 'CLUSTER', 'NODES')).split('\n').find((entry) => entry.includes('myself')) ?? '';
        if (ownsSlot(myself, slot)) from = node.port;
      }
      const to = (group.nodes.find((node) => node.port !== from) as { port: number }).port;
      return { from, to, ids };
    }

    /** Moves `slot` with its keys to another master, as `redis-cli --cluster reshard` does; resolves the new owner's port. */
    async function moveSlot(slot: number): Promise<number> {
      const { from, to, ids } = await ends(slot);
      await group.cli(to, 'CLUSTER', 'SETSLOT', String(slot), 'IMPORTING', ids.get(from) as string);
      await group.cli(from, 'CLUSTER', 'SETSLOT', String(slot), 'MIGRATING', ids.get(to) as string);
      for (;;) {
        const keys = (await group.cli(from, 'CLUSTER', 'GETKEYSINSLOT', String(slot), '100')).split('\n').filter((key) => key !== '');
        if (keys.length === 0) break;
        await group.cli(from, 'MIGRATE', '127.0.0.1', String(to), '', '0', '5000', 'KEYS', ...keys);
      }
      for (const node of group.nodes) await group.cli(node.port, 'CLUSTER', 'SETSLOT', String(slot), 'NODE', ids.get(to) as string);
      return to;
    }

    function ownsSlot(line: string, slot: number): boolean {
      return line.split(' ').slice(8).some((range) => {
        const [low, high] = range.split('-').map(Number) as [number, number | undefined];
        return slot >= low && slot <= (high ?? low);
      });
    }

    it('refuses a call 503 while the queue\'s slot is half moved, saying the slot is moving (not that a wait ran out), and takes calls once it is settled', async () => {
      const queue = createWebhookQueue({ connection: clusterClient() as never, name: 'halfway', prefix: '{halfway}', logger: SILENT });
      const registry = new MemoryWebhookRegistry();
      await registry.activate({ workflowId: 'halfway', nodes: [{ name: 'Webhook', parameters: { path: 'in', httpMethod: 'POST' } }] });
      const middleware = createWebhookMiddleware(registry, queue.executor as WebhookExecutor, { logger: SILENT });
      const app = express().use('/hooks', middleware);
      const slot = Number((await group.cli(group.nodes[0]!.port, 'CLUSTER', 'KEYSLOT', '{halfway}')).trim());
      const { from, to, ids } = await ends(slot);
      try {
        await request(app).post('/hooks/webhook/in').send({ n: 1 }).expect(200);
        // A resharding's first step: from here until the slot is settled, Redis answers TRYAGAIN to a script whose
        // keys are not all on the old master (BullMQ's scripts declare keys that do not exist yet).
        await group.cli(to, 'CLUSTER', 'SETSLOT', String(slot), 'IMPORTING', ids.get(from) as string);
        await group.cli(from, 'CLUSTER', 'SETSLOT', String(slot), 'MIGRATING', ids.get(to) as string);
        const refused = await request(app).post('/hooks/webhook/in').send({ n: 2 });
        expect([refused.status, refused.body.code, refused.headers['retry-after']]).to.deep.equal([503, 'QUEUE_UNAVAILABLE', '5']);
        expect(refused.body.message).to.equal('The run could not be stored: its Redis Cluster slot is being moved to another node, and Redis refuses such writes ' +
          'until the move ends. It will not run.');
        for (const port of [from, to]) await group.cli(port, 'CLUSTER', 'SETSLOT', String(slot), 'STABLE');
        await request(app).post('/hooks/webhook/in').send({ n: 3 }).expect(200);
      } finally {
        for (const port of [from, to]) await group.cli(port, 'CLUSTER', 'SETSLOT', String(slot), 'STABLE');
        await middleware.close({ timeoutMs: 200 });
        await queue.close();
      }
    });

    it('answers calls from the worker again once the slot moved, without restarting either', async () => {
      const client = clusterClient;
      const queue = createWebhookQueue({ connection: client() as never, name: 'moving', prefix: '{moving}', logger: SILENT });
      let runs = 0;
      const worker = createWebhookWorker({ connection: client() as never, name: 'moving', prefix: '{moving}', logger: SILENT, executor: () => ({ items: [{ json: { run: (runs += 1) } }] }) });
      const registry = new MemoryWebhookRegistry();
      await registry.activate({ workflowId: 'moving', nodes: [{ name: 'Webhook', parameters: { path: 'in', httpMethod: 'POST', responseMode: 'lastNode' } }], settings: { idempotencyHeader: true } });
      const middleware = createWebhookMiddleware(registry, queue.executor as WebhookExecutor, { logger: SILENT });
      const app = express().use('/hooks', middleware);
      try {
        expect((await request(app).post('/hooks/webhook/in').set('idempotency-key', 'before').send({})).body).to.deep.equal({ run: 1 });
        const slot = Number((await group.cli(group.nodes[0]!.port, 'CLUSTER', 'KEYSLOT', '{moving}')).trim());
        const to = await moveSlot(slot);
        // The queue's keys are on the new master now.
        expect(Number((await group.cli(to, 'CLUSTER', 'COUNTKEYSINSLOT', String(slot))).trim())).to.be.above(0);
        // The worker was waiting in BZPOPMIN on the old master; the queue's next commands meet MOVED there.
        const after = await request(app).post('/hooks/webhook/in').set('idempotency-key', 'after').timeout(20_000).send({});
        expect([after.status, after.body]).to.deep.equal([200, { run: 2 }]);
      } finally {
        await middleware.close({ timeoutMs: 200 });
        await worker.close({ timeoutMs: 500 });
        await queue.close();
      }
    });
  });
}
