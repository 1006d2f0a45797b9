/**
 * Key prefixes on Redis Cluster: every key of one queue (BullMQ's and ours) must share a hash slot, or its multi-key
 * scripts fail with CROSSSLOT. A prefix without a hash tag is used inside one (and the queue says so); a prefix with
 * one is used as given.
 */
import { expect } from 'chai';
import request from 'supertest';
import express from 'express';
import { createWebhookMiddleware, MemoryWebhookRegistry, type WebhookExecutor } from 'workflow-webhooks';
import { createWebhookQueue, createWebhookWorker, type WebhookQueue } from 'workflow-webhooks/queue';
import { resolveQueueOptions } from '../../lib/queue/options.js';
import { REDIS } from '../support/redis-server.js';
import { TOPOLOGIES, type AnyRedisClient, type RunningTopology } from '../support/redis/topologies.js';
import { findService, markNotRun } from '../support/services.js';

describe('queue mode: key prefixes', () => {
  it('takes a prefix with one hash tag anywhere in it, and refuses two tags, an empty tag or a colon, saying the rule', () => {
    for (const prefix of ['{bull}', 'app{tenant-1}', '{q}.jobs', 'bull']) {
      expect(resolveQueueOptions({ connection: 'redis://127.0.0.1:1', prefix }).prefix).to.equal(prefix);
    }
    for (const prefix of ['{a}{b}', '{}', 'bull:x', 'bu{ll', '']) {
      expect(() => resolveQueueOptions({ connection: 'redis://127.0.0.1:1', prefix }), prefix)
        .to.throw(TypeError, 'workflow-webhooks/queue: option prefix takes letters, digits, _, . and -, with at most one hash tag in braces ({bull}).');
    }
  });

  const cluster = TOPOLOGIES.find((starter) => starter.name === 'Redis Cluster');
  if (findService(REDIS) === undefined || cluster === undefined) {
    markNotRun('queue mode: key prefixes on Redis Cluster', REDIS);
    return;
  }

  describe('on Redis Cluster', function () {
    this.timeout(30_000);
    let topology: RunningTopology;
    const clients: AnyRedisClient[] = [];
    const closers: (() => Promise<unknown>)[] = [];
    before(async () => { topology = await cluster.start() as RunningTopology; });
    afterEach(async () => { for (const close of closers.splice(0).reverse()) await close(); });
    after(async () => {
      for (const client of clients) await client.destroy();
      await topology?.stop();
    });

    function recorded(): { warnings: string[]; logger: { warn(fields: object, message?: string): void; error(): void } } {
      const warnings: string[] = [];
      return { warnings, logger: { warn: (_fields, message) => { warnings.push(message ?? ''); }, error: () => undefined } };
    }

    /**
     * Two calls with one Idempotency-Key to a workflow that caps its waiting runs: the admission script touches the
     * job, the workflow's run sets and the key's claim at once, and the worker's lease script two keys more.
     */
    async function idempotentCalls(queue: WebhookQueue, prefix: string | undefined, name: string): Promise<Array<[number, unknown]>> {
      const client = topology.make();
      clients.push(client);
      let runs = 0;
      const worker = createWebhookWorker({ connection: client as never, name, prefix, logger: recorded().logger, executor: () => ({ items: [{ json: { run: (runs += 1) } }] }) });
      closers.push(() => worker.close({ timeoutMs: 200 }));
      const registry = new MemoryWebhookRegistry();
      await registry.activate({ workflowId: 'slots', nodes: [{ name: 'Webhook', parameters: { path: 'in', httpMethod: 'POST', responseMode: 'lastNode' } }], settings: { idempotencyHeader: true, maxQueued: 10, concurrency: 2 } });
      const middleware = createWebhookMiddleware(registry, queue.executor as WebhookExecutor, { logger: recorded().logger });
      closers.push(() => middleware.close({ timeoutMs: 200 }));
      const app = express().use('/hooks', middleware);
      const answers: Array<[number, unknown]> = [];
      for (let call = 0; call < 2; call += 1) {
        const res = await request(app).post('/hooks/webhook/in').set('idempotency-key', 'once').send({ n: 1 });
        answers.push([res.status, res.body]);
      }
      return answers;
    }

    function queueWith(prefix: string | undefined, name: string, logger: ReturnType<typeof recorded>['logger']): WebhookQueue {
      const client = topology.make();
      clients.push(client);
      const queue = createWebhookQueue({ connection: client as never, name, prefix, logger });
      closers.push(() => queue.close());
      return queue;
    }

    it('uses a prefix without a hash tag inside one, says so once, and runs the multi-key scripts without CROSSSLOT', async () => {
      const { warnings, logger } = recorded();
      const queue = queueWith('plain', 'untagged', logger);
      expect(queue.prefix).to.equal('{plain}');
      expect(await idempotentCalls(queue, 'plain', 'untagged')).to.deep.equal([[200, { run: 1 }], [200, { run: 1 }]]);
      expect(warnings).to.deep.equal(['createWebhookQueue: on Redis Cluster every key of a queue must share one hash slot, so the prefix "plain" is used as "{plain}"; ' +
        'give prefix: \'{plain}\' to the queue, its workers and your dashboard to say so yourself']);
    });

    it('uses BullMQ\'s default prefix as {bull}', async () => {
      const queue = queueWith(undefined, 'default-prefix', recorded().logger);
      expect(queue.prefix).to.equal('{bull}');
      expect(await idempotentCalls(queue, undefined, 'default-prefix')).to.deep.equal([[200, { run: 1 }], [200, { run: 1 }]]);
    });

    for (const prefix of ['{bull}', 'app{tenant-1}']) {
      it(`uses ${prefix} as given, without a word`, async () => {
        const { warnings, logger } = recorded();
        const queue = queueWith(prefix, 'tagged', logger);
        expect(queue.prefix).to.equal(prefix);
        expect(await idempotentCalls(queue, prefix, 'tagged')).to.deep.equal([[200, { run: 1 }], [200, { run: 1 }]]);
        expect(warnings).to.deep.equal([]);
      });
    }
  });
});
