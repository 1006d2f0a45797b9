import type { IncomingMessage } from 'node:http';
import { expect } from 'chai';
import request from 'supertest';
import { createWebhookMiddleware, MemoryWebhookRegistry, type WebhookMiddlewareOptions, type WebhookRun } from '../../../lib/index.js';
import { BASE, HOSTS } from '../../support/apps.js';
import { workflow } from '../../support/workflows.js';
import { listen, pipelined } from '../../support/raw-http.js';
import { baseUrlResolver, hostAllowed } from '../../../lib/webhooks/request/host.js';
import { WebhookError } from '../../../lib/core/errors.js';

for (const host of HOSTS) {
  describe(`webhookUrl behind proxies in ${host.name}`, () => {
    let warnings: { fields: Record<string, unknown>; message: string | undefined }[];
    let runs: WebhookRun[];
    const logger = { error: () => undefined, warn: (fields: Record<string, unknown>, message?: string) => { warnings.push({ fields, message }); } };
    beforeEach(() => { warnings = []; runs = []; });

    async function app(options: WebhookMiddlewareOptions): Promise<ReturnType<typeof host.build>> {
      const registry = new MemoryWebhookRegistry();
      await registry.activate(workflow('wf', { path: 'orders' }));
      return host.build(createWebhookMiddleware(registry, async (run) => { runs.push(run); return { items: [] }; }, { logger, ...options }));
    }

    function call(built: ReturnType<typeof host.build>, headers: Record<string, string>): request.Test {
      const made = request(built).get(`${BASE}/webhook/orders`);
      for (const [name, value] of Object.entries(headers)) made.set(name, value);
      return made;
    }

    async function webhookUrl(options: WebhookMiddlewareOptions, headers: Record<string, string>): Promise<unknown> {
      await call(await app(options), headers).expect(200);
      return runs[0]?.items[0]?.json.webhookUrl;
    }

    it('uses the scheme and host a trusted proxy forwarded', async () => {
      expect(await webhookUrl({ proxyHops: 1 }, { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'api.example.com' }))
        .to.equal(`https://api.example.com${BASE}/webhook/orders`);
    });

    it('takes the entry of the outermost trusted proxy from a list', async () => {
      expect(await webhookUrl({ proxyHops: 2 }, { 'x-forwarded-proto': 'http, https, http', 'x-forwarded-host': 'spoofed.example, api.example.com, lb.internal' }))
        .to.equal(`https://api.example.com${BASE}/webhook/orders`);
    });

    it('ignores forwarded headers when no proxy is trusted', async () => {
      expect(await webhookUrl({ proxyHops: 0 }, { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example' }))
        .to.match(new RegExp(`^http://127\\.0\\.0\\.1:\\d+${BASE}/webhook/orders$`));
    });

    it('uses publicUrl whatever Host and forwarded headers say', async () => {
      expect(await webhookUrl({ proxyHops: 1, publicUrl: 'https://hooks.example.com/api/automation' }, { 'x-forwarded-host': 'evil.example', host: 'evil.example' }))
        .to.equal('https://hooks.example.com/api/automation/webhook/orders');
    });

    it('never puts a malformed Host into workflow data', async () => {
      expect(await webhookUrl({ proxyHops: 1 }, { 'x-forwarded-host': 'a.example/<script>' })).to.equal(`http://localhost${BASE}/webhook/orders`);
    });

    it('warns once, naming publicUrl, when it builds webhookUrl from a Host header nobody checks', async () => {
      const built = await app({});
      await call(built, {}).expect(200);
      expect(warnings).to.deep.equal([]);
      await call(built, { host: 'evil.example' }).expect(200);
      expect(runs[1]?.items[0]?.json.webhookUrl).to.equal(`http://evil.example${BASE}/webhook/orders`);
      await call(built, { host: 'other.example' }).expect(200);
      expect(warnings).to.have.length(1);
      expect(warnings[0]?.message).to.match(/publicUrl/).and.to.match(/allowedHosts/).and.to.match(/evil\.example/);
    });

    it('does not warn when publicUrl, proxyHops or allowedHosts says where callers come from', async () => {
      for (const options of [{ publicUrl: 'https://hooks.example.com' }, { proxyHops: 1 }, { allowedHosts: ['evil.example'] }]) {
        await call(await app(options), { host: 'evil.example' }).expect(200);
      }
      expect(warnings).to.deep.equal([]);
    });

    it('refuses a call addressed to a host outside allowedHosts with 421 HOST_NOT_ALLOWED, before its workflow runs', async () => {
      const built = await app({ allowedHosts: ['api.example.com', '*.hooks.example.com', 'local.test:8080'] });
      const refused = await call(built, { host: 'evil.example' }).expect(421);
      expect(refused.body.code).to.equal('HOST_NOT_ALLOWED');
      await call(built, { host: 'hooks.example.com' }).expect(421);
      await call(built, { host: 'local.test:9090' }).expect(421);
      expect(runs).to.have.length(0);
      await call(built, { host: 'API.example.com' }).expect(200);
      await call(built, { host: 'eu.hooks.example.com:443' }).expect(200);
      await call(built, { host: 'local.test:8080' }).expect(200);
      expect(runs.map((run) => run.items[0]?.json.webhookUrl)).to.deep.equal([
        `http://API.example.com${BASE}/webhook/orders`,
        `http://eu.hooks.example.com:443${BASE}/webhook/orders`,
        `http://local.test:8080${BASE}/webhook/orders`,
      ]);
    });

    it('checks the forwarded host behind trusted proxies, and still uses publicUrl for webhookUrl when both are set', async () => {
      const built = await app({ proxyHops: 1, allowedHosts: ['api.example.com'], publicUrl: 'https://hooks.example.com/base' });
      await call(built, { 'x-forwarded-host': 'evil.example', host: 'api.example.com' }).expect(421);
      await call(built, { 'x-forwarded-host': 'api.example.com', host: 'internal:3000' }).expect(200);
      expect(runs[0]?.items[0]?.json.webhookUrl).to.equal('https://hooks.example.com/base/webhook/orders');
    });

    it('refuses a malformed allowedHosts at the factory, naming the option', () => {
      const registry = new MemoryWebhookRegistry();
      for (const allowedHosts of [[], ['https://api.example.com'], ['api.example.com/path'], [42]]) {
        expect(() => createWebhookMiddleware(registry, () => ({ items: [] }), { allowedHosts } as WebhookMiddlewareOptions))
          .to.throw(TypeError, /allowedHosts/);
      }
    });
  });
}

describe('the names a call may address (allowedHosts) and the address a run is given', () => {
  it('matches a wildcard entry to subdomains only, never to the bare name or a look-alike', () => {
    expect(hostAllowed('api.example.com', ['*.example.com'])).to.equal(true);
    expect(hostAllowed('a.b.example.com:8443', ['*.example.com'])).to.equal(true);
    for (const host of ['example.com', 'evilexample.com', 'api.example.com.evil.net', 'a.evil.com', 'xexample.com']) {
      expect(hostAllowed(host, ['*.example.com']), host).to.equal(false);
    }
  });

  it('matches an exact entry in any letter case: without a port any port, with a port that port only', () => {
    expect(hostAllowed('API.Example.com', ['api.example.com'])).to.equal(true);
    expect(hostAllowed('api.example.com:8443', ['api.example.com'])).to.equal(true);
    expect(hostAllowed('api.example.com:8443', ['api.example.com:8443'])).to.equal(true);
    expect(hostAllowed('api.example.com:9000', ['api.example.com:8443'])).to.equal(false);
    expect(hostAllowed('api.example.com.evil.net', ['api.example.com'])).to.equal(false);
    // An IPv6 literal's own colons are not a port.
    expect(hostAllowed('[::1]:80', ['[::1]'])).to.equal(true);
    expect(hostAllowed('[::1]', ['[::2]'])).to.equal(false);
  });

  const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
  const call = (headers: Record<string, string | string[]>, encrypted = false): IncomingMessage =>
    ({ headers, socket: { encrypted } }) as unknown as IncomingMessage;

  it('says https for a call on a TLS socket, and takes the outermost trusted proxy\'s entry from repeated headers', () => {
    const direct = baseUrlResolver({ publicUrl: undefined, proxyHops: 0, allowedHosts: undefined, logger: silent });
    expect(direct(call({ host: 'localhost:3000' }, true), '/api')).to.equal('https://localhost:3000/api');
    expect(direct(call({ host: 'localhost:3000', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example' }), '')).to.equal('http://localhost:3000');
    const behindTwo = baseUrlResolver({ publicUrl: undefined, proxyHops: 2, allowedHosts: undefined, logger: silent });
    // Each proxy appends its own entry; of two trusted hops the caller's is the second from the end.
    const forwardedCall = call({ host: 'internal:8080', 'x-forwarded-host': ['spoofed.example, api.example.com', 'edge.internal'], 'x-forwarded-proto': 'https,http' });
    expect(behindTwo(forwardedCall, '')).to.equal('https://api.example.com');
    // More hops trusted than entries given: the first entry; empty entries do not count.
    const behindFive = baseUrlResolver({ publicUrl: undefined, proxyHops: 5, allowedHosts: undefined, logger: silent });
    expect(behindFive(call({ host: 'internal', 'x-forwarded-host': ' , api.example.com, ', 'x-forwarded-proto': 'ftp' }), '')).to.equal('http://api.example.com');
    expect(behindFive(call({ host: 'internal', 'x-forwarded-host': '' }), '')).to.equal('http://internal');
  });

  it('warns only when nothing says where callers come from, once, and never for a loopback name', () => {
    const warnings: unknown[] = [];
    const logger = { ...silent, warn: (...args: unknown[]) => { warnings.push(args); } };
    const trusting = baseUrlResolver({ publicUrl: undefined, proxyHops: 0, allowedHosts: undefined, logger });
    trusting(call({ host: '127.0.0.1:3000' }), '');
    trusting(call({ host: '[::1]:3000' }), '');
    expect(warnings).to.have.length(0);
    trusting(call({ host: 'api.example.com' }), '');
    trusting(call({ host: 'other.example.com' }), '');
    expect(warnings).to.have.length(1);
    for (const policy of [{ publicUrl: 'https://hooks.example.com', proxyHops: 0, allowedHosts: undefined }, { publicUrl: undefined, proxyHops: 1, allowedHosts: undefined }, { publicUrl: undefined, proxyHops: 0, allowedHosts: ['api.example.com'] }]) {
      baseUrlResolver({ ...policy, logger })(call({ host: 'api.example.com' }), '');
    }
    expect(warnings).to.have.length(1);
  });

  it('answers each call by its own host, mount and scheme, though it keeps the last answer for calls addressed alike', () => {
    const direct = baseUrlResolver({ publicUrl: undefined, proxyHops: 0, allowedHosts: undefined, logger: silent });
    expect(direct(call({ host: 'a.example' }), '/v1')).to.equal('http://a.example/v1');
    expect(direct(call({ host: 'a.example' }), '/v1')).to.equal('http://a.example/v1');
    expect(direct(call({ host: 'b.example' }), '/v1')).to.equal('http://b.example/v1');
    expect(direct(call({ host: 'b.example' }), '/v2')).to.equal('http://b.example/v2');
    expect(direct(call({ host: 'b.example' }, true), '/v2')).to.equal('https://b.example/v2');
    expect(direct(call({ host: 'b.example' }), '/v2')).to.equal('http://b.example/v2');
    const guarded = baseUrlResolver({ publicUrl: undefined, proxyHops: 0, allowedHosts: ['a.example'], logger: silent });
    expect(guarded(call({ host: 'a.example' }), '')).to.equal('http://a.example');
    expect(() => guarded(call({ host: 'evil.example' }), '')).to.throw(WebhookError).with.property('code', 'HOST_NOT_ALLOWED');
    expect(guarded(call({ host: 'a.example' }), '')).to.equal('http://a.example');
  });

  it('checks allowedHosts even when publicUrl is set, and still gives publicUrl', () => {
    const both = baseUrlResolver({ publicUrl: 'https://hooks.example.com', proxyHops: 0, allowedHosts: ['api.example.com'], logger: silent });
    expect(both(call({ host: 'api.example.com' }), '/x')).to.equal('https://hooks.example.com');
    expect(() => both(call({ host: 'evil.example' }), '/x')).to.throw(WebhookError).with.property('code', 'HOST_NOT_ALLOWED');
  });
});

/**
 * The same cases on a real node:http server, several calls pipelined on one connection (the unit specs above
 * hand-build the request and its socket): each call is answered by its own Host, though the resolver keeps the last
 * answer, and repeated X-Forwarded-Host lines reach it as Node joins them.
 */
describe('the address a run is given on a real node:http server, calls pipelined on one connection', () => {
  /** Each answer's status and, from its JSON body, the run's address or the refusal's code. */
  async function answersTo(options: WebhookMiddlewareOptions, heads: string[]): Promise<{ status: number; webhookUrl?: unknown; code?: unknown }[]> {
    const registry = new MemoryWebhookRegistry();
    await registry.activate(workflow('wf', { path: 'orders', httpMethod: 'GET', responseMode: 'lastNode' }));
    const middleware = createWebhookMiddleware(registry, (run) => ({ items: [{ json: { webhookUrl: run.items[0]?.json.webhookUrl } }] }), {
      logger: { error: () => undefined, warn: () => undefined }, ...options,
    });
    const running = await listen((req, res) => middleware(req, res, () => { res.statusCode = 404; res.end(); }));
    try {
      const answers = await pipelined(running.port, heads.map((head) => `GET /webhook/orders HTTP/1.1\r\n${head}\r\n`));
      return answers.map((answer) => ({ status: answer.status, ...answer.body }));
    } finally {
      await running.close();
    }
  }

  it('answers each pipelined call by its own Host, in order, and refuses the one outside allowedHosts', async () => {
    const answers = await answersTo({ allowedHosts: ['a.example', 'b.example'] },
      ['Host: a.example\r\n', 'Host: a.example\r\n', 'Host: b.example\r\n', 'Host: evil.example\r\n', 'Host: a.example\r\n']);
    expect(answers.map((answer) => answer.status)).to.deep.equal([200, 200, 200, 421, 200]);
    expect(answers.map((answer) => answer.webhookUrl ?? answer.code)).to.deep.equal([
      'http://a.example/webhook/orders', 'http://a.example/webhook/orders', 'http://b.example/webhook/orders', 'HOST_NOT_ALLOWED', 'http://a.example/webhook/orders',
    ]);
  });

  it('takes the outermost trusted proxy\'s entry from X-Forwarded-Host sent on several lines, for each pipelined call', async () => {
    const answers = await answersTo({ proxyHops: 2 }, [
      'Host: internal\r\nX-Forwarded-Host: spoofed.example, api.example.com\r\nX-Forwarded-Host: edge.internal\r\nX-Forwarded-Proto: https, http\r\n',
      'Host: internal\r\nX-Forwarded-Host: other.example.com\r\nX-Forwarded-Host: edge.internal\r\n',
    ]);
    expect(answers).to.deep.equal([
      { status: 200, webhookUrl: 'https://api.example.com/webhook/orders' },
      { status: 200, webhookUrl: 'http://other.example.com/webhook/orders' },
    ]);
  });
});
