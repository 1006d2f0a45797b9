import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import express from 'express';
import request from 'supertest';
import { createWebhookMiddleware, MemoryWebhookRegistry } from '../../../lib/index.js';
import { recordingExecutor, workflow } from '../../support/workflows.js';

/** The server of docs/hosts.md "In front of Express": each request is the middleware's first, the app's after. */
describe('the middleware in front of an Express app, on the same node:http server', () => {
  let server: Server;
  let recorder: ReturnType<typeof recordingExecutor>;

  beforeEach(async () => {
    const registry = new MemoryWebhookRegistry();
    recorder = recordingExecutor();
    const webhooks = createWebhookMiddleware(registry, recorder.executor);
    const app = express();
    app.use((_req, res, next) => { res.setHeader('x-app', 'seen'); next(); });
    app.get('/api/orders', (_req, res) => { res.json([{ id: 1 }]); });
    server = createServer((req, res) => { webhooks(req, res, () => { app(req, res); }); });
    await registry.activate(workflow('wf-orders', { path: 'orders', httpMethod: 'POST', responseMode: 'lastNode' }));
  });

  it('answers a webhook call itself, before Express sees it', async () => {
    const res = await request(server).post('/webhook/orders').send({ id: 7 }).expect(200);
    expect(res.body).to.include({ executionMode: 'production' });
    expect(res.headers).not.to.have.property('x-app');
    expect(res.headers).not.to.have.property('x-powered-by');
    expect(recorder.runs).to.have.length(1);
  });

  it('hands every other request to the app, which answers it as before', async () => {
    const res = await request(server).get('/api/orders').expect(200).expect('x-app', 'seen').expect('x-powered-by', 'Express');
    expect(res.body).to.deep.equal([{ id: 1 }]);
    expect(recorder.runs).to.have.length(0);
  });

  it('answers an unknown address under its prefix with its own JSON 404, not the app\'s page', async () => {
    const res = await request(server).post('/webhook/nothing-here').expect(404).expect('content-type', /application\/json/);
    expect(res.body.code).to.equal('WEBHOOK_NOT_FOUND');
    expect(res.headers).not.to.have.property('x-app');
  });
});
