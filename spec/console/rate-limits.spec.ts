/**
 * The console shows an address's rate limit and the calls it refused: over its API, each limited production address
 * lists its policies (a header key by its name, never a value) and how many of the recent calls were refused
 * RATE_LIMITED, and each refused call is a recent call with status 429 and its code.
 */
import { expect } from 'chai';
import { MemoryWebhookRegistry, type WorkflowWebhooks } from '../../lib/index.js';
import type { CallListing, WebhookListing } from '../../lib/console/index.js';
import { startConsoleApp, WEBHOOK_BASE, type ConsoleApp } from '../support/console-app.js';
import { consoleSession, type ConsoleSession } from '../support/console-session.js';

const API_KEY = 'sk_live_console_0123456789abcdef';
const LIMITED: WorkflowWebhooks = {
  workflowId: 'limited', workflowName: 'Limited intake', nodes: [{ name: 'Webhook', parameters: { path: 'limited', httpMethod: 'POST' } }],
  settings: { rateLimit: [{ limit: 2, windowMs: 60_000, key: 'X-Api-Key' }, { limit: 100, windowMs: 3_600_000, key: 'ip', name: 'hourly' }] },
};

describe('the console shows rate limits and their refusals', () => {
  let app: ConsoleApp;
  let page: ConsoleSession;

  beforeEach(async () => {
    const registry = new MemoryWebhookRegistry();
    await registry.activate(LIMITED);
    app = await startConsoleApp({ registry, middleware: { rateLimit: { default: { limit: 50, windowMs: 1000 } } } });
    page = await consoleSession(app);
  });
  afterEach(() => app?.close());

  it('lists each limited production address\'s policies and how many recent calls it refused, none on a test or waiting address, and each refusal as a recent call', async () => {
    const statuses = [];
    for (let call = 0; call < 5; call += 1) {
      statuses.push((await fetch(`${app.origin}${WEBHOOK_BASE}/webhook/limited`, { method: 'POST', headers: { 'x-api-key': API_KEY } })).status);
    }
    expect(statuses).to.deep.equal([200, 200, 429, 429, 429]);
    // A test address of the limited workflow and a waiting address, which no limit applies to.
    const listen = await app.registry.listenForTest(LIMITED, { timeoutMs: 30_000 });
    expect((await fetch(`${app.origin}${WEBHOOK_BASE}/webhook/approve`, { method: 'POST' })).status).to.equal(200);
    const listing = await page.get<WebhookListing>('/api/webhooks');
    const limited = listing.webhooks.find((row) => row.workflowId === 'limited');
    expect(limited?.guards.rateLimits).to.deep.equal([
      { name: 'header-60s', limit: 2, windowMs: 60_000, key: 'header', header: 'x-api-key' },
      { name: 'hourly', limit: 100, windowMs: 3_600_000, key: 'ip' },
    ]);
    expect(limited?.refused).to.equal(3);
    // The middleware's default holds where a workflow sets none: listed, with nothing refused yet.
    const orders = listing.webhooks.find((row) => row.kind === 'production' && row.workflowId === 'orders');
    expect([orders?.guards.rateLimits, orders?.refused]).to.deep.equal([[{ name: 'address-1s', limit: 50, windowMs: 1000, key: 'address' }], 0]);
    const unlimited = listing.webhooks.filter((row) => row.kind !== 'production');
    expect(unlimited.map((row) => [row.kind, row.workflowId, row.guards.rateLimits]).sort()).to.deep.equal([
      ['test', 'limited', undefined], ['waiting', 'approval', undefined],
    ]);
    await listen.cancel();
    const calls = await page.get<CallListing>('/api/calls');
    const refused = calls.calls.filter((call) => call.code === 'RATE_LIMITED');
    expect(refused.map((call) => [call.status, call.workflowId, call.route])).to.deep.equal(Array(3).fill([429, 'limited', '/webhook/limited']));
    expect(JSON.stringify(listing) + JSON.stringify(calls)).to.not.include(API_KEY);
  });
});
