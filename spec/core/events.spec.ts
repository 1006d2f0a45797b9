import { expect } from 'chai';
import request from 'supertest';
import { createWebhookMiddleware, MemoryWebhookRegistry, type WebhookEvent, type WebhookExecutor } from '../../lib/index.js';
import { BASE, HOSTS } from '../support/apps.js';
import { eventually } from '../support/temp-dir.js';
import { workflow } from '../support/workflows.js';

for (const host of HOSTS) {
  describe(`lifecycle events in ${host.name}`, () => {
    let events: WebhookEvent[];
    let executor: WebhookExecutor;
    let app: ReturnType<(typeof HOSTS)[number]['build']>;

    beforeEach(async () => {
      events = [];
      const registry = new MemoryWebhookRegistry();
      await registry.activate(workflow('wf', { path: 'e', httpMethod: 'POST', responseMode: 'lastNode' }));
      app = host.build(createWebhookMiddleware(registry, (run) => executor(run), {
        onEvent: (event) => events.push(event),
        onWorkflowError: () => undefined,
        responseTimeoutMs: 40,
      }));
    });

    const types = () => events.map((event) => event.type);

    it('reports received, started, executed and responded for a call that succeeds, with one callId and growing durations', async () => {
      executor = async () => ({ items: [{ json: {} }, { json: {} }] });
      await request(app).post(`${BASE}/webhook/e`).expect(200);
      await eventually(() => types().includes('responded'));
      expect(types()).to.deep.equal(['received', 'started', 'executed', 'responded']);
      expect(new Set(events.map((event) => event.callId)).size).to.equal(1);
      expect(events[2]).to.include({ workflowId: 'wf', nodeName: 'Webhook', mode: 'production', items: 2 });
      expect(events[3]).to.include({ status: 200, completed: true });
      const durations = events.map((event) => event.durationMs);
      expect(durations).to.deep.equal([...durations].sort((a, b) => a - b));
    });

    it('reports rejected with the code when no workflow runs', async () => {
      await request(app).get(`${BASE}/webhook/e`).expect(405);
      await eventually(() => types().includes('responded'));
      expect(types()).to.deep.equal(['received', 'rejected', 'responded']);
      expect(events[1]).to.include({ code: 'WEBHOOK_METHOD_NOT_ALLOWED', status: 405 });
    });

    it('reports failed with the error when the workflow throws', async () => {
      executor = async () => { throw new Error('nope'); };
      await request(app).post(`${BASE}/webhook/e`).expect(500);
      await eventually(() => types().includes('responded'));
      expect(types()).to.deep.equal(['received', 'started', 'failed', 'responded']);
      expect(events[2]?.type === 'failed' && events[2].error.code).to.equal('WORKFLOW_FAILED');
    });

    it('reports timedOut when the deadline passes', async () => {
      executor = () => new Promise(() => undefined);
      await request(app).post(`${BASE}/webhook/e`).expect(524);
      await eventually(() => types().includes('responded'));
      expect(types()).to.deep.equal(['received', 'started', 'timedOut', 'responded']);
    });

    it('ignores a listener that throws', async () => {
      const registry = new MemoryWebhookRegistry();
      await registry.activate(workflow('wf', { path: 'e', httpMethod: 'POST', responseMode: 'lastNode' }));
      const throwing = host.build(createWebhookMiddleware(registry, async () => ({ items: [{ json: { fine: true } }] }), {
        onEvent: () => { throw new Error('listener bug'); },
      }));
      await request(throwing).post(`${BASE}/webhook/e`).expect(200, { fine: true });
    });
  });
}
