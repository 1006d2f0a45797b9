/**
 * The console and payload schemas: a test call its schema refuses while the workflow listens is shown on the listen
 * with where and what was expected (the listen goes on and captures the next call that matches), and recent calls
 * list the refusal with its errors. Over the console's HTTP API and event stream.
 */
import { expect } from 'chai';
import type { CallListing, ListenSnapshot } from '../../lib/console/index.js';
import type { WorkflowWebhooks } from '../../lib/index.js';
import { startConsoleApp, WEBHOOK_BASE, type ConsoleApp } from '../support/console-app.js';
import { consoleSession, type ConsoleSession } from '../support/console-session.js';
import { ORDER_JSON_SCHEMA } from '../support/payload-schemas.js';

const CHECKED: WorkflowWebhooks = {
  workflowId: 'checked', workflowName: 'Checked orders',
  nodes: [{ name: 'Order', parameters: { path: 'checked', httpMethod: 'POST', responseMode: 'lastNode' } }],
  schemas: { Order: { body: ORDER_JSON_SCHEMA } },
};

const post = (url: string, body: unknown): Promise<Response> =>
  fetch(url, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });

describe('the console with payload schemas', () => {
  let app: ConsoleApp;
  let page: ConsoleSession;
  beforeEach(async () => {
    app = await startConsoleApp({ console: { workflows: new Map([[CHECKED.workflowId, CHECKED]]) } });
    page = await consoleSession(app);
  });
  afterEach(() => app?.close());

  it('shows a refused test call on the listen with its errors, and the listen captures the next call that matches', async () => {
    const stream = await page.events();
    expect((await page.post('/api/workflows/checked/listen', { timeoutMs: 20_000 })).status).to.equal(201);
    const testUrl = `${app.origin}${WEBHOOK_BASE}/webhook-test/checked`;
    expect((await post(testUrl, { name: 'tea', qty: 'sk_live_secret' })).status).to.equal(422);
    const refused = await stream.next<ListenSnapshot>('listen', (event) => (event.refused ?? null) !== null);
    expect(refused.listen.state).to.equal('listening');
    expect(refused.refused?.nodeName).to.equal('Order');
    expect(refused.refused?.errors.map((error) => error.path)).to.have.members(['/body/name', '/body/qty']);
    expect(JSON.stringify(refused)).not.to.include('sk_live_secret');
    expect((await post(testUrl, { name: 'Tea', qty: 1 })).status).to.equal(200);
    const ended = await stream.next<ListenSnapshot>('listen', (event) => event.listen.state === 'ended');
    stream.close();
    expect(ended.listen.state === 'ended' && ended.listen.status).to.equal('received');
  });

  it('lists the refusal in recent calls with its code and errors', async () => {
    await app.registry.activate(CHECKED);
    expect((await post(`${app.origin}${WEBHOOK_BASE}/webhook/checked`, { qty: 2 })).status).to.equal(422);
    const calls = await page.get<CallListing>('/api/calls');
    const refused = calls.calls.find((call) => call.code === 'PAYLOAD_INVALID');
    expect(refused?.errors).to.deep.equal([{ path: '/body/name', message: 'is required' }]);
    expect(refused?.status).to.equal(422);
  });
});
