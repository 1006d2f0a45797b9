import { expect } from 'chai';
import { createServer, type RequestListener, type Server } from 'node:http';
import connect from 'connect';
import express from 'express';
import request from 'supertest';
import { createWebhookMiddleware, MemoryWebhookRegistry, type WebhookMiddleware } from '../../../lib/index.js';
import { recordingExecutor, workflow } from '../../support/workflows.js';

/** An existing Express app: a route of its own, and a header every answer of it carries. */
function expressApp(): express.Express {
  const app = express();
  app.use((_req, res, next) => { res.setHeader('x-app', 'seen'); next(); });
  app.get('/api/orders', (_req, res) => { res.json([{ id: 1 }]); });
  return app;
}

/** The two servers of docs/hosts.md "In front of Express": each request is the middleware's first, the app's after. */
const FRONTS: { name: string; base: string; build(webhooks: WebhookMiddleware): RequestListener }[] = [
  {
    name: 'a bare node:http handler, addresses at the root',
    base: '',
    build(webhooks) {
      const app = expressApp();
      return (req, res) => { webhooks(req, res, () => { app(req, res); }); };
    },
  },
  {
    name: 'Connect, the middleware under a base path',
    base: '/api/automation',
    build(webhooks) {
      const front = connect();
      front.use('/api/automation', webhooks);
      front.use(expressApp());
      return front as unknown as RequestListener;
    },
  },
];

for (const front of FRONTS) {
  describe(`the middleware in front of an Express app: ${front.name}`, () => {
    let server: Server;
    let recorder: ReturnType<typeof recordingExecutor>;

    beforeEach(async () => {
      const registry = new MemoryWebhookRegistry();
      recorder = recordingExecutor();
      server = createServer(front.build(createWebhookMiddleware(registry, recorder.executor)));
      await registry.activate(workflow('wf-orders', { path: 'orders', httpMethod: 'POST', responseMode: 'lastNode' }));
    });

    it('answers a webhook call itself, before Express sees it, with its address as the sender called it', async () => {
      const res = await request(server).post(`${front.base}/webhook/orders`).send({ id: 7 }).expect(200);
      expect(res.body).to.include({ executionMode: 'production' });
      expect(res.body.webhookUrl).to.match(new RegExp(`^http://127\\.0\\.0\\.1:\\d+${front.base}/webhook/orders$`));
      expect(res.headers).not.to.have.property('x-app');
      expect(res.headers).not.to.have.property('x-powered-by');
      expect(recorder.runs).to.have.length(1);
    });

    it('hands every other request to the app, which answers it as before', async () => {
      const res = await request(server).get('/api/orders').expect(200).expect('x-app', 'seen').expect('x-powered-by', 'Express');
      expect(res.body).to.deep.equal([{ id: 1 }]);
      await request(server).get(`${front.base}/elsewhere`).expect(404).expect('x-app', 'seen');
      expect(recorder.runs).to.have.length(0);
    });

    it('answers an unknown address under its prefix with its own JSON 404, not the app\'s page', async () => {
      const res = await request(server).post(`${front.base}/webhook/nothing-here`).expect(404).expect('content-type', /application\/json/);
      expect(res.body.code).to.equal('WEBHOOK_NOT_FOUND');
      expect(res.headers).not.to.have.property('x-app');
    });
  });
}
