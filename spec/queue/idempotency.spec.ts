import { expect } from 'chai';
import request from 'supertest';
import { MemoryWebhookRegistry, type WebhookEvent, type WebhookNodeParameters, type WorkflowSettings } from 'workflow-webhooks';
import type { QueuedWebhookRun } from 'workflow-webhooks/queue';
import { BASE, eventually } from '../support/queue/setup.js';
import { queueStores } from '../support/queue/stores.js';
import { queueDrained } from '../support/queue-drained.js';
import { credentialOf, signedHeaders } from '../support/signers.js';

/** A sender's retry of a call already stored runs once and is answered as the first call was. */
for (const store of queueStores('queue mode: repeated deliveries')) {
  describe(`queue mode: repeated deliveries on ${store.name}`, function () {
    this.timeout(20_000);
    const setup = store.setup();

    async function serve(parameters: Partial<WebhookNodeParameters>, settings?: WorkflowSettings) {
      const runs: QueuedWebhookRun[] = [];
      const events: WebhookEvent[] = [];
      const registry = new MemoryWebhookRegistry();
      await registry.activate({ workflowId: 'wf', nodes: [{ name: 'Webhook', credentials: { ref: 'sw' }, parameters: { path: 'in', httpMethod: 'POST', ...parameters } }], settings });
      const queue = setup.queue();
      setup.worker(async (run) => {
        runs.push(run);
        return { items: [{ json: { run: runs.length, callId: run.callId } }] };
      });
      const app = setup.app(registry, queue, {
        credentials: () => credentialOf('standardWebhooks'),
        onEvent: (event) => { if (event.type === 'enqueued') events.push(event); },
      });
      return { app, runs, events, queue };
    }

    for (const responseMode of ['onReceived', 'lastNode'] as const) {
      it(`runs a signed message once when the sender delivers it twice (same webhook-id, ${responseMode}), answering both 2xx alike`, async () => {
        const { app, runs, events, queue } = await serve({ authentication: 'signatureAuth', responseMode });
        const body = JSON.stringify({ order: 7 });
        const headers = { ...await signedHeaders('standardWebhooks', body, { messageId: 'msg_repeat' }), 'content-type': 'application/json' };
        const first = await request(app).post(`${BASE}/webhook/in`).set(headers).send(body).expect(200);
        await eventually(() => runs.length === 1);
        const again = await request(app).post(`${BASE}/webhook/in`).set(headers).send(body).expect(200);
        expect(again.body).to.deep.equal(first.body);
        await queueDrained(queue);
        expect(runs).to.have.length(1);
        expect(events.map((event) => event.type === 'enqueued' && event.duplicate)).to.deep.equal([false, true]);
        expect(new Set(events.map((event) => event.type === 'enqueued' && event.jobId)).size).to.equal(1);
      });
    }

    it('runs a call once per Idempotency-Key when the workflow names that header, and gives the run callId, jobId and attempt', async () => {
      const { app, runs, queue } = await serve({}, { idempotencyHeader: true });
      await request(app).post(`${BASE}/webhook/in`).set('idempotency-key', 'k-1').set('x-request-id', 'call-1').send({}).expect(200);
      await request(app).post(`${BASE}/webhook/in`).set('idempotency-key', 'k-1').send({}).expect(200);
      await request(app).post(`${BASE}/webhook/in`).set('idempotency-key', 'k-2').send({}).expect(200);
      await eventually(() => runs.length === 2);
      await queueDrained(queue);
      expect(runs).to.have.length(2);
      expect(runs[0]).to.include({ callId: 'call-1', attempt: 1 });
      expect(runs[0]?.jobId).to.be.a('string').and.not.equal(runs[1]?.jobId);
    });

    it('answers 25 concurrent calls with one Idempotency-Key from one run, each with that run\'s answer (lastNode)', async () => {
      const { app, runs } = await serve({ responseMode: 'lastNode' }, { idempotencyHeader: true });
      const answers = await Promise.all(Array.from({ length: 25 }, () => request(app).post(`${BASE}/webhook/in`).set('idempotency-key', 'burst').send({ order: 1 })));
      expect(answers.map((answer) => answer.status)).to.deep.equal(Array(25).fill(200));
      expect(new Set(answers.map((answer) => JSON.stringify(answer.body))).size).to.equal(1);
      expect(runs).to.have.length(1);
    });

    it('answers a call that reuses an Idempotency-Key with another body 422 IDEMPOTENCY_KEY_REUSED, and does not run it', async () => {
      const { app, runs } = await serve({ responseMode: 'lastNode' }, { idempotencyHeader: true });
      const first = await request(app).post(`${BASE}/webhook/in`).set('idempotency-key', 'k').send({ amount: 10 }).expect(200);
      const other = await request(app).post(`${BASE}/webhook/in`).set('idempotency-key', 'k').send({ amount: 99_999 }).expect(422);
      expect(other.body).to.include({ code: 'IDEMPOTENCY_KEY_REUSED' });
      expect(JSON.stringify(other.body)).not.to.include(JSON.stringify(first.body));
      await request(app).post(`${BASE}/webhook/in`).set('idempotency-key', 'k').send({ amount: 10 }).expect(200, first.body);
      expect(runs).to.have.length(1);
    });

    it('answers 422 IDEMPOTENCY_KEY_REUSED to a call under a used Idempotency-Key whose file differs only in its bytes', async () => {
      const { app, runs } = await serve({ responseMode: 'lastNode' }, { idempotencyHeader: true });
      // The same field, file name, media type and size: only the bytes of the file (held in memory) differ.
      const upload = (bytes: string) => request(app).post(`${BASE}/webhook/in`).set('idempotency-key', 'scan').field('note', 'same')
        .attach('scan', Buffer.from(bytes), { filename: 'scan.txt', contentType: 'text/plain' });
      const first = await upload('AAAA').expect(200);
      const other = await upload('BBBB').expect(422);
      expect(other.body).to.include({ code: 'IDEMPOTENCY_KEY_REUSED' });
      await upload('AAAA').expect(200, first.body);
      expect(runs).to.have.length(1);
    });

    it('runs one of two bodies sent at once under one Idempotency-Key, answering that body\'s callers 200 and the others 422', async () => {
      const { app, runs } = await serve({ responseMode: 'lastNode' }, { idempotencyHeader: true });
      const send = (amount: number) => request(app).post(`${BASE}/webhook/in`).set('idempotency-key', 'race').send({ amount });
      const answers = await Promise.all(Array.from({ length: 20 }, (_, index) => send(index % 2).then((answer) => ({ amount: index % 2, answer }))));
      expect(runs).to.have.length(1);
      const winner = (runs[0]?.items[0]?.json.body as { amount: number }).amount;
      for (const { amount, answer } of answers) {
        if (amount === winner) expect(answer.status).to.equal(200);
        else expect([answer.status, answer.body.code]).to.deep.equal([422, 'IDEMPOTENCY_KEY_REUSED']);
      }
    });

    it('answers concurrent repeats that reach another web instance too, from the same run', async () => {
      const { app, runs } = await serve({ responseMode: 'lastNode' }, { idempotencyHeader: true });
      const registry = new MemoryWebhookRegistry();
      await registry.activate({ workflowId: 'wf', nodes: [{ name: 'Webhook', parameters: { path: 'in', httpMethod: 'POST', responseMode: 'lastNode' } }], settings: { idempotencyHeader: true } });
      const other = setup.app(registry, setup.queue());
      const answers = await Promise.all(Array.from({ length: 10 }, (_, index) => request(index % 2 === 0 ? app : other).post(`${BASE}/webhook/in`).set('idempotency-key', 'two-doors').send({ n: 1 })));
      expect(answers.map((answer) => answer.status)).to.deep.equal(Array(10).fill(200));
      expect(new Set(answers.map((answer) => JSON.stringify(answer.body))).size).to.equal(1);
      expect(runs).to.have.length(1);
    });

    it('runs every call when the workflow names no idempotency header, whatever Idempotency-Key says', async () => {
      const { app, runs } = await serve({});
      await request(app).post(`${BASE}/webhook/in`).set('idempotency-key', 'same').send({}).expect(200);
      await request(app).post(`${BASE}/webhook/in`).set('idempotency-key', 'same').send({}).expect(200);
      await eventually(() => runs.length === 2);
    });
  });
}
