/**
 * Waiting webhooks in queue mode, on each queue store (one redis-server, PostgreSQL): a resume call is queued like any
 * other, and a resume call the queue refuses gives the wait back, so a retry resumes the run.
 */
import { expect } from 'chai';
import request from 'supertest';
import { MemoryWebhookRegistry } from 'workflow-webhooks';
import type { QueuedWebhookRun } from 'workflow-webhooks/queue';
import { BASE, type QueueSetup } from '../../support/queue/setup.js';
import { QUEUE_STORES, queueStores } from '../../support/queue/stores.js';
import { pathOf, SECRET } from '../../support/waiting/app.js';

// How a resume is queued does not depend on Redis's topology: one redis-server, and PostgreSQL.
const STORES = QUEUE_STORES.filter((store) => store.name === 'one redis-server' || store.name === 'PostgreSQL');

for (const store of queueStores('waiting webhooks in queue mode', STORES)) {
  describe(`waiting webhooks in queue mode on ${store.name}`, function () {
    this.timeout(20_000);
    const setup = store.setup();
    const { onRedis, onPostgres } = setup;

    /** Runs `during` while the store takes no job: Redis paused for writes, or PostgreSQL's job table locked. */
    async function takingNoJob<T>(during: () => Promise<T>): Promise<T> {
      if (onPostgres !== undefined) return onPostgres.locked(['bullmq.job'], during);
      const { redis } = onRedis as QueueSetup;
      await redis.sendCommand(['CLIENT', 'PAUSE', '1000', 'WRITE']);
      try {
        return await during();
      } finally {
        await redis.sendCommand(['CLIENT', 'UNPAUSE']);
      }
    }

    it('queues the run a call resumes like any other, and the worker\'s run reads the state it suspended with', async () => {
      const registry = new MemoryWebhookRegistry();
      await registry.activate({ workflowId: 'approval', nodes: [{ name: 'Webhook', parameters: { path: 'start', httpMethod: 'POST', responseMode: 'lastNode' } }] });
      const queue = setup.queue();
      const runs: { resume?: unknown; jobId: string; body: unknown }[] = [];
      setup.worker(async (run: QueuedWebhookRun) => {
        runs.push({ resume: run.resume, jobId: run.jobId, body: run.items[0]?.json.body });
        if (run.resume !== undefined) return { items: [{ json: { state: run.resume.state, decision: run.items[0]?.json.body } }] };
        const suspended = await run.suspend({ state: { order: 7 }, responseMode: 'lastNode' });
        return { items: [{ json: { resumeUrl: suspended.resumeUrl } }] };
      }, { waiting: { registry, waitingSecret: SECRET, publicUrl: 'https://api.example.com/hooks' } });
      const app = setup.app(registry, queue, { waitingSecret: SECRET });
      const started = await request(app).post(`${BASE}/webhook/start`).send({ order: 7 }).expect(200);
      expect(started.body.resumeUrl).to.match(/^https:\/\/api\.example\.com\/hooks\/webhook-waiting\/[\w-]{22}\?signature=/);
      const resumed = await request(app).post(pathOf(started.body.resumeUrl)).send({ approved: true }).expect(200);
      expect(resumed.body).to.deep.equal({ state: { order: 7 }, decision: { approved: true } });
      expect(runs).to.have.length(2);
      expect(runs[1]?.jobId).to.not.equal(runs[0]?.jobId);
      expect((await request(app).post(pathOf(started.body.resumeUrl)).send({})).body.code).to.equal('WAIT_RUN_FINISHED');
    });

    /** A suspended approval run in queue mode; its queue refuses files over 64 bytes and waits 300 ms for its store. */
    async function suspendedApproval() {
      const registry = new MemoryWebhookRegistry();
      await registry.activate({ workflowId: 'approval', nodes: [{ name: 'Webhook', parameters: { path: 'start', httpMethod: 'POST', responseMode: 'lastNode' } }] });
      const queue = setup.queue({ inlineBinaryBytes: 64, enqueueTimeoutMs: 300 });
      setup.worker(async (run: QueuedWebhookRun) => {
        if (run.resume !== undefined) return { items: [{ json: { decision: run.items[0]?.json.body } }] };
        const suspended = await run.suspend({ responseMode: 'lastNode' });
        return { items: [{ json: { resumeUrl: suspended.resumeUrl } }] };
      }, { waiting: { registry, waitingSecret: SECRET, publicUrl: 'https://api.example.com/hooks' } });
      const app = setup.app(registry, queue, { waitingSecret: SECRET });
      // Its store reached first: the 300 ms are for the resume call, not for a first connection on a loaded machine.
      await queue.ready();
      const started = await request(app).post(`${BASE}/webhook/start`).send({}).expect(200);
      return { app, resume: pathOf(started.body.resumeUrl as string) };
    }

    it('gives the wait back when the queue refuses the resume call 413, so a retry resumes the run', async () => {
      const { app, resume } = await suspendedApproval();
      const refused = await request(app).post(resume).attach('scan', Buffer.alloc(1024, 1), 'scan.pdf').expect(413);
      expect(refused.body.code).to.equal('QUEUE_PAYLOAD_TOO_LARGE');
      const resumed = await request(app).post(resume).send({ approved: true }).expect(200);
      expect(resumed.body).to.deep.equal({ decision: { approved: true } });
    });

    it(`gives the wait back when ${onPostgres === undefined ? 'Redis' : 'PostgreSQL'} does not take the resume call in time (503), so a retry resumes the run`, async () => {
      const { app, resume } = await suspendedApproval();
      const refused = await takingNoJob(() => request(app).post(resume).send({ approved: 'first try' }));
      expect([refused.status, refused.body.code]).to.deep.equal([503, 'QUEUE_UNAVAILABLE']);
      const resumed = await request(app).post(resume).send({ approved: true }).expect(200);
      expect(resumed.body).to.deep.equal({ decision: { approved: true } });
    });

    it('gives the worker\'s resumed run the caller\'s query parameters without the signature', async () => {
      const registry = new MemoryWebhookRegistry();
      await registry.activate({ workflowId: 'approval', nodes: [{ name: 'Webhook', parameters: { path: 'start', httpMethod: 'POST', responseMode: 'lastNode' } }] });
      setup.worker(async (run: QueuedWebhookRun) => {
        if (run.resume !== undefined) return { items: [{ json: { query: run.items[0]?.json.query, webhookUrl: run.items[0]?.json.webhookUrl } }] };
        const suspended = await run.suspend({ suffix: 'approve', responseMode: 'lastNode' });
        return { items: [{ json: { resumeUrl: suspended.resumeUrl } }] };
      }, { waiting: { registry, waitingSecret: SECRET, publicUrl: 'https://api.example.com/hooks' } });
      const app = setup.app(registry, setup.queue(), { waitingSecret: SECRET });
      const started = await request(app).post(`${BASE}/webhook/start`).send({}).expect(200);
      const resumed = await request(app).post(`${pathOf(started.body.resumeUrl)}&decision=approve`).send({}).expect(200);
      expect(resumed.body.query).to.deep.equal({ decision: 'approve' });
      expect(resumed.body.webhookUrl).to.not.include('signature');
    });

    it('tells a worker\'s run that waits in the run to suspend instead', async () => {
      const registry = new MemoryWebhookRegistry();
      await registry.activate({ workflowId: 'approval', nodes: [{ name: 'Webhook', parameters: { path: 'start', httpMethod: 'POST', responseMode: 'lastNode' } }] });
      setup.worker(async (run: QueuedWebhookRun) => {
        const code = await run.waitForCall().then(() => 'resolved', (error: { code: string }) => error.code);
        return { items: [{ json: { code } }] };
      });
      const answer = await request(setup.app(registry, setup.queue())).post(`${BASE}/webhook/start`).send({}).expect(200);
      expect(answer.body).to.deep.equal({ code: 'WAIT_NOT_CONFIGURED' });
    });
  });
}
