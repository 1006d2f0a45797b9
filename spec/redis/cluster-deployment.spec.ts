import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import request from 'supertest';
import { createCluster } from 'redis';
import { createWebhookMiddleware, type WebhookExecutor, type WorkflowWebhooks } from 'workflow-webhooks';
import { RedisWebhookRegistry } from 'workflow-webhooks/redis';
import { createWebhookQueue, createWebhookWorker, type QueuedWebhookRun, type WebhookQueue, type WebhookWorker } from 'workflow-webhooks/queue';
import { REDIS } from '../support/redis-server.js';
import { RedisClusterGroup } from '../support/redis-topologies.js';
import { findService, markNotRun } from '../support/services.js';
import { pathOf, SECRET } from '../support/waiting/app.js';
import { closeAll, eachOf } from '../support/close-all.js';

const SILENT = { error: (): void => undefined, warn: (): void => undefined };
const PUBLIC = 'https://api.example.com';

interface Instance { registry: RedisWebhookRegistry; queue: WebhookQueue; server: Server; close(): Promise<void> }

const orders = (workflowId: string, path: string, responseMode: 'onReceived' | 'lastNode' = 'lastNode'): WorkflowWebhooks =>
  ({ workflowId, nodes: [{ name: 'Webhook', parameters: { path, httpMethod: 'POST', responseMode } }] });

/**
 * A deployment on a 3-master Redis Cluster, as production runs one: three web instances (each its own cluster
 * client, Redis registry and queue executor) and two workers, on prefixes without hash tags, which the library tags.
 */
if (findService(REDIS) === undefined) {
  markNotRun('three instances and two workers on a Redis Cluster', REDIS);
} else {
  describe('three web instances and two workers on a 3-master Redis Cluster', function () {
    this.timeout(60_000);
    let group: RedisClusterGroup;
    let instances: Instance[] = [];
    let workers: WebhookWorker[] = [];
    const ran: string[] = [];
    const closers: (() => Promise<unknown>)[] = [];

    async function clusterClient() {
      const client = createCluster({ rootNodes: group.rootNodes });
      client.on('error', () => undefined);
      await client.connect();
      closers.push(async () => client.destroy());
      return client;
    }

    const executor = (worker: string): WebhookExecutor => async (run) => {
      const queued = run as QueuedWebhookRun;
      ran.push(worker);
      if (queued.resume !== undefined) return { items: [{ json: { worker, state: queued.resume.state, decision: queued.items[0]?.json.body } }] };
      if ((queued.items[0]?.json.body as { wait?: boolean } | undefined)?.wait === true) {
        const suspended = await queued.suspend({ state: { order: 7 }, responseMode: 'lastNode' });
        return { items: [{ json: { resumeUrl: suspended.resumeUrl } }] };
      }
      return { items: [{ json: { worker, body: queued.items[0]?.json.body } }] };
    };

    before(async () => {
      group = await RedisClusterGroup.start(findService(REDIS) as string);
      const prefix = `deployment-${process.pid}:`;
      const registryOf = async () => {
        const registry = new RedisWebhookRegistry({ client: await clusterClient(), prefix, onEvent: () => undefined });
        // Closed before the clients: its change-log reader would otherwise keep reconnecting, and mocha running.
        closers.push(() => registry.close());
        await registry.ready();
        return registry;
      };
      instances = await Promise.all([0, 1, 2].map(async () => {
        const registry = await registryOf();
        const queue = createWebhookQueue({ connection: await clusterClient(), name: 'deployment', prefix: 'bull', logger: SILENT });
        await queue.ready();
        const middleware = createWebhookMiddleware(registry, queue.executor, { logger: SILENT, waitingSecret: SECRET, publicUrl: PUBLIC });
        const server = createServer((req, res) => middleware(req, res, () => { res.statusCode = 404; res.end(); }));
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        return {
          registry, queue, server,
          close: async () => {
            await middleware.close({ timeoutMs: 500 });
            server.closeAllConnections();
            await new Promise((resolve) => server.close(resolve));
            await queue.close();
            await registry.close();
          },
        };
      }));
      workers = await Promise.all(['w1', 'w2'].map(async (name) => {
        const worker = createWebhookWorker({
          connection: await clusterClient(), name: 'deployment', prefix: 'bull', logger: SILENT, executor: executor(name),
          waiting: { registry: await registryOf(), waitingSecret: SECRET, publicUrl: PUBLIC },
        });
        await worker.ready();
        return worker;
      }));
    });
    after(() => closeAll(
      ...eachOf(workers, (worker) => worker.close({ timeoutMs: 1000 })),
      ...eachOf(instances, (instance) => instance.close()),
      ...eachOf(closers.splice(0).reverse(), (close) => close().catch(() => undefined)),
      () => group?.stop(),
    ));
    beforeEach(() => { ran.length = 0; });

    const call = (instance: number, path: string, body: object) => request(instances[instance]!.server).post(`/webhook/${path}`).send(body);

    it('serves a workflow activated on one instance from every instance, each call run by a worker', async () => {
      await instances[0]!.registry.activate(orders('orders', 'orders'));
      for (const index of [0, 1, 2]) {
        await expectEventually(async () => (await instances[index]!.registry.lookup('production', 'POST', 'orders')).found);
        const answer = await call(index, 'orders', { n: index }).expect(200);
        expect(answer.body.body).to.deep.equal({ n: index });
        expect(['w1', 'w2']).to.include(answer.body.worker);
      }
      expect(ran).to.have.length(3);
    });

    it('lets exactly one of thirty racing activations of one address from three instances win', async () => {
      const outcomes = await Promise.allSettled(Array.from({ length: 30 }, (_, n) => instances[n % 3]!.registry.activate(orders(`racer-${n}`, 'race'))));
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).to.have.length(1);
      for (const outcome of outcomes) if (outcome.status === 'rejected') expect((outcome.reason as { code?: string }).code).to.equal('WEBHOOK_CONFLICT');
    });

    it('captures on the instance that listens a test call sent to another instance', async () => {
      const handle = await instances[0]!.registry.listenForTest(orders('listened', 'listened'));
      await expectEventually(async () => (await instances[2]!.registry.lookup('test', 'POST', 'listened')).found);
      await request(instances[2]!.server).post('/webhook-test/listened').send({ from: 'c' }).expect(200);
      const result = await handle.result;
      expect(result.status).to.equal('received');
      if (result.status === 'received') expect(result.run.items[0]?.json.body).to.deep.equal({ from: 'c' });
    });

    it('resumes on instance C, through a worker, a run that suspended after a call to instance A', async () => {
      await instances[0]!.registry.activate(orders('approval', 'approval'));
      await expectEventually(async () => (await instances[2]!.registry.lookup('production', 'POST', 'approval')).found);
      const started = await call(0, 'approval', { wait: true }).expect(200);
      const resumed = await request(instances[2]!.server).post(pathOf(started.body.resumeUrl as string)).send({ approved: true }).expect(200);
      expect(resumed.body).to.deep.include({ state: { order: 7 }, decision: { approved: true } });
    });
  });
}

async function expectEventually(probe: () => Promise<boolean>, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!await probe()) {
    if (Date.now() > until) throw new Error(`not true within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
