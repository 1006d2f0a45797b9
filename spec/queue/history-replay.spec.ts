/**
 * Recovering after a fix in queue mode: a web instance (Express 5 over real HTTP) hands each order to the queue, a
 * worker runs it, and history is kept on the queue's own backend (RedisHistoryStore on Redis, PostgresHistoryStore
 * on PostgreSQL). 1 000 orders of which 200 fail, then a bulk replay of the failed calls once the worker's workflow
 * is fixed, each replay a job (spec/support/history/recovery.ts); and a bulk replay stopped mid-way.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import express from 'express';
import { createWebhookMiddleware, MemoryWebhookRegistry, type HistoryStore, type WebhookExecutor, type WebhookHistory, type WorkflowWebhooks } from 'workflow-webhooks';
import { PostgresHistoryStore } from 'workflow-webhooks/postgres';
import { RedisHistoryStore } from 'workflow-webhooks/redis';
import { closeAll } from '../support/close-all.js';
import { ORDER_WORKFLOW, ORDERS_PATH, orderWorkflow, type OrderWorkflow } from '../support/history/orders.js';
import { expectOrdersSent, expectRecoveredAfterFix, expectStoppedMidway } from '../support/history/recovery.js';
import { BASE, type QueueSetup } from '../support/queue/setup.js';
import { QUEUE_STORES, queueStores } from '../support/queue/stores.js';
import { listen } from '../support/raw-http.js';

const SILENT = { error: (): void => undefined, warn: (): void => undefined };

/** One redis-server and PostgreSQL: the history store lives beside the queue, whatever the topology. */
const STORES = QUEUE_STORES.filter((store) => store.name === 'one redis-server' || store.name === 'PostgreSQL');

let schemas = 0;

for (const store of queueStores('queue mode: recovering after a fix from history', STORES)) {
  describe(`queue mode: recovering after a fix from history, on ${store.name}`, function () {
    this.timeout(60_000);
    const setup = store.setup();
    const closers: Array<() => unknown> = [];
    // After the queue's own afterEach (its workers and queues): the server, the middleware, then the history store.
    afterEach(async () => { await closeAll(...closers.splice(0).reverse()); });

    /** History on the queue's backend, with a namespace of the test's own. */
    function historyStore(): HistoryStore {
      const { onRedis, onPostgres } = setup;
      if (onPostgres !== undefined) {
        return new PostgresHistoryStore({ connectionString: onPostgres.server.url, schema: `replay_${process.pid}_${(schemas += 1)}` });
      }
      return new RedisHistoryStore({ client: (onRedis as QueueSetup).redis, prefix: `replay-${randomUUID().slice(0, 8)}:` });
    }

    /** The web instance in front of the queue, and one worker that runs the order workflow. */
    async function start(activated: WorkflowWebhooks = ORDER_WORKFLOW): Promise<{ history: WebhookHistory; workflow: OrderWorkflow; url: string }> {
      const kept = historyStore();
      closers.push(() => kept.close?.());
      // One attempt: a failed order is answered 500 at once, as in process.
      const queue = setup.queue({ attempts: 1 });
      const workflow = orderWorkflow();
      setup.worker(workflow.executor, { concurrency: 16 });
      const registry = new MemoryWebhookRegistry();
      await registry.activate(activated);
      const middleware = createWebhookMiddleware(registry, queue.executor as WebhookExecutor, {
        logger: SILENT,
        onWorkflowError: () => undefined,
        history: { store: kept, bodyBytes: 4096, flushMs: 20 },
      });
      closers.push(() => middleware.close({ timeoutMs: 1000 }));
      const app = express();
      app.use(BASE, middleware);
      const server = await listen(app);
      closers.push(() => server.close());
      return { history: middleware.history as WebhookHistory, workflow, url: `http://127.0.0.1:${server.port}${BASE}${ORDERS_PATH}` };
    }

    it('replays each of the 200 calls that failed exactly once, as jobs the worker runs, when they are bulk replayed after the fix', async () => {
      const { history, workflow, url } = await start();
      const sent = await expectOrdersSent(history, url);
      await expectRecoveredAfterFix(history, workflow, sent, { queued: true });
    });

    it('replays calls of a workflow with an idempotency header each as a job of its own, though their kept keys all read [redacted]', async () => {
      const { history, workflow, url } = await start({ ...ORDER_WORKFLOW, settings: { idempotencyHeader: true } });
      const orders = [0, 5, 10, 15, 20];
      for (const n of orders) {
        const answer = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': `delivery-${n}` }, body: JSON.stringify({ n }) });
        expect(answer.status).to.equal(500);
      }
      await history.flush();
      const failed = (await history.find({ statusClass: 5 })).entries;
      expect(failed.map((entry) => entry.data.headers['idempotency-key'])).to.deep.equal(orders.map(() => '[redacted]'));
      workflow.fixed = true;
      const done = await history.replayAll({ statusClass: 5 }, { by: 'ops', perSecond: 1000 }).done;
      expect(done).to.deep.include({ matched: 5, replayed: 5, failed: 0 });
      expect(workflow.runsAfterFix.map((run) => run.n).sort((a, b) => a - b)).to.deep.equal(orders);
    });

    it('hands no more replays to the queue once a bulk replay is stopped, and the worker ran exactly the calls it counted', async () => {
      const { history, workflow, url } = await start();
      const sent = await expectOrdersSent(history, url);
      await expectStoppedMidway(history, workflow, sent);
    });
  });
}
