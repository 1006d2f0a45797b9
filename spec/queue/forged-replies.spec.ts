/**
 * Forged replies: whoever may publish on a web instance's reply channel (NOTIFY on PostgreSQL, PUBLISH on Redis) but
 * not write the queue's store cannot answer a waiting call. The forger reads the channel from the stored job, as a
 * role that may read the jobs would, and sends its own answer while the real run is under way.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { MemoryWebhookRegistry, type WebhookNodeParameters } from 'workflow-webhooks';
import type { WebhookWorkerEvent } from 'workflow-webhooks/queue';
import type { WebhookJobData } from '../../lib/queue/job-data.js';
import { BASE, eventually } from '../support/queue/setup.js';
import { queueStores } from '../support/queue/stores.js';

const PHISH = 'https://attacker.example/phish';
const encryption = { currentKeyId: 'k1', keys: { k1: randomBytes(32) } };

async function registryOf(parameters: Partial<WebhookNodeParameters>): Promise<MemoryWebhookRegistry> {
  const registry = new MemoryWebhookRegistry();
  await registry.activate({ workflowId: 'partner', nodes: [{ name: 'Webhook', parameters: { path: 'in', httpMethod: 'POST', ...parameters } }] });
  return registry;
}

/** A run that starts, says its job id, and goes on only once the test lets it: the forger speaks while it runs. */
function heldRun(): { start: (jobId: string) => void; started: Promise<string>; release: () => void; released: Promise<void> } {
  let start!: (jobId: string) => void;
  let release!: () => void;
  const started = new Promise<string>((resolve) => { start = resolve; });
  const released = new Promise<void>((resolve) => { release = resolve; });
  return { start, started, release, released };
}

for (const store of queueStores('queue mode: forged replies')) {
  describe(`queue mode: forged replies on ${store.name}`, function () {
    this.timeout(30_000);
    const setup = store.setup();
    const { onRedis, onPostgres } = setup;

    /** Sends a message on the channel as a role that may only NOTIFY / PUBLISH would. */
    async function forge(channel: string, message: object): Promise<void> {
      const text = JSON.stringify(message);
      if (onPostgres !== undefined) {
        await onPostgres.query('SELECT pg_notify($1, $2)', [channel, `=${text}`]);
        return;
      }
      // The listener hears plain pub/sub, or sharded pub/sub on a Redis 7 cluster: the forger tries both.
      await onRedis?.send(['PUBLISH', channel, text]);
      await onRedis?.send(['SPUBLISH', channel, text]);
    }

    /** Refusals the web instance reported. */
    function reporting(): { refused: string[]; logger: { error(fields: Record<string, unknown>): void; warn(): void } } {
      const refused: string[] = [];
      return {
        refused,
        logger: {
          error: (fields) => {
            const message = String((fields.err as { message?: unknown } | undefined)?.message ?? '');
            if (message.includes('refused as possibly forged')) refused.push(message);
          },
          warn: () => undefined,
        },
      };
    }

    for (const encrypted of [false, true]) {
      const keyring = encrypted ? { encryption } : {};
      const how = encrypted ? 'with encryption, a clear forged reply is refused and reported' : 'without encryption';

      it(`answers a lastNode caller on its reply channel with its run's result, not a failure and a result forged there meanwhile (${how})`, async () => {
        const { refused, logger } = reporting();
        // Heard only for an answer that came on the reply channel, not by a look at the job.
        const onChannel: string[] = [];
        const queue = setup.queue({ ...keyring, logger, stageTimes: (stages) => { onChannel.push(stages.jobId); } });
        const held = heldRun();
        setup.worker(async (run) => {
          held.start(run.jobId);
          await held.released;
          return { items: [{ json: { real: true } }] };
        }, keyring);
        const app = setup.app(await registryOf({ responseMode: 'lastNode' }), queue);
        const answer = request(app).post(`${BASE}/webhook/in`).send({}).then((res) => res);
        const jobId = await held.started;
        const channel = (await queue.bullQueue.getJob(jobId))?.data.replyTo as string;
        expect(channel).to.be.a('string');
        await forge(channel, { jobId, type: 'failed', message: 'forged failure' });
        await forge(channel, { jobId, type: 'completed', result: { items: [{ json: { forged: true } }] } });
        held.release();
        const res = await answer;
        expect(res.status).to.equal(200);
        expect(res.body).to.deep.equal({ real: true });
        expect(onChannel).to.deep.equal([jobId]);
        if (encrypted) await eventually(() => refused.length === 2);
        else expect(refused).to.deep.equal([]);
      });

      it(`answers a responseNode caller with its run's respond(), not a redirect forged on its reply channel meanwhile (${how})`, async () => {
        const { refused, logger } = reporting();
        const queue = setup.queue({ ...keyring, logger });
        const held = heldRun();
        setup.worker(async (run) => {
          held.start(run.jobId);
          await held.released;
          run.respond({ status: 201, body: { real: true } });
          return { items: [] };
        }, keyring);
        const app = setup.app(await registryOf({ responseMode: 'responseNode' }), queue);
        const answer = request(app).post(`${BASE}/webhook/in`).redirects(0).send({}).then((res) => res);
        const jobId = await held.started;
        const channel = (await queue.bullQueue.getJob(jobId))?.data.replyTo as string;
        await forge(channel, { jobId, type: 'respond', response: { status: 302, headers: { location: PHISH }, body: { forged: true } } });
        held.release();
        const res = await answer;
        expect(res.status).to.equal(201);
        expect(res.headers.location).to.equal(undefined);
        expect(res.body).to.deep.equal({ real: true });
        if (encrypted) await eventually(() => refused.length === 1);
        else expect(refused).to.deep.equal([]);
      });
    }

    it('with encryption, does not run a job whose sealed item a writer of the store replaced with a clear one, and fails it at once', async () => {
      // Three attempts allowed: the clear item would read the same at every one, so none is made after the first.
      const queue = setup.queue({ encryption, attempts: 3 });
      const app = setup.app(await registryOf({ responseMode: 'onReceived' }), queue);
      await request(app).post(`${BASE}/webhook/in`).send({ n: 1 }).expect(200);
      const [job] = await queue.bullQueue.getJobs(['waiting']);
      expect(job?.data.sealedItem).to.not.equal(undefined);
      const forged: WebhookJobData = { ...(job?.data as WebhookJobData), item: { json: { body: { forged: true } } } };
      delete forged.sealedItem;
      await job?.updateData(forged);
      const ran: unknown[] = [];
      const failures: string[] = [];
      setup.worker(async (run) => { ran.push(run.items[0]?.json); return { items: [] }; }, {
        encryption,
        onEvent: (event: WebhookWorkerEvent) => { if (event.type === 'failed') failures.push(event.error.message); },
      });
      await eventually(async () => (await queue.status(job?.id as string))?.state === 'failed');
      expect(ran).to.deep.equal([]);
      expect(failures).to.deep.equal(['The queue encrypts job data (option encryption), so a job\'s trigger item arrives sealed; this one is clear and is refused as possibly forged.']);
    });

    // A refusal's mark is a key of the queue's own on Redis: written here as the refusing web instance would.
    if (store.name === 'one redis-server') {
      it('with encryption, seals the result of a job not run because its caller was refused, so status() still reads it', async () => {
        const queue = setup.queue({ encryption });
        await queue.ready();
        const job = await queue.bullQueue.add('wf', {
          version: 1, callId: 'late-call', workflowId: 'wf', nodeName: 'Webhook', mode: 'production', method: 'POST', outputIndex: 0,
          responseMode: 'onReceived', storedAt: Date.now() - 5000, storeId: 'late-store', answerBy: Date.now() - 3000,
        } as never);
        await onRedis?.send(['SET', `${onRedis.prefix}:${setup.name}:wh:refused:late-store`, '1']);
        setup.worker(async () => ({ items: [] }), { encryption });
        await eventually(async () => (await queue.status(job.id as string))?.state === 'completed');
        const status = await queue.status(job.id as string);
        expect(status?.result).to.deep.equal({ items: [], refused: true });
        expect(job.id === undefined ? undefined : (await queue.bullQueue.getJob(job.id))?.returnvalue).to.have.keys(['items', 'sealed']);
      });
    }
  });
}
