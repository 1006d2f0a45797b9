import type { IncomingMessage } from 'node:http';
import { expect } from 'chai';
import request from 'supertest';
import { createWebhookMiddleware, MemoryWebhookRegistry } from '../../../lib/index.js';
import { BASE, HOSTS } from '../../support/apps.js';
import { recordingExecutor, workflow } from '../../support/workflows.js';
import { listen, pipelined } from '../../support/raw-http.js';
import { prefixEnd, readRequestTarget, requestMountPath, type Prefixes } from '../../../lib/webhooks/request/target.js';

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

describe('reading the request target', () => {
  const prefixes: Prefixes = { production: 'webhook', test: 'webhook-test', waiting: 'webhook-waiting' };
  const read = (url: string, originalUrl?: string): ReturnType<typeof readRequestTarget> =>
    readRequestTarget({ url, ...(originalUrl === undefined ? {} : { originalUrl }) } as unknown as IncomingMessage, prefixes);

  it('splits the path after the prefix from the query string, once', () => {
    expect(read('/webhook/orders/new?a=1&b=2')).to.deep.equal({ kind: 'production', rawPath: 'orders/new', search: 'a=1&b=2', mountPath: '' });
    expect(read('/webhook/x?')).to.deep.include({ rawPath: 'x', search: '' });
    expect(read('/webhook/x')).to.deep.include({ rawPath: 'x', search: '' });
    expect(read('/webhook')).to.deep.include({ kind: 'production', rawPath: '' });
    expect(read('/webhook?x=1')).to.deep.include({ kind: 'production', rawPath: '', search: 'x=1' });
  });

  it('tells production, test and resume addresses apart though their prefixes begin alike', () => {
    expect(read('/webhook-test/a')).to.deep.include({ kind: 'test', rawPath: 'a' });
    expect(read('/webhook-waiting/w1')).to.deep.include({ kind: 'waiting', rawPath: 'w1' });
    expect(read('/Webhook-Waiting/W1')).to.deep.include({ kind: 'waiting', rawPath: 'W1' });
  });

  it('leaves every other path to the host: a prefix only begun, run on, misspelt, or without the leading slash', () => {
    for (const url of ['/', '/w', '/webhoo', '/webhooks/a', '/webhookx', '/webhooc/a', '/xebhook/a', 'webhook/a', '/api/webhook/a', '/webhook-tests/a']) {
      expect(read(url), url).to.equal(undefined);
    }
  });

  it('finds where a host mounted the middleware from originalUrl, the mount path itself included', () => {
    expect(read('/webhook/x?q=1', '/api/automation/webhook/x?q=1')).to.deep.include({ mountPath: '/api/automation' });
    expect(read('/webhook/x', '/webhook/x')).to.deep.include({ mountPath: '' });
    const mounted = (url: string, originalUrl?: string): string =>
      requestMountPath({ url, ...(originalUrl === undefined ? {} : { originalUrl }) } as unknown as IncomingMessage);
    expect(mounted('/', '/admin/webhooks')).to.equal('/admin/webhooks');
    expect(mounted('/?tab=calls', '/admin/webhooks?tab=calls')).to.equal('/admin/webhooks');
    expect(mounted('/calls?x=1', '/admin/webhooks/calls?x=1')).to.equal('/admin/webhooks');
    expect(mounted('/calls')).to.equal('');
    // A rewritten URL that is no tail of the original gives no mount path rather than a wrong one.
    expect(mounted('/elsewhere', '/admin/webhooks/calls')).to.equal('');
  });
});

describe('where a prefix ends in a URL, read in place', () => {
  it('folds the case of letters only: "~" is not "^", though the two differ in the bit that tells a letter\'s cases apart', () => {
    expect(prefixEnd('/test~hooks/x', 0, 13, 'test~hooks')).to.equal(11);
    expect(prefixEnd('/TEST~Hooks/x', 0, 13, 'test~hooks')).to.equal(11);
    expect(prefixEnd('/test^hooks/x', 0, 13, 'test~hooks')).to.equal(-1);
    expect(prefixEnd('/web@hook', 0, 9, 'web`hook')).to.equal(-1);
  });

  it('takes the prefix itself or a path below it, from any offset and up to the query only', () => {
    const url = '/v1/webhook?to=/webhook/x';
    expect(prefixEnd(url, 3, url.indexOf('?'), 'webhook')).to.equal(11);
    expect(prefixEnd('/v1/webhooks', 3, 12, 'webhook')).to.equal(-1);
    expect(prefixEnd('/v1/webhook/orders', 3, 18, 'webhook')).to.equal(11);
    expect(prefixEnd('/v1/web', 3, 7, 'webhook')).to.equal(-1);
    expect(prefixEnd('webhook/x', 0, 9, 'webhook')).to.equal(-1);
  });
});

/**
 * The target of each request read from a real IncomingMessage on a node:http server, several requests pipelined on
 * one connection (the unit specs above hand-build the request): each run gets its own path parameters and query.
 */
describe('reading the request target on a real node:http server, requests pipelined on one connection', () => {
  it('gives each pipelined request its own path parameters and query, in the order they were sent', async () => {
    const registry = new MemoryWebhookRegistry();
    await registry.activate(workflow('wf', { path: 'orders/:id', httpMethod: 'GET', responseMode: 'lastNode' }));
    const middleware = createWebhookMiddleware(registry, (run) => ({ items: [{ json: { params: run.items[0]?.json.params, query: run.items[0]?.json.query } }] }), {
      publicUrl: 'https://hooks.example.com',
    });
    const running = await listen((req, res) => middleware(req, res, () => { res.statusCode = 404; res.end(); }));
    try {
      const get = (target: string): string => `GET ${target} HTTP/1.1\r\nHost: x\r\n\r\n`;
      const answers = await pipelined(running.port, [get('/webhook/orders/1?page=2'), get('/WEBHOOK/orders/two%20words?tag=a&tag=b'), get('/webhook/orders/3')]);
      const bodies = answers.map((answer) => answer.body);
      expect(bodies).to.deep.equal([
        { params: { id: '1' }, query: { page: '2' } },
        { params: { id: 'two words' }, query: { tag: ['a', 'b'] } },
        { params: { id: '3' }, query: {} },
      ]);
    } finally {
      await running.close();
    }
  });
});
