import { expect } from 'chai';
import request from 'supertest';
import { createWebhookMiddleware, MemoryWebhookRegistry } from '../../../lib/index.js';
import { BASE, HOSTS } from '../../support/apps.js';
import { recordingExecutor, workflow } from '../../support/workflows.js';

for (const host of HOSTS) {
  describe(`the webhook prefixes in ${host.name}`, () => {
    it('match in any letter case, as an Express mount does, while the path after them keeps its case', async () => {
      const registry = new MemoryWebhookRegistry();
      await registry.activate(workflow('wf', { path: 'Orders/new', httpMethod: 'POST' }));
      await registry.listenForTest(workflow('wf', { path: 'Orders/new', httpMethod: 'POST' }));
      const { executor, runs } = recordingExecutor();
      const app = host.build(createWebhookMiddleware(registry, executor));
      await request(app).post(`${BASE}/WEBHOOK/Orders/new`).expect(200);
      await request(app).post(`${BASE}/Webhook-Test/Orders/new`).expect(200);
      const res = await request(app).post(`${BASE}/webhook/orders/new`).expect(404);
      expect(res.body.code).to.equal('WEBHOOK_NOT_FOUND');
      // The address a run reports is the node's own, in the prefix's own case.
      expect(runs.map((run) => [run.mode, new URL(String(run.items[0]?.json.webhookUrl)).pathname])).to.deep.equal([
        ['production', `${BASE}/webhook/Orders/new`],
        ['test', `${BASE}/webhook-test/Orders/new`],
      ]);
    });

    it('leave paths that only begin like a prefix to the host', async () => {
      const registry = new MemoryWebhookRegistry();
      await registry.activate(workflow('wf', { path: 'x', httpMethod: 'GET' }));
      const app = host.build(createWebhookMiddleware(registry, recordingExecutor().executor));
      const res = await request(app).get(`${BASE}/WEBHOOKS/x`);
      expect(res.status).to.equal(404);
      expect(res.body?.code).to.equal(undefined);
    });
  });
}
