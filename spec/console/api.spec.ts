/**
 * What the console shows, over its HTTP API: every active address with its guards and full URL, a test listen that
 * captures a real call (files downloadable, credentials redacted, a curl line that sends it again), and recent
 * calls that arrive live with their error codes. In Express 5, Express 4 and Connect.
 */
import { expect } from 'chai';
import type { CallListing, CallRecord, ListenSnapshot, WebhookListing, WebhookRow, WorkflowListing } from '../../lib/console/index.js';
import { CONSOLE_HOSTS, startConsoleApp, WEBHOOK_BASE, CONSOLE_WORKFLOWS, type ConsoleApp } from '../support/console-app.js';
import { consoleSession, type ConsoleSession } from '../support/console-session.js';
import { webhookBaseOf } from '../../lib/console/server/api-routes.js';

function row(listing: WebhookListing, kind: string, workflowId: string): WebhookRow {
  const found = listing.webhooks.find((one) => one.kind === kind && one.workflowId === workflowId);
  if (found === undefined) throw new Error(`no ${kind} row of ${workflowId} in ${JSON.stringify(listing.webhooks.map((one) => `${one.kind} ${one.workflowId}`))}`);
  return found;
}

for (const host of CONSOLE_HOSTS) {
  describe(`the console's API in ${host}`, () => {
    let app: ConsoleApp;
    let page: ConsoleSession;
    beforeEach(async () => {
      app = await startConsoleApp({ host });
      page = await consoleSession(app);
    });
    afterEach(() => app?.close());

    it('lists production, test and waiting addresses with their full URL, methods, response mode and guards, naming credentials only', async () => {
      const draft = CONSOLE_WORKFLOWS.find((one) => one.workflowId === 'draft');
      const listen = await app.registry.listenForTest(draft!, { timeoutMs: 30_000 });
      const suspended = await fetch(`${app.origin}${WEBHOOK_BASE}/webhook/approve`, { method: 'POST' });
      expect(suspended.status).to.equal(200);
      const listing = await page.get<WebhookListing>('/api/webhooks');
      expect(listing.unlisted).to.deep.equal([]);

      expect(row(listing, 'production', 'status')).to.deep.include({
        methods: ['GET', 'PUT'], path: 'orders/:orderId', url: `${app.origin}${WEBHOOK_BASE}/webhook/orders/:orderId`, responseMode: 'lastNode',
      });
      const partner = row(listing, 'production', 'partner');
      expect(partner.guards).to.deep.equal({
        authentication: 'headerAuth', credentials: ['Partner API key'], ipAllowlist: '127.0.0.1, 10.0.0.0/8',
        allowedOrigins: 'https://partner.example.com', ignoreBots: true,
      });
      expect(JSON.stringify(listing)).not.to.include('"id":"7"');
      const test = row(listing, 'test', 'draft');
      expect(test.url).to.equal(`${app.origin}${WEBHOOK_BASE}/webhook-test/signup`);
      expect(test.expiresAt).to.equal(listen.expiresAt);
      const waiting = row(listing, 'waiting', 'approval');
      expect(waiting.url).to.match(new RegExp(`^${app.origin}${WEBHOOK_BASE}/webhook-waiting/[\\w-]{22}$`));
      expect(waiting).to.deep.include({ form: 'suspended', methods: ['POST'], responseMode: 'onReceived' });
      expect(waiting.guards.signed).to.equal(true);
      expect(JSON.stringify(listing)).not.to.include('signature=');
      expect(listing.webhooks.filter((one) => one.kind === 'production')).to.have.length(5);
      await listen.cancel();
    });

    it('listens for a test event and shows the captured call: files to download, credentials redacted, a curl line that sends it again', async () => {
      const stream = await page.events();
      const started = await page.post('/api/workflows/draft/listen', { timeoutMs: 20_000 });
      expect(started.status).to.equal(201);
      const workflows = await page.get<WorkflowListing>('/api/workflows');
      const testUrl = workflows.workflows.find((one) => one.workflowId === 'draft')?.nodes[0]?.testUrls[0];
      expect(testUrl).to.deep.equal({ methods: ['POST'], url: `${app.origin}${WEBHOOK_BASE}/webhook-test/signup` });

      const form = new FormData();
      form.append('name', 'Ada');
      form.append('avatar', new Blob([Buffer.from('PNGDATA-1234')], { type: 'image/png' }), 'ada.png');
      const call = await fetch(`${testUrl!.url}?source=spec`, { method: 'POST', body: form, headers: { authorization: 'Bearer s3cr3t', 'x-trace': 't-1' } });
      expect(call.status).to.equal(200);

      const ended = await stream.next<ListenSnapshot>('listen', (event) => event.listen.state === 'ended');
      stream.close();
      if (ended.listen.state !== 'ended' || ended.listen.run === undefined) throw new Error('no run');
      const { run } = ended.listen;
      const json = run.trigger[0]?.json as { headers: Record<string, string>; body: unknown; query: unknown };
      expect(json.headers.authorization).to.equal('[redacted]');
      expect(json.headers['x-trace']).to.equal('t-1');
      expect(json.body).to.deep.equal({ name: 'Ada' });
      expect(JSON.stringify(ended)).not.to.include('s3cr3t');
      const file = run.trigger[0]?.binary?.avatar;
      expect(file, JSON.stringify(run.trigger[0]?.binary)).to.deep.include({ fileName: 'ada.png', mimeType: 'image/png', bytes: 12 });
      const download = await fetch(`${app.origin}/admin/webhooks/${file!.download}`);
      expect(download.status).to.equal(200);
      expect(download.headers.get('content-disposition')).to.equal('attachment; filename=ada.png');
      expect(download.headers.get('content-type')).to.equal('application/octet-stream');
      expect(Buffer.from(await download.arrayBuffer()).toString()).to.equal('PNGDATA-1234');
      expect(run.curl).to.include(`curl -X POST '${app.origin}${WEBHOOK_BASE}/webhook-test/signup?source=spec'`);
      expect(run.curl).to.include("-H 'authorization: <authorization>'");
      expect(run.curl).to.include("--form-string 'name=Ada'").and.to.include("-F 'avatar=@<path to ada.png>;type=image/png'");
      expect(run.output?.items[0]?.json, JSON.stringify(run)).to.deep.equal({ received: { name: 'Ada' } });
    });

    it('shows a failing call in recent calls as it is answered, with its status, code and call id, live and on reload', async () => {
      const stream = await page.events();
      const failed = await fetch(`${app.origin}${WEBHOOK_BASE}/webhook/fails`, { method: 'POST', headers: { 'x-request-id': 'req-fail-1' } });
      expect(failed.status).to.equal(500);
      // Pushed on the event stream, not found by polling: how soon is bench's business, not this spec's.
      const live = await stream.next<{ call: CallRecord }>('call', (event) => event.call.callId === 'req-fail-1', 4000);
      expect(live.call).to.deep.include({
        method: 'POST', path: '/webhook/fails', route: '/webhook/fails', status: 500, code: 'WORKFLOW_FAILED', workflowId: 'failing',
        workflowName: 'Always fails', mode: 'production',
      });
      expect(live.call.message).not.to.include('CRM');
      await fetch(`${app.origin}${WEBHOOK_BASE}/webhook/nowhere?token=abc`, { method: 'POST', headers: { 'x-request-id': 'req-404' } });
      const missing = await stream.next<{ call: CallRecord }>('call', (event) => event.call.callId === 'req-404', 1000);
      expect(missing.call).to.deep.include({ path: '/webhook/nowhere', status: 404, code: 'WEBHOOK_NOT_FOUND' });
      stream.close();
      const listing = await page.get<CallListing>('/api/calls');
      expect(listing.calls.map((one) => one.callId).slice(0, 2)).to.deep.equal(['req-404', 'req-fail-1']);
    });
  });
}

describe('where the console says the webhooks are', () => {
  const req = { socket: {}, headers: { host: '127.0.0.1:3000' } } as never;

  it('completes a path with the origin the console was opened at, the root mount included', () => {
    expect(webhookBaseOf(req, '/api/automation')).to.equal('http://127.0.0.1:3000/api/automation');
    expect(webhookBaseOf(req, '')).to.equal('http://127.0.0.1:3000');
  });

  it('keeps a full URL as the host wrote it', () => {
    expect(webhookBaseOf(req, 'https://hooks.example.com/automation')).to.equal('https://hooks.example.com/automation');
  });
});

describe('what the console tells of a signed webhook and of a large captured file', () => {
  let app: ConsoleApp;
  before(async () => {
    app = await startConsoleApp({
      middleware: { credentials: ({ authentication }) => (authentication === 'signatureAuth' ? { scheme: 'github', secret: 'gh-webhook-secret-1' } : undefined) },
      console: { maxCapturedFileBytes: 8 },
    });
    await app.registry.activate({
      workflowId: 'github', workflowName: 'GitHub pushes',
      nodes: [{ name: 'Webhook', parameters: { path: 'github', httpMethod: 'POST', authentication: 'signatureAuth' }, credentials: { signatureAuthApi: { id: '3', name: 'GitHub app' } } }],
    });
  });
  after(() => app?.close());

  it('names a signed node\'s scheme as the credentials resolver gives it, and never its secret', async () => {
    const page = await consoleSession(app);
    const listing = await page.get<WebhookListing>('/api/webhooks');
    expect(row(listing, 'production', 'github').guards).to.deep.equal({
      authentication: 'signatureAuth', credentials: ['GitHub app'], signatureScheme: 'github', ignoreBots: false,
    });
    expect(JSON.stringify(listing)).not.to.include('gh-webhook-secret-1');
  });

  it('describes a captured file larger than maxCapturedFileBytes without keeping it for download', async () => {
    const page = await consoleSession(app);
    const stream = await page.events();
    expect((await page.post('/api/workflows/draft/listen', {})).status).to.equal(201);
    const form = new FormData();
    form.append('small', new Blob([Buffer.from('12345678')], { type: 'text/plain' }), 'small.txt');
    form.append('large', new Blob([Buffer.from('123456789')], { type: 'text/plain' }), 'large.txt');
    expect((await fetch(`${app.origin}${WEBHOOK_BASE}/webhook-test/signup`, { method: 'POST', body: form })).status).to.equal(200);
    const ended = await stream.next<ListenSnapshot>('listen', (event) => event.listen.state === 'ended');
    stream.close();
    const binary = ended.listen.state === 'ended' ? ended.listen.run?.trigger[0]?.binary : undefined;
    expect(binary?.small?.download).to.be.a('string');
    expect(binary?.large).to.deep.include({ fileName: 'large.txt', bytes: 9 });
    expect(binary?.large?.download).to.equal(undefined);
  });
});
