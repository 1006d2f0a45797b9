import type { IncomingMessage, ServerResponse } from 'node:http';
import { expect } from 'chai';
import request from 'supertest';
import {
  activationWarnings,
  createWebhookMiddleware,
  MemoryWebhookRegistry,
  type WebhookExecutor,
  type WebhookMiddleware,
  type WebhookMiddlewareOptions,
  type WebhookNodeParameters,
} from '../../../lib/index.js';
import { finalizeResponse, HTML_SANDBOX, OPEN_HEADER_POLICY } from '../../../lib/webhooks/response/finalize.js';
import type { ResolvedWebhookParameters } from '../../../lib/webhooks/registry/contract.js';
import { BASE, HOSTS } from '../../support/apps.js';
import { hostsOf, runModes } from '../../support/queue/run-modes.js';
import { workflow } from '../../support/workflows.js';

/** A host that starts every answer with a session cookie of its own, as express-session or a CSRF guard would. */
function withHostCookie(middleware: WebhookMiddleware): WebhookMiddleware {
  const wrapped = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void): void => {
    res.setHeader('set-cookie', 'host-session=s1; Path=/; HttpOnly');
    middleware(req, res, next);
  };
  return Object.assign(wrapped, { close: middleware.close, settings: middleware.settings, subscribe: middleware.subscribe });
}

for (const mode of runModes('finalize', { onPostgres: true })) for (const host of hostsOf(mode, HOSTS)) {
  describe(`the headers of a successful answer in ${host.name}${mode.suffix}`, () => {
    mode.hooks();
    let registry: MemoryWebhookRegistry;
    let executor: WebhookExecutor;
    let warnings: { fields: Record<string, unknown>; message: string }[];

    function app(options: WebhookMiddlewareOptions = {}): ReturnType<(typeof HOSTS)[number]['build']> {
      const logger = { error: () => undefined, warn: (fields: Record<string, unknown>, message: string) => { warnings.push({ fields, message }); } };
      return host.build(withHostCookie(createWebhookMiddleware(registry, mode.executor((run) => executor(run)), { logger, ...options })));
    }

    async function activate(parameters: Partial<WebhookNodeParameters>): Promise<void> {
      await registry.activate(workflow('wf', { path: 'r', httpMethod: 'POST', responseMode: 'lastNode', ...parameters }));
    }

    beforeEach(() => {
      registry = new MemoryWebhookRegistry();
      warnings = [];
      executor = () => ({ items: [{ json: { text: 'Thanks — received', page: '<p>Hi</p>' } }] });
    });

    it('sets the node\'s cookies beside the host\'s own, never in their place', async () => {
      await activate({ options: { responseHeaders: { entries: [{ name: 'Set-Cookie', value: 'consent=yes; Path=/' }] } } });
      const res = await request(app()).post(`${BASE}/webhook/r`).expect(200);
      expect(res.headers['set-cookie']).to.deep.equal(['host-session=s1; Path=/; HttpOnly', 'consent=yes; Path=/']);
    });

    it('leaves out the host\'s security headers a node sets, and says so in the activation\'s warnings', async () => {
      const webhooks = await registry.activate(workflow('wf', { path: 'r', httpMethod: 'POST', options: { responseHeaders: { entries: [
        { name: 'Strict-Transport-Security', value: 'max-age=0' },
        { name: 'Clear-Site-Data', value: '"*"' },
        { name: 'X-Flow', value: 'kept' },
      ] } } }));
      expect(activationWarnings(webhooks).map((warning) => [warning.code, warning.path, warning.message])).to.deep.equal([
        ['dropped-header', 'options.responseHeaders', 'Workflow "wf", Webhook node "Webhook": the response header strict-transport-security is left out; it belongs to the host application\'s security policy, which a workflow may not change.'],
        ['dropped-header', 'options.responseHeaders', 'Workflow "wf", Webhook node "Webhook": the response header clear-site-data is left out; it belongs to the host application\'s security policy, which a workflow may not change.'],
      ]);
      const res = await request(app()).post(`${BASE}/webhook/r`).expect(200).expect('x-flow', 'kept');
      expect(res.headers).to.not.have.property('strict-transport-security');
      expect(res.headers).to.not.have.property('clear-site-data');
    });

    it('drops the headers the host forbids, from the node\'s option and from respond() alike, and logs each name once', async () => {
      const served = app({ forbiddenResponseHeaders: ['Set-Cookie', 'X-Debug'] });
      await activate({ options: { responseHeaders: { entries: [{ name: 'Set-Cookie', value: 'a=1' }, { name: 'X-Flow', value: 'kept' }] } } });
      const fromNode = await request(served).post(`${BASE}/webhook/r`).expect(200).expect('x-flow', 'kept');
      expect(fromNode.headers['set-cookie']).to.deep.equal(['host-session=s1; Path=/; HttpOnly']);
      await activate({ responseMode: 'responseNode' });
      executor = (run) => {
        run.respond({ status: 202, headers: { 'set-cookie': 'b=2', 'x-debug': 'on', 'x-order': '7' }, body: { ok: true } });
        return { items: [] };
      };
      const fromRespond = await request(served).post(`${BASE}/webhook/r`).expect(202).expect('x-order', '7');
      expect(fromRespond.headers['set-cookie']).to.deep.equal(['host-session=s1; Path=/; HttpOnly']);
      expect(fromRespond.headers).to.not.have.property('x-debug');
      await request(served).post(`${BASE}/webhook/r`).expect(202);
      expect(warnings.map((warning) => warning.fields.header)).to.deep.equal(['set-cookie', 'x-debug']);
    });

    it('refuses to let the host forbid the headers the middleware itself must set', () => {
      expect(() => createWebhookMiddleware(registry, executor, { forbiddenResponseHeaders: ['Content-Type'] }))
        .to.throw(TypeError, 'option forbiddenResponseHeaders must be a list without content-type (the middleware sets it)');
      expect(() => createWebhookMiddleware(registry, executor, { forbiddenResponseHeaders: ['bad header'] }))
        .to.throw(TypeError, 'option forbiddenResponseHeaders must be an array of header names');
    });

    it('sends HTML chosen by a Content-Type response header in the sandbox that keeps forms and scripts working', async () => {
      await activate({ options: { responsePropertyName: 'page', responseHeaders: { entries: [{ name: 'Content-Type', value: 'text/html' }] } } });
      const res = await request(app()).post(`${BASE}/webhook/r`).expect(200)
        .expect('content-type', 'text/html; charset=utf-8').expect('content-security-policy', HTML_SANDBOX);
      expect(res.text).to.equal('<p>Hi</p>');
      expect(HTML_SANDBOX).to.include('allow-forms').and.include('allow-scripts');
      expect(HTML_SANDBOX).to.not.include('allow-same-origin').and.not.include('allow-top-navigation');
    });

    it('keeps a bare sandbox on SVG and other renderable answers, and none on a plain string', async () => {
      await activate({ options: { responsePropertyName: 'page', responseContentType: 'image/svg+xml' } });
      await request(app()).post(`${BASE}/webhook/r`).expect(200).expect('content-security-policy', 'sandbox');
      await activate({ options: { responsePropertyName: 'text' } });
      const res = await request(app()).post(`${BASE}/webhook/r`).expect(200).expect('content-type', 'text/plain; charset=utf-8');
      expect(res.headers).to.not.have.property('content-security-policy');
      expect(res.text).to.equal('Thanks — received');
    });

    it('says the charset of text, XML and HTML types given without one, and keeps one that is given', async () => {
      await activate({ options: { responsePropertyName: 'text', responseContentType: 'application/xml' } });
      await request(app()).post(`${BASE}/webhook/r`).expect(200).expect('content-type', 'application/xml; charset=utf-8');
      await activate({ options: { responsePropertyName: 'text', responseContentType: 'text/markdown' } });
      await request(app()).post(`${BASE}/webhook/r`).expect(200).expect('content-type', 'text/markdown; charset=utf-8');
      await activate({ options: { responsePropertyName: 'text', responseContentType: 'text/html; charset=utf-16' } });
      await request(app()).post(`${BASE}/webhook/r`).expect(200).expect('content-type', 'text/html; charset=utf-16');
    });

    it('adds no charset to bytes it did not encode itself', async () => {
      executor = () => ({ items: [{ json: {}, binary: { data: { mimeType: 'text/plain', data: Buffer.from([0xe9]) } } }] });
      await activate({ responseData: 'firstEntryBinary' });
      await request(app()).post(`${BASE}/webhook/r`).expect(200).expect('content-type', 'text/plain');
    });
  });
}

describe('finalizeResponse on one plan', () => {
  const parameters = { responseHeaders: {} } as unknown as ResolvedWebhookParameters;

  it('keeps a Content-Security-Policy the workflow sent and joins the sandbox to it, so a browser enforces both', () => {
    const plan = finalizeResponse(parameters, { status: 200, headers: { 'content-type': 'text/html', 'content-security-policy': "script-src 'none'" }, body: '<p>' }, OPEN_HEADER_POLICY);
    expect(plan.headers['content-security-policy']).to.equal(`script-src 'none', ${HTML_SANDBOX}`);
    const blank = finalizeResponse(parameters, { status: 200, headers: { 'content-type': 'image/svg+xml', 'content-security-policy': '  ' }, body: '<svg/>' }, OPEN_HEADER_POLICY);
    expect(blank.headers['content-security-policy']).to.equal('sandbox');
  });

  it('passes every header through when the host forbids none', () => {
    const plan = finalizeResponse(parameters, { status: 200, headers: { 'x-one': '1', 'content-type': 'application/json' }, body: '{}' }, OPEN_HEADER_POLICY);
    expect(plan.headers).to.deep.equal({ 'x-one': '1', 'content-type': 'application/json' });
  });
});
