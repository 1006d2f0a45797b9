/**
 * What the `encryption` option seals beyond the job's item and result: a sealed item opens only in the job it was
 * sealed for (moved into another job, or its job pointed at another workflow, the job fails), `respond()` answers
 * and a failed run's message cross Redis pub/sub sealed, and an idempotent call's body fingerprint is a keyed HMAC, not a hash anyone can
 * match by trying bodies.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { MemoryWebhookRegistry, type WebhookNodeParameters } from 'workflow-webhooks';
import type { WebhookWorkerEvent } from 'workflow-webhooks/queue';
import type { Item } from '../../lib/core/types.js';
import { bodyFingerprint } from '../../lib/queue/idempotency.js';
import { BASE, eventually, queueSetup } from '../support/queue/setup.js';
import { RedisServer, REDIS } from '../support/redis-server.js';
import { findService, markNotRun } from '../support/services.js';

const SECRET = 'iban-DE44500105175407324931';

async function registryOf(parameters: Partial<WebhookNodeParameters>, settings: Record<string, unknown> = {}): Promise<MemoryWebhookRegistry> {
  const registry = new MemoryWebhookRegistry();
  await registry.activate({ workflowId: 'partner', nodes: [{ name: 'Webhook', parameters: { path: 'in', httpMethod: 'POST', ...parameters } }], settings });
  return registry;
}

if (findService(REDIS) === undefined) {
  markNotRun('queue mode with encryption: what else is sealed', REDIS);
} else {
  describe('queue mode with encryption: what else is sealed', function () {
    this.timeout(20_000);
    let server: RedisServer;
    before(async () => { server = await RedisServer.start() as RedisServer; });
    after(async () => { await server.stop(); });
    const setup = queueSetup(() => server);
    const encryption = { currentKeyId: 'k1', keys: { k1: randomBytes(32) } };

    it('fails a job holding another job\'s sealed item (with that job\'s call id), or pointed at another workflow, and runs its own', async () => {
      const queue = setup.queue({ encryption, attempts: 1 });
      const app = setup.app(await registryOf({ responseMode: 'onReceived' }), queue);
      for (const n of [1, 2, 3]) await request(app).post(`${BASE}/webhook/in`).send({ n }).expect(200);
      const jobs = (await queue.bullQueue.getWaiting()).sort((a, b) => a.data.storedAt - b.data.storedAt || (a.timestamp - b.timestamp));
      const [first, second, third] = jobs;
      expect(jobs).to.have.length(3);
      // A writer of Redis moves the first job's sealed item, and the call id it names, into the second job; and points
      // the third at another workflow.
      await second?.updateData({ ...second.data, sealedItem: first?.data.sealedItem, callId: first?.data.callId as string });
      await third?.updateData({ ...third.data, workflowId: 'other' });
      const ran: unknown[] = [];
      const failures: string[] = [];
      setup.worker(async (run) => { ran.push(run.items[0]?.json.body); return { items: [] }; }, {
        encryption,
        onEvent: (event: WebhookWorkerEvent) => { if (event.type === 'failed') failures.push(`${event.jobId}: ${event.error.message}`); },
      });
      await eventually(() => ran.length + failures.length === 3);
      expect(ran).to.have.length(1);
      expect(failures.sort()).to.deep.equal([second?.id, third?.id].sort().map((id) => `${String(id)}: This job's encrypted data does not open with key "k1": it was changed, or belongs to another job.`));
    });

    /** Every message published on the queue's Redis, heard as anyone allowed to PSUBSCRIBE would hear it. */
    async function everythingPublished(): Promise<{ published: string[]; subscriber: { destroy(): unknown } }> {
      const published: string[] = [];
      const subscriber = setup.redis.duplicate();
      subscriber.on('error', () => undefined);
      await subscriber.connect();
      await subscriber.pSubscribe('*', (message) => { published.push(message); });
      return { published, subscriber };
    }

    it('sends respond() answers over Redis pub/sub sealed, and the caller gets them as without encryption', async () => {
      const { published, subscriber } = await everythingPublished();
      try {
        const queue = setup.queue({ encryption });
        setup.worker(async (run) => {
          run.respond({ status: 202, body: { account: SECRET } });
          return { items: [] };
        }, { encryption });
        const answer = await request(setup.app(await registryOf({ responseMode: 'responseNode' }), queue)).post(`${BASE}/webhook/in`).send({}).expect(202);
        expect(answer.body).to.deep.equal({ account: SECRET });
        await eventually(() => published.some((message) => message.includes('"respond"')));
        for (const message of published) expect(message).to.not.include(SECRET);
        expect(published.find((message) => message.includes('"respond"'))).to.include('"sealed"');
      } finally {
        subscriber.destroy();
      }
    });

    it('sends a failed run\'s message, code and hint over Redis pub/sub sealed, and the waiting caller still gets the error', async () => {
      const { published, subscriber } = await everythingPublished();
      try {
        const queue = setup.queue({ encryption, attempts: 1 });
        // The executor's own error quotes what it read; a result the library judges fails with its code and hint.
        setup.worker(async (run) => {
          const { body } = run.items[0]?.json as { body: { judged?: boolean } };
          if (body.judged === true) return { items: [{ json: { account: SECRET } }, 'not an item'] } as never;
          throw new Error(`declined for ${SECRET}`);
        }, { encryption });
        const app = setup.app(await registryOf({ responseMode: 'lastNode' }), queue);
        const thrown = await request(app).post(`${BASE}/webhook/in`).send({}).expect(500);
        expect(thrown.body.code).to.equal('WORKFLOW_FAILED');
        // The library's code and hint reach the caller only as the worker judged them: opened from the sealed reply.
        const judged = await request(app).post(`${BASE}/webhook/in`).send({ judged: true }).expect(500);
        expect(judged.body).to.include({ code: 'WORKFLOW_INVALID_RESULT', message: 'Output item 1 of the workflow is not { json: object }.' });
        await eventually(() => published.filter((message) => message.includes('"failed"')).length === 2);
        const failed = published.filter((message) => message.includes('"failed"'));
        for (const message of failed) {
          expect(Object.keys(JSON.parse(message) as object).sort()).to.deep.equal(['jobId', 'sealed', 'type']);
          for (const clear of [SECRET, 'declined', 'WORKFLOW_INVALID_RESULT', 'Output item', 'Each item must']) expect(message).to.not.include(clear);
        }
      } finally {
        subscriber.destroy();
      }
    });

    it('keeps an HMAC of an idempotent call\'s body, never its plain SHA-256, and still tells a retry from another body', async () => {
      const queue = setup.queue({ encryption });
      setup.worker(async () => ({ items: [] }), { encryption });
      const app = setup.app(await registryOf({ responseMode: 'onReceived' }, { idempotencyHeader: true }), queue);
      const pin = { pin: '4711' };
      await request(app).post(`${BASE}/webhook/in`).set('idempotency-key', 'order-1').send(pin).expect(200);
      const [job] = await queue.bullQueue.getJobs(['waiting', 'active', 'completed']);
      const plain = bodyFingerprint({ json: { body: pin } } as unknown as Item);
      expect(job?.data.fingerprint).to.match(/^k1:[\w-]{43}$/);
      expect(job?.data.fingerprint).to.not.include(plain);
      const stored: string[] = [];
      for (const key of await setup.redis.keys(`bull:${setup.name}:*`)) {
        if (await setup.redis.type(key) === 'hash') stored.push(JSON.stringify(await setup.redis.hGetAll(key)));
      }
      expect(stored.join('\n')).to.not.include(plain);
      await request(app).post(`${BASE}/webhook/in`).set('idempotency-key', 'order-1').send(pin).expect(200);
      const other = await request(app).post(`${BASE}/webhook/in`).set('idempotency-key', 'order-1').send({ pin: '4712' }).expect(422);
      expect(other.body.code).to.equal('IDEMPOTENCY_KEY_REUSED');
    });
  });
}
