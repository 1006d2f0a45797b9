/**
 * What the `encryption` option seals beyond the job's item and result: a sealed item opens only in the job it was
 * sealed for (moved into another job, or its job pointed at another workflow, the job fails), `respond()` answers
 * and a failed run's message cross the reply channel sealed (Redis pub/sub, PostgreSQL's NOTIFY), and an idempotent call's body
 * fingerprint is a keyed HMAC, not a hash anyone can match by trying bodies. On one redis-server and on PostgreSQL.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import request from 'supertest';
import { MemoryWebhookRegistry, type WebhookNodeParameters } from 'workflow-webhooks';
import type { WebhookWorkerEvent } from 'workflow-webhooks/queue';
import type { Item } from '../../lib/core/types.js';
import { bodyFingerprint } from '../../lib/queue/idempotency.js';
import { BASE, eventually, type QueueSetup } from '../support/queue/setup.js';
import { QUEUE_STORES, queueStores, type PostgresSide } from '../support/queue/stores.js';

const SECRET = 'iban-DE44500105175407324931';

async function registryOf(parameters: Partial<WebhookNodeParameters>, settings: Record<string, unknown> = {}): Promise<MemoryWebhookRegistry> {
  const registry = new MemoryWebhookRegistry();
  await registry.activate({ workflowId: 'partner', nodes: [{ name: 'Webhook', parameters: { path: 'in', httpMethod: 'POST', ...parameters } }], settings });
  return registry;
}

/** What crossed the reply channels, as anyone allowed to subscribe to them heard it. */
interface Transit {
  published: string[];
  /** Resolves once the channel that the job's reply takes is heard (Redis: every channel is, from the start). */
  hear(jobId: string): Promise<void>;
  close(): Promise<void>;
}

// What crosses the reply channel does not depend on Redis's topology: one redis-server, and PostgreSQL.
const STORES = QUEUE_STORES.filter((store) => store.name === 'one redis-server' || store.name === 'PostgreSQL');

for (const store of queueStores('queue mode with encryption: what else is sealed', STORES)) {
  describe(`queue mode with encryption: what else is sealed, on ${store.name}`, function () {
    this.timeout(20_000);
    const setup = store.setup();
    const { onRedis, onPostgres } = setup;
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

    /**
     * Every message sent on the reply channels: on Redis all that is published, heard as anyone allowed to PSUBSCRIBE
     * would; on PostgreSQL every notification on the job's reply channel (read from the stored job, as a role that
     * may read the jobs would) and the stored reply a notification names.
     */
    async function everythingPublished(): Promise<Transit> {
      const published: string[] = [];
      if (onPostgres !== undefined) return listenedOnPostgres(onPostgres, published);
      const subscriber = (onRedis as QueueSetup).redis.duplicate();
      subscriber.on('error', () => undefined);
      await subscriber.connect();
      await subscriber.pSubscribe('*', (message) => { published.push(message); });
      return { published, hear: async () => undefined, close: async () => { subscriber.destroy(); } };
    }

    async function listenedOnPostgres(postgres: PostgresSide, published: string[]): Promise<Transit> {
      const listener = new pg.Client({ connectionString: postgres.server.url });
      listener.on('error', () => undefined);
      await listener.connect();
      const heard = new Set<string>();
      listener.on('notification', (notification) => {
        const text = notification.payload ?? '';
        // `=` and the message, or `#` and the id of the row that holds it (read before its listener takes it).
        if (text.startsWith('=')) published.push(text.slice(1));
        else void postgres.query<{ message: string }>('SELECT message FROM workflow_webhooks.queue_replies WHERE reply_id = $1', [text.slice(1)])
          .then((rows) => { for (const row of rows) published.push(row.message); }, () => undefined);
      });
      return {
        published,
        async hear(jobId) {
          const queue = setup.queue();
          await queue.ready();
          const channel = (await queue.bullQueue.getJob(jobId))?.data.replyTo;
          if (typeof channel !== 'string' || heard.has(channel)) return;
          heard.add(channel);
          await listener.query(`LISTEN ${channel}`);
        },
        close: () => listener.end(),
      };
    }

    it('sends respond() answers over the reply channel sealed, and the caller gets them as without encryption', async () => {
      const { published, hear, close } = await everythingPublished();
      try {
        const queue = setup.queue({ encryption });
        setup.worker(async (run) => {
          await hear(run.jobId);
          run.respond({ status: 202, body: { account: SECRET } });
          return { items: [] };
        }, { encryption });
        const answer = await request(setup.app(await registryOf({ responseMode: 'responseNode' }), queue)).post(`${BASE}/webhook/in`).send({}).expect(202);
        expect(answer.body).to.deep.equal({ account: SECRET });
        await eventually(() => published.some((message) => message.includes('"respond"')));
        for (const message of published) expect(message).to.not.include(SECRET);
        expect(published.find((message) => message.includes('"respond"'))).to.include('"sealed"');
      } finally {
        await close();
      }
    });

    it('sends a failed run\'s message, code and hint over the reply channel sealed, and the waiting caller still gets the error', async () => {
      const { published, hear, close } = await everythingPublished();
      try {
        const queue = setup.queue({ encryption, attempts: 1 });
        // The executor's own error quotes what it read; a result the library judges fails with its code and hint.
        setup.worker(async (run) => {
          await hear(run.jobId);
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
        await close();
      }
    });

    /** The test's jobs as the store keeps them: Redis's hashes, PostgreSQL's rows. */
    async function storedJobs(): Promise<string[]> {
      if (onPostgres !== undefined) return (await onPostgres.query<{ row: string }>('SELECT t::text AS row FROM bullmq.job t WHERE queue = $1', [setup.name])).map(({ row }) => row);
      const { redis } = onRedis as QueueSetup;
      const stored: string[] = [];
      for (const key of await redis.keys(`bull:${setup.name}:*`)) {
        if (await redis.type(key) === 'hash') stored.push(JSON.stringify(await redis.hGetAll(key)));
      }
      return stored;
    }

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
      expect((await storedJobs()).join('\n')).to.not.include(plain);
      await request(app).post(`${BASE}/webhook/in`).set('idempotency-key', 'order-1').send(pin).expect(200);
      const other = await request(app).post(`${BASE}/webhook/in`).set('idempotency-key', 'order-1').send({ pin: '4712' }).expect(422);
      expect(other.body.code).to.equal('IDEMPOTENCY_KEY_REUSED');
    });
  });
}
