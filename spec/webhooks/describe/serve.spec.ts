import { expect } from 'chai';
import request from 'supertest';
import { createWebhookMiddleware, MemoryWebhookRegistry, type OpenApiDocument, type WebhookMiddlewareOptions } from '../../../lib/index.js';
import { resolveOptions } from '../../../lib/webhooks/options.js';
import { BASE, HOSTS } from '../../support/apps.js';

const executor = () => ({ items: [{ json: {} }] });

async function registryWith(allowedOrigins?: string): Promise<MemoryWebhookRegistry> {
  const registry = new MemoryWebhookRegistry();
  await registry.activate({ workflowId: 'wf-1', workflowName: 'Orders', nodes: [{ name: 'Webhook', parameters: { path: 'orders/:id', httpMethod: 'POST' } }] });
  if (allowedOrigins !== undefined) {
    await registry.activate({ workflowId: 'wf-2', nodes: [{ name: 'Browser', parameters: { path: 'form', httpMethod: 'POST', options: { allowedOrigins } } }] });
  }
  return registry;
}

for (const host of HOSTS) {
  describe(`the served OpenAPI document (option openApi) in ${host.name}`, () => {
    const appWith = async (options: WebhookMiddlewareOptions, allowedOrigins?: string) =>
      host.build(createWebhookMiddleware(await registryWith(allowedOrigins), executor, options));

    it('is not served unless asked for: the path falls through to the host', async () => {
      const res = await request(await appWith({})).get(`${BASE}/openapi.json`);
      expect(res.status).to.not.equal(200);
      expect(res.headers['content-type'] ?? '').to.not.include('json');
    });

    it('answers GET at the chosen path below the mount with the document as JSON, its server the mount as the caller reached it', async () => {
      const app = await appWith({ openApi: { path: '/docs/webhooks.json', title: 'Orders', version: '2.1.0' } });
      const res = await request(app).get(`${BASE}/docs/webhooks.json`).set('host', 'shop.example:8080').expect(200);
      expect(res.headers['content-type']).to.equal('application/json; charset=utf-8');
      expect(res.headers['cache-control']).to.equal('no-cache');
      const document = res.body as OpenApiDocument;
      expect(document.info).to.deep.include({ title: 'Orders', version: '2.1.0' });
      expect(document.servers).to.deep.equal([{ url: `http://shop.example:8080${BASE}` }]);
      expect(Object.keys(document.paths)).to.deep.equal(['/webhook/orders/{id}']);
    });

    it('uses publicUrl as the server when it is set, and OpenAPI\'s own media type for a client that asks for it', async () => {
      const app = await appWith({ openApi: {}, publicUrl: 'https://hooks.example.com/automation' });
      const res = await request(app).get(`${BASE}/openapi.json`).set('accept', 'application/vnd.oai.openapi+json, application/json;q=0.5').expect(200);
      expect(res.headers['content-type']).to.equal('application/vnd.oai.openapi+json; charset=utf-8');
      expect(JSON.parse(res.text as string).servers).to.deep.equal([{ url: 'https://hooks.example.com/automation' }]);
      expect(res.headers.vary).to.match(/Origin/).and.match(/Accept/);
    });

    it('answers HEAD with the headers of GET and no body, OPTIONS with what is allowed, other methods 405 with Allow', async () => {
      const app = await appWith({ openApi: { path: '/openapi.json' } });
      const get = await request(app).get(`${BASE}/openapi.json`);
      const head = await request(app).head(`${BASE}/openapi.json`).expect(200);
      expect(head.headers['content-length']).to.equal(get.headers['content-length']);
      expect(head.text ?? '').to.equal('');
      await request(app).options(`${BASE}/openapi.json`).expect(204).expect('allow', 'GET, HEAD, OPTIONS');
      const post = await request(app).post(`${BASE}/openapi.json`).expect(405).expect('allow', 'GET, HEAD, OPTIONS');
      expect(post.body.code).to.equal('WEBHOOK_METHOD_NOT_ALLOWED');
    });

    it('lets a browser read it from an origin that may call one of the webhooks, and from no other', async () => {
      const app = await appWith({ openApi: {} }, 'https://shop.example, https://admin.example');
      const allowed = await request(app).get(`${BASE}/openapi.json`).set('origin', 'https://admin.example').expect(200);
      expect(allowed.headers['access-control-allow-origin']).to.equal('https://admin.example');
      const other = await request(app).get(`${BASE}/openapi.json`).set('origin', 'https://evil.example').expect(200);
      expect(other.headers['access-control-allow-origin']).to.equal(undefined);
      const preflight = await request(app).options(`${BASE}/openapi.json`)
        .set('origin', 'https://shop.example').set('access-control-request-method', 'GET').expect(204);
      expect(preflight.headers['access-control-allow-methods']).to.equal('GET, HEAD');
    });

    it('sends no CORS header when no webhook takes browser calls, and any origin when one takes them from anywhere', async () => {
      const closed = await request(await appWith({ openApi: {} })).get(`${BASE}/openapi.json`).set('origin', 'https://shop.example');
      expect(closed.headers['access-control-allow-origin']).to.equal(undefined);
      const open = await request(await appWith({ openApi: {} }, '*')).get(`${BASE}/openapi.json`).set('origin', 'https://any.example');
      expect(open.headers['access-control-allow-origin']).to.equal('https://any.example');
    });

    it('keeps serving the webhooks and the host\'s own routes beside it', async () => {
      const app = await appWith({ openApi: {} });
      await request(app).post(`${BASE}/webhook/orders/7`).expect(200);
      await request(app).get('/api/orders').expect(200);
    });
  });
}

describe('the openApi option', () => {
  for (const [openApi, message] of [
    [{ path: 'openapi.json' }, /option openApi.path must be a path below the mount/],
    [{ path: '/webhook/openapi.json' }, /option openApi.path must be a path outside the webhook prefixes/],
    [{ path: '/Webhook-Test' }, /outside the webhook prefixes/],
    [{ title: 7 }, /option openApi.title must be a non-empty string/],
    [{ format: 'yaml' }, /unknown option openApi.format/],
    [true, /option openApi must be an object/],
  ] as const) {
    it(`refuses ${JSON.stringify(openApi)} at the factory with a TypeError naming it`, () => {
      expect(() => resolveOptions({ openApi } as never)).to.throw(TypeError, message);
    });
  }

  it('is off by default and needs a registry that lists its webhooks', () => {
    expect(resolveOptions().openApi).to.equal(undefined);
    const registry = { lookup: async () => ({ found: false, methods: [] }) } as never;
    expect(() => createWebhookMiddleware(registry, executor, { openApi: {} })).to.throw(TypeError, /option openApi needs a registry with list\(\)/);
  });
});
