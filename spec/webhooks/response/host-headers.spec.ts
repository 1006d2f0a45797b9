import { expect } from 'chai';
import request from 'supertest';
import { createWebhookMiddleware, MemoryWebhookRegistry, type WebhookMiddleware } from '../../../lib/index.js';
import { BASE, HOSTS } from '../../support/apps.js';
import { hostsOf, runModes } from '../../support/queue/run-modes.js';
import { HTML_SANDBOX } from '../../../lib/webhooks/response/finalize.js';

/** What helmet, a request-id middleware and a compression middleware set before any route runs. */
const HOST_HEADERS = {
  'strict-transport-security': 'max-age=15552000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'self'",
  'x-request-id': 'req-42',
  vary: 'Accept-Encoding',
};

function behindHostHeaders(middleware: WebhookMiddleware): WebhookMiddleware {
  return Object.assign((req: Parameters<WebhookMiddleware>[0], res: Parameters<WebhookMiddleware>[1], next: Parameters<WebhookMiddleware>[2]) => {
    for (const [name, value] of Object.entries(HOST_HEADERS)) res.setHeader(name, value);
    middleware(req, res, next);
  }, { close: middleware.close, settings: middleware.settings, subscribe: middleware.subscribe });
}

for (const mode of runModes('host headers', { onPostgres: true })) for (const host of hostsOf(mode, HOSTS)) {
  describe(`the host's headers in ${host.name}${mode.suffix}`, () => {
    mode.hooks();
    let app: ReturnType<typeof host.build>;

    beforeEach(async () => {
      const registry = new MemoryWebhookRegistry();
      await registry.activate({ workflowId: 'wf', nodes: [
        { name: 'Page', parameters: { path: 'page', responseMode: 'lastNode', options: { responseContentType: 'text/html', responsePropertyName: 'html', allowedOrigins: 'https://shop.example' } } },
        { name: 'Locked', parameters: { path: 'locked', authentication: 'headerAuth' }, credentials: { httpHeaderAuth: { id: 'h' } } },
        { name: 'Broken', parameters: { path: 'broken', responseMode: 'lastNode' } },
        { name: 'Hook', parameters: { path: 'hook' } },
      ] });
      const middleware = createWebhookMiddleware(registry, mode.executor(async (run) => {
        if (run.nodeName === 'Broken') throw new Error('boom');
        return { items: [{ json: { html: '<h1>Hi</h1>' } }] };
      }), { onWorkflowError: () => undefined, credentials: () => ({ name: 'x-key', value: 'secret' }) });
      app = host.build(behindHostHeaders(middleware));
    });

    for (const [label, path, status] of [
      ['an unknown address (404)', 'nothing', 404],
      ['a call without its credentials (403)', 'locked', 403],
      ['a failed workflow (500)', 'broken', 500],
    ] as const) {
      it(`keeps helmet's policies and the request id on the answer to ${label}`, async () => {
        const res = await request(app).get(`${BASE}/webhook/${path}`).expect(status);
        expect(res.body.code).to.be.a('string');
        expect(res.headers).to.include(HOST_HEADERS);
      });
    }

    it('keeps them on the answer every onReceived call shares, call after call', async () => {
      for (let call = 0; call < 3; call += 1) {
        const res = await request(app).get(`${BASE}/webhook/hook`).expect(200).expect('content-type', /application\/json/);
        expect(res.body).to.deep.equal({ message: 'Workflow was started' });
        expect(res.headers['content-length']).to.equal(String(Buffer.byteLength(JSON.stringify(res.body))));
        expect(res.headers).to.include(HOST_HEADERS);
      }
    });

    it('adds its sandbox to the host\'s Content-Security-Policy instead of replacing it', async () => {
      const res = await request(app).get(`${BASE}/webhook/page`).expect(200).expect('content-type', /text\/html/);
      expect(res.headers['content-security-policy']).to.equal(`default-src 'self', ${HTML_SANDBOX}`);
      expect(res.text).to.equal('<h1>Hi</h1>');
    });

    it('appends Origin to the host\'s Vary for an allowed browser origin', async () => {
      const res = await request(app).get(`${BASE}/webhook/page`).set('origin', 'https://shop.example').expect(200);
      expect(res.headers.vary).to.equal('Accept-Encoding, Origin');
      expect(res.headers['access-control-allow-origin']).to.equal('https://shop.example');
    });

    it('appends Origin to the host\'s Vary when it refuses an origin, too', async () => {
      const res = await request(app).get(`${BASE}/webhook/page`).set('origin', 'https://evil.example').expect(403);
      expect(res.headers.vary).to.equal('Accept-Encoding, Origin');
    });
  });
}
