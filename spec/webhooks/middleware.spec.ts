import { expect } from 'chai';
import request from 'supertest';
import { createWebhookMiddleware, MemoryWebhookRegistry, WebhookError } from '../../lib/index.js';
import { BASE, HOSTS } from '../support/apps.js';
import { recordingExecutor, workflow } from '../support/workflows.js';

for (const host of HOSTS) {
  describe(`createWebhookMiddleware() in ${host.name}`, () => {
    let registry: MemoryWebhookRegistry;
    let recorder: ReturnType<typeof recordingExecutor>;
    let app: ReturnType<Host['build']>;

    beforeEach(async () => {
      registry = new MemoryWebhookRegistry();
      recorder = recordingExecutor();
      app = host.build(createWebhookMiddleware(registry, recorder.executor));
      await registry.activate(workflow('wf-orders', { path: 'orders', httpMethod: 'POST', responseMode: 'lastNode' }));
    });

    it('serves a production webhook under the mount path of the host', async () => {
      const res = await request(app).post(`${BASE}/webhook/orders`).send({ id: 7 }).expect(200);
      expect(res.body).to.include({ executionMode: 'production' });
      expect(recorder.runs).to.have.length(1);
      expect(recorder.runs[0]).to.include({ workflowId: 'wf-orders', nodeName: 'Webhook', mode: 'production', method: 'POST', outputIndex: 0 });
    });

    it('leaves requests outside the webhook prefix to the host', async () => {
      const res = await request(app).get('/api/orders').expect(200);
      expect(res.body).to.deep.equal([{ id: 1 }]);
      await request(app).get(`${BASE}/webhooks/orders`).expect(404);
      expect(recorder.runs).to.have.length(0);
    });

    it('answers 404 with the platform text and a hint when no webhook has the path', async () => {
      const res = await request(app).post(`${BASE}/webhook/nothing-here`).expect(404).expect('content-type', /application\/json/);
      expect(res.body.code).to.equal('WEBHOOK_NOT_FOUND');
      expect(res.body.message).to.equal('The requested webhook "POST nothing-here" is not registered.');
      expect(res.body.hint).to.match(/workflow must be active/);
    });

    it('answers 404 for the bare prefix', async () => {
      const res = await request(app).get(`${BASE}/webhook`).expect(404);
      expect(res.body.code).to.equal('WEBHOOK_NOT_FOUND');
    });

    it('answers 405 with Allow when the path is registered for another method', async () => {
      const res = await request(app).get(`${BASE}/webhook/orders`).expect(405);
      expect(res.headers.allow).to.equal('POST');
      expect(res.body).to.deep.equal({
        code: 'WEBHOOK_METHOD_NOT_ALLOWED',
        message: 'This webhook is not registered for GET requests. Did you mean to make a POST request?',
      });
      expect(recorder.runs).to.have.length(0);
    });

    it('lists every method of the path in the 405 text and the Allow header', async () => {
      await registry.activate(workflow('wf-multi', { path: 'multi', multipleMethods: true, httpMethod: ['GET', 'POST', 'PUT'] }));
      const res = await request(app).delete(`${BASE}/webhook/multi`).expect(405);
      expect(res.headers.allow).to.equal('GET, POST, PUT');
      expect(res.body.message).to.equal('This webhook is not registered for DELETE requests. Did you mean to make a GET, POST or PUT request?');
    });

    it('ignores a trailing slash and matches the method whatever its case in the node', async () => {
      await registry.activate(workflow('wf-slash', { path: '/hooks/slash/', httpMethod: 'put' }));
      await request(app).put(`${BASE}/webhook/hooks/slash/`).expect(200);
      expect(recorder.runs.at(-1)?.method).to.equal('PUT');
    });

    it('puts the values of dynamic path segments into params', async () => {
      await registry.activate(workflow('wf-dyn', { path: 'customers/:customerId/orders/:orderId', responseMode: 'lastNode' }));
      const res = await request(app).get(`${BASE}/webhook/customers/c%20one/orders/42`).expect(200);
      expect(res.body.params).to.deep.equal({ customerId: 'c one', orderId: '42' });
    });

    it('prefers a static path over a dynamic one that also matches', async () => {
      await registry.activate(workflow('wf-dyn', { path: 'users/:id', responseMode: 'lastNode' }));
      await registry.activate(workflow('wf-me', { path: 'users/me', responseMode: 'lastNode' }));
      await request(app).get(`${BASE}/webhook/users/me`).expect(200);
      await request(app).get(`${BASE}/webhook/users/42`).expect(200);
      expect(recorder.runs.map((run) => run.workflowId)).to.deep.equal(['wf-me', 'wf-dyn']);
    });

    it('tells the executor the output index of the call\'s method when the node has several', async () => {
      await registry.activate(workflow('wf-multi', { path: 'multi', multipleMethods: true, httpMethod: ['PUT', 'GET', 'POST'] }));
      await request(app).get(`${BASE}/webhook/multi`).expect(200);
      await request(app).post(`${BASE}/webhook/multi`).expect(200);
      await request(app).put(`${BASE}/webhook/multi`).expect(200);
      expect(recorder.runs.map((run) => [run.method, run.outputIndex])).to.deep.equal([['GET', 1], ['POST', 2], ['PUT', 0]]);
    });

    it('accepts GET and POST when multiple methods are on and none are chosen', async () => {
      await registry.activate(workflow('wf-default', { path: 'both', multipleMethods: true }));
      await request(app).get(`${BASE}/webhook/both`).expect(200);
      await request(app).post(`${BASE}/webhook/both`).expect(200);
      const res = await request(app).patch(`${BASE}/webhook/both`).expect(405);
      expect(res.headers.allow).to.equal('GET, POST');
    });

    it('stops serving an address as soon as its workflow is deactivated', async () => {
      await request(app).post(`${BASE}/webhook/orders`).expect(200);
      expect(await registry.deactivate('wf-orders')).to.equal(true);
      const res = await request(app).post(`${BASE}/webhook/orders`).expect(404);
      expect(res.body.code).to.equal('WEBHOOK_NOT_FOUND');
      expect(recorder.runs).to.have.length(1);
    });

    it('answers 400 for a path with bad percent-encoding', async () => {
      const res = await request(app).get(`${BASE}/webhook/bad%E0%A4%A`).expect(400);
      expect(res.body.code).to.equal('REQUEST_INVALID_PATH');
    });

    it('hands errors to the host error handler when errorHandling is next', async () => {
      const seen: unknown[] = [];
      const nextApp = host.build(createWebhookMiddleware(registry, recorder.executor, { errorHandling: 'next' }), (error) => seen.push(error));
      await request(nextApp).get(`${BASE}/webhook/unknown`).expect(599);
      expect(seen).to.have.length(1);
      expect(seen[0]).to.be.instanceOf(WebhookError).and.include({ code: 'WEBHOOK_NOT_FOUND', status: 404 });
    });
  });
}

type Host = (typeof HOSTS)[number];
