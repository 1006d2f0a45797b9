/**
 * A call refused 503 while the queue's store did not answer (Redis paused, PostgreSQL's job table locked), retried by
 * its sender with the same idempotency key once the store is back: the retry is answered 200 and the workflow runs
 * exactly once, whether a worker took the late job meanwhile or the web instance took it back. On every queue store.
 */
import { expect } from 'chai';
import request from 'supertest';
import { MemoryWebhookRegistry } from 'workflow-webhooks';
import { BASE, eventually, type QueueSetup } from '../../support/queue/setup.js';
import { queueStores, whileStoreStalled } from '../../support/queue/stores.js';
import { jobIdOf } from '../../../lib/queue/idempotency.js';
import { queueDrained } from '../../support/queue-drained.js';
import type { WebhookRun } from 'workflow-webhooks';
import type { WebhookWorkerEvent } from 'workflow-webhooks/queue';

for (const store of queueStores('queue mode: a refused call retried with its idempotency key')) {
  describe(`queue mode: a refused call retried with its idempotency key, on ${store.name}`, function () {
    this.timeout(30_000);
    const setup = store.setup();
    const { onRedis, onPostgres } = setup;

    /** The mark a web instance leaves in the store when it refuses a call whose job may still be stored. */
    async function markRefused(storeId: string): Promise<void> {
      if (onPostgres !== undefined) {
        await onPostgres.query('INSERT INTO workflow_webhooks.queue_refused (scope, store_id, expires_at, refused) VALUES ($1, $2, $3, true)',
          [`bullmq:${setup.name}`, storeId, Date.now() + 60_000]);
        return;
      }
      const redis = onRedis as QueueSetup;
      await redis.send(['SET', `${redis.prefix}:${setup.name}:wh:refused:${storeId}`, '1']);
    }

    const stalled = <T>(during: () => Promise<T>): Promise<T> => whileStoreStalled(setup, during);

    it('does not take a refused job that is still stored for the retry: the retry runs, with its own body', async () => {
      const registry = new MemoryWebhookRegistry();
      await registry.activate({ workflowId: 'wf', nodes: [{ name: 'Webhook', parameters: { path: 'pay', httpMethod: 'POST' } }], settings: { idempotencyHeader: true } });
      const queue = setup.queue();
      const app = setup.app(registry, queue);
      await queue.ready();
      // What a store that did not answer leaves behind: the refused call's job, stored late, and the refusal's mark beside it.
      const jobId = jobIdOf({
        workflowId: 'wf', nodeName: 'Webhook', mode: 'production', method: 'POST', items: [{ json: { params: {}, query: {} } }],
      } as unknown as WebhookRun, 'header:payment-2', undefined);
      await queue.bullQueue.add('wf', {
        version: 1, storeId: 'refused-store', storedAt: Date.now() - 5000, answerBy: Date.now() - 3000, item: { json: { body: { id: 'the refused call' } } },
      } as never, { jobId });
      await markRefused('refused-store');
      const runs: string[] = [];
      setup.worker(async (run) => { runs.push(String((run.items[0]?.json.body as { id: string }).id)); return { items: [] }; });
      // A worker that holds the refused job while the retry takes it back makes the retry a 503 (the job is the
      // worker's until it skips it): the sender tries again, as it does after any 503.
      const statuses: number[] = [];
      await eventually(async () => {
        const retry = await request(app).post(`${BASE}/webhook/pay`).set('idempotency-key', 'payment-2').send({ id: 'payment-2' });
        statuses.push(retry.status);
        return retry.status === 200;
      }, 10_000);
      expect(statuses.filter((status) => status !== 503 && status !== 200)).to.deep.equal([]);
      await eventually(() => runs.length > 0, 10_000);
      await queueDrained(queue);
      expect(runs).to.deep.equal(['payment-2']);
    });

    it('does not run a job stored after its caller was refused: the worker reads the refusal\'s mark and skips it', async () => {
      const queue = setup.queue();
      await queue.ready();
      // A job the store took after its web instance's answer deadline, and the mark that instance left when it refused.
      const job = await queue.bullQueue.add('wf', {
        version: 1, callId: 'late-call', workflowId: 'wf', nodeName: 'Webhook', mode: 'production', method: 'POST', outputIndex: 0,
        responseMode: 'onReceived', storedAt: Date.now() - 5000, storeId: 'late-store', answerBy: Date.now() - 3000, item: { json: { body: {} } },
      } as never);
      await markRefused('late-store');
      const runs: string[] = [];
      const skipped: string[] = [];
      setup.worker(async (run) => { runs.push(run.callId); return { items: [] }; }, {
        onEvent: (event: WebhookWorkerEvent) => { if (event.type === 'skipped') skipped.push(`${event.jobId} ${event.reason}`); },
      });
      await eventually(() => skipped.length === 1, 10_000);
      expect(skipped).to.deep.equal([`${job.id as string} refused`]);
      expect(runs).to.deep.equal([]);
    });

    // A store that does not answer is what refuses the call here: one redis-server to pause, and PostgreSQL.
    if (store.name === 'one redis-server' || store.name === 'PostgreSQL') for (let round = 1; round <= 3; round += 1) {
      it(`runs it exactly once, answered 200 (round ${round})`, async () => {
        const runs: string[] = [];
        const registry = new MemoryWebhookRegistry();
        await registry.activate({ workflowId: 'wf', nodes: [{ name: 'Webhook', parameters: { path: 'pay', httpMethod: 'POST' } }], settings: { idempotencyHeader: true } });
        const queue = setup.queue({ enqueueTimeoutMs: 300 });
        setup.worker(async (run) => { runs.push(String((run.items[0]?.json.body as { id: string }).id)); return { items: [] }; });
        const app = setup.app(registry, queue);
        await queue.ready();
        await stalled(async () => {
          const refused = await request(app).post(`${BASE}/webhook/pay`).set('idempotency-key', 'payment-1').send({ id: 'payment-1' });
          expect([refused.status, refused.body.code]).to.deep.equal([503, 'QUEUE_UNAVAILABLE']);
          // The store stays away a while after the refusal: the job it takes late lands well after its deadline.
          await new Promise((resolve) => setTimeout(resolve, 1500));
        });
        // The sender retries the 503 until it is taken.
        await eventually(async () => (await request(app).post(`${BASE}/webhook/pay`).set('idempotency-key', 'payment-1').send({ id: 'payment-1' })).status === 200, 10_000);
        await eventually(() => runs.length === 1, 10_000);
        await queueDrained(queue);
        expect(runs).to.deep.equal(['payment-1']);
      });
    }
  });
}
