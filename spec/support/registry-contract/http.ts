/**
 * The registry contract seen through the middleware: a registry is only useful if the request path serves from it,
 * so every registry also answers real HTTP calls on a bare node:http server.
 */
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWebhookMiddleware, type WebhookRun } from 'workflow-webhooks';
import { workflowOf, type RegistryFixture } from './fixture.js';

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export function describeContractOverHttp(fixture: RegistryFixture): void {
  describe('served by the middleware on node:http', () => {
    let server: Server;
    let origin: string;
    let runs: WebhookRun[];

    beforeEach(async () => {
      runs = [];
      const middleware = createWebhookMiddleware(fixture.registry, async (run) => {
        runs.push(run);
        return { items: [{ json: { echoed: run.items[0]?.json.body } }] };
      }, { onWorkflowError: () => undefined });
      server = createServer((req, res) => middleware(req, res, () => { res.statusCode = 418; res.end(); }));
      origin = await listen(server);
    });
    afterEach(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });

    it('runs the workflow of an active production address, and answers 404 once it is deactivated', async () => {
      await fixture.registry.activate(workflowOf('wf', { path: 'orders/:id', httpMethod: 'POST', responseMode: 'lastNode' }));
      const res = await fetch(`${origin}/webhook/orders/7`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"n":1}' });
      expect([res.status, await res.json()]).to.deep.equal([200, { echoed: { n: 1 } }]);
      expect(runs.map((run) => [run.mode, run.items[0]?.json.params])).to.deep.equal([['production', { id: '7' }]]);
      await fixture.registry.deactivate('wf');
      const gone = await fetch(`${origin}/webhook/orders/7`, { method: 'POST' });
      expect([gone.status, (await gone.json() as { code: string }).code]).to.deep.equal([404, 'WEBHOOK_NOT_FOUND']);
    });

    it('answers 405 with Allow for a known path called with another method', async () => {
      await fixture.registry.activate(workflowOf('wf', { path: 'orders', httpMethod: 'POST' }));
      const res = await fetch(`${origin}/webhook/orders`, { method: 'PUT' });
      expect([res.status, res.headers.get('allow')]).to.deep.equal([405, 'POST']);
    });

    it('runs exactly one of 20 concurrent test calls and hands it to the listener', async () => {
      const handle = await fixture.registry.listenForTest(workflowOf('wf', { path: 'signup', httpMethod: 'POST', responseMode: 'lastNode' }));
      const answers = await Promise.all(Array.from({ length: 20 }, async (_, index) => {
        const res = await fetch(`${origin}/webhook-test/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ index }) });
        return [res.status, ((await res.json()) as { code?: string }).code] as const;
      }));
      expect(answers.filter(([status]) => status === 200)).to.have.length(1);
      expect(answers.filter(([status, code]) => status === 404 && code === 'WEBHOOK_TEST_NOT_LISTENING')).to.have.length(19);
      expect(runs).to.have.length(1);
      const result = await handle.result;
      expect(result.status === 'received' && result.output?.items[0]?.json).to.deep.equal({ echoed: runs[0]?.items[0]?.json.body });
    });
  });
}
