/**
 * A NUL character (U+0000) in a call's data, a suspended run's state, a run's result or its failure: Redis keeps it,
 * and so does PostgreSQL inside a sealed job (the `encryption` option). PostgreSQL's readable jsonb job table cannot:
 * there the call is refused once as its data (422, no Retry-After), such a result fails its run once, and a failure is
 * kept with the NUL escaped; never an outage retried for ever, nor a job run again and again.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import request from 'supertest';
import { MemoryWebhookRegistry, type WebhookNodeParameters } from 'workflow-webhooks';
import type { QueuedWebhookRun, WebhookQueue, WebhookWorkerEvent } from 'workflow-webhooks/queue';
import { queueDrained } from '../support/queue-drained.js';
import { BASE, eventually } from '../support/queue/setup.js';
import { QUEUE_STORES, queueStores } from '../support/queue/stores.js';
import { pathOf, SECRET } from '../support/waiting/app.js';

const NUL = 'a\u0000b';
// Where a NUL is kept does not depend on Redis's topology: one redis-server, and PostgreSQL.
const STORES = QUEUE_STORES.filter((store) => store.name === 'one redis-server' || store.name === 'PostgreSQL');

for (const store of queueStores('queue mode: a NUL character in a call or a result', STORES)) {
  describe(`queue mode: a NUL character in a call or a result on ${store.name}`, function () {
    this.timeout(30_000);
    const setup = store.setup();
    const postgres = setup.onPostgres !== undefined;

    async function registry(parameters: Partial<WebhookNodeParameters> = {}): Promise<MemoryWebhookRegistry> {
      const made = new MemoryWebhookRegistry();
      await made.activate({ workflowId: 'nul', nodes: [{ name: 'Webhook', parameters: { path: 'nul', httpMethod: 'POST', ...parameters } }] });
      return made;
    }

    async function jobsStored(queue: WebhookQueue): Promise<number> {
      await queue.ready();
      const counts = await queue.bullQueue.getJobCounts('wait', 'active', 'delayed', 'completed', 'failed');
      return Object.values(counts).reduce((sum, count) => sum + count, 0);
    }

    type App = Parameters<typeof request>[0];
    type Fields = Record<string, Record<string, unknown>>;
    const post = (app: App, query = '') => request(app).post(`${BASE}/webhook/nul${query}`);
    /** The ways a caller's data reaches the trigger item: a JSON body, a query parameter, form fields. */
    const calls = [
      { where: 'a JSON body', send: (app: App) => post(app).set('content-type', 'application/json').send(JSON.stringify({ note: NUL })),
        read: (json: Fields) => json.body?.note },
      { where: 'a query parameter', send: (app: App) => post(app, '?note=a%00b'), read: (json: Fields) => json.query?.note },
      { where: 'a urlencoded form field', send: (app: App) => post(app).type('form').send('note=a%00b'), read: (json: Fields) => json.body?.note },
      { where: 'a multipart form field', send: (app: App) => post(app).field('note', NUL), read: (json: Fields) => json.body?.note },
    ];

    for (const call of calls) {
      if (postgres) {
        it(`refuses a NUL in ${call.where} with 422 QUEUE_PAYLOAD_UNSTORABLE and no Retry-After, storing and running nothing, and takes the next call`, async () => {
          let ran = 0;
          const queue = setup.queue();
          setup.worker(async () => { ran += 1; return { items: [] }; });
          const app = setup.app(await registry(), queue);
          const res = await call.send(app).expect(422);
          expect(res.body.code).to.equal('QUEUE_PAYLOAD_UNSTORABLE');
          expect(res.body.message).to.include('NUL');
          expect(res.headers['retry-after']).to.equal(undefined);
          expect(await jobsStored(queue)).to.equal(0);
          expect(ran).to.equal(0);
          // The call's data, not an outage: the next call is stored and run.
          await request(app).post(`${BASE}/webhook/nul`).send({ plain: true }).expect(200);
          await eventually(() => ran === 1);
        });
      } else {
        it(`stores and runs a NUL in ${call.where} as it was sent`, async () => {
          const seen: unknown[] = [];
          const queue = setup.queue();
          setup.worker(async (run: QueuedWebhookRun) => { seen.push(call.read(run.items[0]?.json as Fields)); return { items: [] }; });
          const app = setup.app(await registry(), queue);
          await call.send(app).expect(200);
          await eventually(() => seen.length === 1);
          expect(seen).to.deep.equal([NUL]);
        });
      }
    }

    if (postgres) {
      it('stores and runs a NUL in the body as it was sent when the job is sealed (encryption)', async () => {
        const encryption = { currentKeyId: 'k1', keys: { k1: randomBytes(32).toString('base64') } };
        const seen: unknown[] = [];
        const queue = setup.queue({ encryption });
        setup.worker(async (run: QueuedWebhookRun) => { seen.push((run.items[0]?.json.body as Record<string, unknown>).note); return { items: [] }; }, { encryption });
        const app = setup.app(await registry(), queue);
        await calls[0]?.send(app).expect(200);
        await eventually(() => seen.length === 1);
        expect(seen).to.deep.equal([NUL]);
      });

      it('answers a result holding a NUL as it was returned when the job is sealed (encryption)', async () => {
        const encryption = { currentKeyId: 'k1', keys: { k1: randomBytes(32).toString('base64') } };
        const queue = setup.queue({ encryption });
        setup.worker(async () => ({ items: [{ json: { note: NUL } }] }), { encryption });
        const app = setup.app(await registry({ responseMode: 'lastNode' }), queue);
        const res = await request(app).post(`${BASE}/webhook/nul`).send({ plain: true }).expect(200);
        expect(res.body).to.deep.equal({ note: NUL });
      });

      it('fails a run whose result holds a NUL once with 500 WORKFLOW_INVALID_RESULT, without another attempt', async () => {
        let ran = 0;
        const events: WebhookWorkerEvent[] = [];
        const queue = setup.queue({ attempts: 3 });
        setup.worker(async () => { ran += 1; return { items: [{ json: { note: NUL } }] }; }, { onEvent: (event) => { events.push(event); } });
        const app = setup.app(await registry({ responseMode: 'lastNode' }), queue);
        const res = await request(app).post(`${BASE}/webhook/nul`).send({ plain: true }).expect(500);
        expect(res.body.code).to.equal('WORKFLOW_INVALID_RESULT');
        expect(res.body.message).to.include('NUL');
        await eventually(async () => (await queue.bullQueue.getJobCounts('failed')).failed === 1);
        await queueDrained(queue);
        expect(ran).to.equal(1);
        expect(events.filter((event) => event.type === 'failed').map((event) => (event as { final?: boolean }).final)).to.deep.equal([true]);
      });
    }

    it('fails a run whose error message holds a NUL after its attempts, answering its caller 500 WORKFLOW_FAILED once', async () => {
      let ran = 0;
      const queue = setup.queue({ attempts: 2, backoffMs: 1 });
      setup.worker(async () => { ran += 1; throw new Error(`refused ${NUL}`); });
      const app = setup.app(await registry({ responseMode: 'lastNode' }), queue);
      const res = await request(app).post(`${BASE}/webhook/nul`).send({ plain: true }).expect(500);
      expect(res.body.code).to.equal('WORKFLOW_FAILED');
      await eventually(async () => (await queue.bullQueue.getJobCounts('failed')).failed === 1);
      await queueDrained(queue);
      expect(ran).to.equal(2);
    });

    /** A run suspended with a NUL in its state, and its resume address. */
    async function suspendedWithNul() {
      const made = await registry({ responseMode: 'lastNode' });
      const queue = setup.queue();
      setup.worker(async (run: QueuedWebhookRun) => {
        if (run.resume !== undefined) return { items: [{ json: { plain: true, kept: run.resume.state === NUL } }] };
        const suspended = await run.suspend({ state: NUL, responseMode: 'lastNode' });
        return { items: [{ json: { resumeUrl: suspended.resumeUrl } }] };
      }, { waiting: { registry: made, waitingSecret: SECRET, publicUrl: 'https://api.example.com/hooks' } });
      const app = setup.app(made, queue, { waitingSecret: SECRET });
      const started = await request(app).post(`${BASE}/webhook/nul`).send({ plain: true }).expect(200);
      return { app, resume: pathOf(started.body.resumeUrl as string) };
    }

    if (postgres) {
      it('refuses to resume a run suspended with a NUL in its state with 422 QUEUE_PAYLOAD_UNSTORABLE, and gives the wait back', async () => {
        const { app, resume } = await suspendedWithNul();
        for (const attempt of [1, 2]) {
          const res = await request(app).post(resume).send({ attempt }).expect(422);
          expect(res.body.code).to.equal('QUEUE_PAYLOAD_UNSTORABLE');
          expect(res.body.message).to.include('state');
        }
      });
    } else {
      it('resumes a run suspended with a NUL in its state, handing the state back as it was', async () => {
        const { app, resume } = await suspendedWithNul();
        const res = await request(app).post(resume).send({}).expect(200);
        expect(res.body).to.deep.equal({ plain: true, kept: true });
      });
    }

    if (!postgres) {
      it('answers a result holding a NUL as it was returned', async () => {
        const queue = setup.queue();
        setup.worker(async () => ({ items: [{ json: { note: NUL } }] }));
        const app = setup.app(await registry({ responseMode: 'lastNode' }), queue);
        const res = await calls[0]?.send(app).expect(200);
        expect(res?.body).to.deep.equal({ note: NUL });
      });
    }
  });
}
