/**
 * A call refused 503 while Redis was paused, retried by its sender with the same idempotency key once Redis is
 * back: the retry is answered 200 and the workflow runs exactly once, whether a worker took the late job meanwhile
 * or the web instance took it back.
 */
import { expect } from 'chai';
import request from 'supertest';
import { MemoryWebhookRegistry } from 'workflow-webhooks';
import { BASE, eventually, queueSetup } from '../../support/queue/setup.js';
import { REDIS } from '../../support/redis-server.js';
import { TOPOLOGIES, type RunningTopology } from '../../support/redis/topologies.js';
import { findService, markNotRun } from '../../support/services.js';
import { jobIdOf } from '../../../lib/queue/idempotency.js';
import { queueDrained } from '../../support/queue-drained.js';
import type { WebhookRun } from 'workflow-webhooks';
import type { WebhookWorkerEvent } from 'workflow-webhooks/queue';

if (findService(REDIS) === undefined) {
  markNotRun('queue mode: a refused call retried with its idempotency key', REDIS);
} else {
  for (const starter of TOPOLOGIES) describe(`queue mode: a refused call retried with its idempotency key, on ${starter.name}`, function () {
    this.timeout(30_000);
    let topology: RunningTopology;
    before(async () => { topology = await starter.start() as RunningTopology; });
    after(async () => { await topology.stop(); });
    const setup = queueSetup(() => topology);

    it('does not take a refused job that is still in Redis for the retry: the retry runs, with its own body', async () => {
      const registry = new MemoryWebhookRegistry();
      await registry.activate({ workflowId: 'wf', nodes: [{ name: 'Webhook', parameters: { path: 'pay', httpMethod: 'POST' } }], settings: { idempotencyHeader: true } });
      const queue = setup.queue();
      const app = setup.app(registry, queue);
      await queue.ready();
      // What a paused Redis leaves behind: the refused call's job, stored late, and the refusal's mark beside it.
      const jobId = jobIdOf({
        workflowId: 'wf', nodeName: 'Webhook', mode: 'production', method: 'POST', items: [{ json: { params: {}, query: {} } }],
      } as unknown as WebhookRun, 'header:payment-2', undefined);
      await queue.bullQueue.add('wf', { version: 1, storeId: 'refused-store', item: { json: { body: { id: 'the refused call' } } } } as never, { jobId });
      await setup.send(['SET', `${setup.prefix}:${setup.name}:wh:refused:refused-store`, '1']);
      const runs: string[] = [];
      setup.worker(async (run) => { runs.push(String((run.items[0]?.json.body as { id: string }).id)); return { items: [] }; });
      const retry = await request(app).post(`${BASE}/webhook/pay`).set('idempotency-key', 'payment-2').send({ id: 'payment-2' });
      expect(retry.status).to.equal(200);
      await eventually(() => runs.length > 0, 10_000);
      await queueDrained(queue);
      expect(runs).to.deep.equal(['payment-2']);
    });

    it('does not run a job stored after its caller was refused: the worker reads the refusal\'s mark and skips it', async () => {
      const queue = setup.queue();
      await queue.ready();
      // A job Redis took after its web instance's answer deadline, and the mark that instance left when it refused.
      const job = await queue.bullQueue.add('wf', {
        version: 1, callId: 'late-call', workflowId: 'wf', nodeName: 'Webhook', mode: 'production', method: 'POST', outputIndex: 0,
        responseMode: 'onReceived', storedAt: Date.now() - 5000, storeId: 'late-store', answerBy: Date.now() - 3000, item: { json: { body: {} } },
      } as never);
      await setup.send(['SET', `${setup.prefix}:${setup.name}:wh:refused:late-store`, '1']);
      const runs: string[] = [];
      const skipped: string[] = [];
      setup.worker(async (run) => { runs.push(run.callId); return { items: [] }; }, {
        onEvent: (event: WebhookWorkerEvent) => { if (event.type === 'skipped') skipped.push(`${event.jobId} ${event.reason}`); },
      });
      await eventually(() => skipped.length === 1, 10_000);
      expect(skipped).to.deep.equal([`${job.id as string} refused`]);
      expect(runs).to.deep.equal([]);
    });

    // Pausing Redis is what refuses the call here: one redis-server only.
    if (starter.name === 'one redis-server') for (let round = 1; round <= 3; round += 1) {
      it(`runs it exactly once, answered 200 (round ${round})`, async () => {
        const runs: string[] = [];
        const registry = new MemoryWebhookRegistry();
        await registry.activate({ workflowId: 'wf', nodes: [{ name: 'Webhook', parameters: { path: 'pay', httpMethod: 'POST' } }], settings: { idempotencyHeader: true } });
        const queue = setup.queue({ enqueueTimeoutMs: 300 });
        setup.worker(async (run) => { runs.push(String((run.items[0]?.json.body as { id: string }).id)); return { items: [] }; });
        const app = setup.app(registry, queue);
        await queue.ready();
        setup.server.pause();
        try {
          const refused = await request(app).post(`${BASE}/webhook/pay`).set('idempotency-key', 'payment-1').send({ id: 'payment-1' });
          expect([refused.status, refused.body.code]).to.deep.equal([503, 'QUEUE_UNAVAILABLE']);
          await new Promise((resolve) => setTimeout(resolve, 1500));
        } finally {
          setup.server.resume();
        }
        // The sender retries the 503 until it is taken.
        await eventually(async () => (await request(app).post(`${BASE}/webhook/pay`).set('idempotency-key', 'payment-1').send({ id: 'payment-1' })).status === 200, 10_000);
        await eventually(() => runs.length === 1, 10_000);
        await queueDrained(queue);
        expect(runs).to.deep.equal(['payment-1']);
      });
    }
  });
}
