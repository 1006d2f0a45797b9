import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import { createWebhookMiddleware, MemoryWebhookRegistry } from '../../../lib/index.js';
import { BASE, HOSTS } from '../../support/apps.js';
import { send } from '../../support/raw-http.js';
import { recordingExecutor, workflow } from '../../support/workflows.js';

for (const host of HOSTS) {
  describe(`the trigger item in ${host.name}`, () => {
    let registry: MemoryWebhookRegistry;
    let recorder: ReturnType<typeof recordingExecutor>;
    let app: ReturnType<(typeof HOSTS)[number]['build']>;

    beforeEach(async () => {
      registry = new MemoryWebhookRegistry();
      recorder = recordingExecutor();
      app = host.build(createWebhookMiddleware(registry, recorder.executor, { limits: { bodySize: 1024 } }));
      await registry.activate(workflow('wf', { path: 'in', multipleMethods: true, responseMode: 'lastNode' }));
    });

    it('holds headers, params, query, body, webhookUrl and executionMode', async () => {
      await request(app).post(`${BASE}/webhook/in?x=1`).set('X-Api-Key', 'k1').send({ a: 1 }).expect(200);
      const item = recorder.runs[0]?.items[0];
      expect(item).to.have.all.keys('json');
      expect(item?.json).to.have.all.keys('headers', 'params', 'query', 'body', 'webhookUrl', 'executionMode');
      expect(item?.json.headers).to.include({ 'x-api-key': 'k1', 'content-type': 'application/json' });
      expect(item?.json).to.deep.include({ params: {}, query: { x: '1' }, body: { a: 1 }, executionMode: 'production' });
      expect(item?.json.webhookUrl).to.match(/^http:\/\/127\.0\.0\.1:\d+\/api\/automation\/webhook\/in$/);
    });

    it('parses nested and repeated query keys as the known platform does', async () => {
      const res = await request(app).get(`${BASE}/webhook/in?a=1&a=2&b[c]=3&d`).expect(200);
      expect(res.body.query).to.deep.equal({ a: ['1', '2'], b: { c: '3' }, d: '' });
    });

    it('keeps prototype keys in the query string from reaching any prototype', async () => {
      const res = await request(app).get(`${BASE}/webhook/in?__proto__[polluted]=1&constructor[prototype][polluted]=1`).expect(200);
      expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
      expect(res.body.query).to.not.have.property('polluted');
    });

    it('gives an empty object as body when the call has none', async () => {
      const res = await request(app).get(`${BASE}/webhook/in`).expect(200);
      expect(res.body.body).to.deep.equal({});
    });

    for (const type of ['application/json', 'application/json; charset=utf-8', 'application/vnd.api+json', 'application/merge-patch+json; charset="UTF-8"']) {
      it(`parses a ${type} body`, async () => {
        const res = await request(app).post(`${BASE}/webhook/in`).set('content-type', type).send('{"n":[1,2]}').expect(200);
        expect(res.body.body).to.deep.equal({ n: [1, 2] });
      });
    }

    it('decodes a JSON body in another charset and strips a byte order mark', async () => {
      const latin1 = Buffer.from('{"name":"Zoë"}', 'latin1');
      let res = await send(app, { path: `${BASE}/webhook/in`, headers: { 'content-type': 'application/json; charset=iso-8859-1' }, chunks: [latin1] });
      expect(res.body).to.deep.include({ body: { name: 'Zoë' } });
      res = await send(app, { path: `${BASE}/webhook/in`, headers: { 'content-type': 'application/json' }, chunks: [Buffer.from('\ufeff{"bom":true}')] });
      expect(res.body).to.deep.include({ body: { bom: true } });
    });

    it('answers 400 with a JSON error for a malformed JSON body, and keeps serving', async () => {
      const res = await request(app).post(`${BASE}/webhook/in`).set('content-type', 'application/json').send('{"a":').expect(400);
      expect(res.body.code).to.equal('BODY_INVALID_JSON');
      expect(res.body.message).to.equal('Failed to parse the request body as JSON.');
      expect(res.body.hint).to.be.a('string');
      expect(recorder.runs).to.have.length(0);
      await request(app).post(`${BASE}/webhook/in`).send({ ok: true }).expect(200);
    });

    it('answers 415 for a charset it cannot decode', async () => {
      const res = await request(app).post(`${BASE}/webhook/in`).set('content-type', 'application/json; charset=klingon').send('{}').expect(415);
      expect(res.body.code).to.equal('BODY_UNSUPPORTED_CHARSET');
    });

    it('answers 413 naming the limit when the body is larger than limits.bodySize', async () => {
      const res = await request(app).post(`${BASE}/webhook/in`).send({ big: 'x'.repeat(2000) }).expect(413);
      expect(res.body.code).to.equal('LIMIT_BODY_SIZE');
      expect(res.body.message).to.include('1024 bytes');
      expect(recorder.runs).to.have.length(0);
    });

    it('answers 413 for a chunked body that grows past the limit', async () => {
      const chunks = ['{"big":"', ...Array.from({ length: 10 }, () => 'y'.repeat(500)), '"}'];
      const res = await send(app, { path: `${BASE}/webhook/in`, headers: { 'content-type': 'application/json' }, chunks });
      expect(res.status).to.equal(413);
      expect(res.body).to.include({ code: 'LIMIT_BODY_SIZE' });
    });
  });
}

describe('the trigger item behind a host body parser', () => {
  it('uses the body the host parsed already', async () => {
    const registry = new MemoryWebhookRegistry();
    const recorder = recordingExecutor();
    await registry.activate(workflow('wf', { path: 'in', httpMethod: 'POST', responseMode: 'lastNode' }));
    const app = express();
    app.use(express.json());
    app.use(createWebhookMiddleware(registry, recorder.executor, { publicUrl: 'https://hooks.example.com/base/' }));
    const res = await request(app).post('/webhook/in').send({ parsed: 'by host' }).expect(200);
    expect(res.body.body).to.deep.equal({ parsed: 'by host' });
    expect(res.body.webhookUrl).to.equal('https://hooks.example.com/base/webhook/in');
  });
});
