/**
 * Queue mode behind Sentinel when the primary dies: the sentinels promote the replica, and the web instance and the
 * worker (BullMQ's blocking connection among them) follow it without a restart — the node-redis Sentinel client
 * finds the new primary itself, because every command goes through it.
 */
import { expect } from 'chai';
import request from 'supertest';
import express from 'express';
import { createSentinel } from 'redis';
import { createWebhookMiddleware, MemoryWebhookRegistry, type WebhookExecutor } from 'workflow-webhooks';
import { createWebhookQueue, createWebhookWorker } from 'workflow-webhooks/queue';
import { REDIS } from '../../support/redis-server.js';
import { RedisSentinelGroup } from '../../support/redis-topologies.js';
import { findService, markNotRun } from '../../support/services.js';

const SILENT = { error: (): void => undefined, warn: (): void => undefined };

if (findService(REDIS) === undefined) {
  markNotRun('queue mode behind Sentinel when the primary dies', REDIS);
} else {
  describe('queue mode behind Sentinel when the primary dies', function () {
    this.timeout(90_000);
    let group: RedisSentinelGroup;
    before(async () => { group = await RedisSentinelGroup.start(findService(REDIS) as string, { replicas: 1 }); });
    after(async () => { await group?.stop(); });

    it('takes and answers calls again on the promoted replica, without restarting the web instance or the worker', async () => {
      const client = () => {
        const made = createSentinel({ name: group.name, sentinelRootNodes: group.sentinelRootNodes });
        made.on('error', () => undefined);
        return made;
      };
      const queue = createWebhookQueue({ connection: client() as never, name: 'failover', logger: SILENT, enqueueTimeoutMs: 1000 });
      let runs = 0;
      const worker = createWebhookWorker({ connection: client() as never, name: 'failover', logger: SILENT, executor: () => ({ items: [{ json: { run: (runs += 1) } }] }) });
      const registry = new MemoryWebhookRegistry();
      await registry.activate({ workflowId: 'failover', nodes: [{ name: 'Webhook', parameters: { path: 'in', httpMethod: 'POST', responseMode: 'lastNode' } }] });
      const middleware = createWebhookMiddleware(registry, queue.executor as WebhookExecutor, { logger: SILENT });
      const app = express().use('/hooks', middleware);
      try {
        // Connected before the first call: on a loaded machine finding the primary through the sentinels can take
        // longer than enqueueTimeoutMs, which is about refusing calls during the failover, not at start.
        await Promise.all([queue.ready(), worker.ready()]);
        const before = await request(app).post('/hooks/webhook/in').send({});
        expect([before.status, before.body]).to.deep.equal([200, { run: 1 }]);
        const { was, now } = await group.killPrimary();
        expect(now).not.to.equal(was);
        // A sender retries what is refused 503 while the clients find the new primary; each retry is a new call.
        const statuses: number[] = [];
        let after: request.Response | undefined;
        for (let tries = 0; after?.status !== 200; tries += 1) {
          if (tries > 0) await new Promise((resolve) => setTimeout(resolve, 250));
          if (tries > 200) throw new Error(`no call was taken after the failover: ${statuses.join(', ')}`);
          after = await request(app).post('/hooks/webhook/in').timeout(10_000).send({});
          statuses.push(after.status);
        }
        expect(statuses.slice(0, -1).filter((status) => status !== 503), 'refused 503 until then, never anything else').to.deep.equal([]);
        expect((after.body as { run: number }).run).to.be.above(1);
      } finally {
        await middleware.close({ timeoutMs: 200 });
        await worker.close({ timeoutMs: 500 });
        await queue.close();
      }
    });
  });
}
