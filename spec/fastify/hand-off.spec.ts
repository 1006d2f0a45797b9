/**
 * How the plugin hands a call to the middleware: the URL split at the plugin's prefix as an Express mount splits it
 * (so webhookUrl, the OpenAPI document's server and resume addresses name the prefix), only paths the middleware
 * serves taken whatever the router's options, Fastify's handlerTimeout kept off a hijacked call, and a call passed
 * on by a host's wrapper still answered.
 */
import type { IncomingMessage } from 'node:http';
import { expect } from 'chai';
import fc from 'fast-check';
import request from 'supertest';
import { createWebhookMiddleware, MemoryWebhookRegistry, type WebhookExecutor, type WebhookMiddleware, type WebhookMiddlewareOptions } from '../../lib/index.js';
import { mountEnd, servedBy } from '../../lib/fastify/hand-off.js';
import { documentRoute } from '../../lib/webhooks/describe/serve.js';
import { resolveOpenApiRoute } from '../../lib/webhooks/describe/settings.js';
import { readRequestTarget } from '../../lib/webhooks/request/target.js';
import { pipelined } from '../support/raw-http.js';
import { PREFIX, startPluginHost, type PluginHost, type PluginHostOptions } from '../support/hosts/fastify-plugin-app.js';

const SECRET = 'a waiting secret of at least 32 characters';

const executor: WebhookExecutor = async (run) => {
  if (run.nodeName === 'Slow') await new Promise((resolve) => setTimeout(resolve, 300));
  if (run.nodeName === 'Approve' && run.resume === undefined) {
    const { resumeUrl } = await run.suspend({ state: { amount: 12 }, responseMode: 'lastNode' });
    return { items: [{ json: { resumeUrl } }] };
  }
  return { items: [{ json: { webhookUrl: run.items[0]!.json.webhookUrl, resumed: run.resume?.state } }] };
};

async function middlewareWith(options: WebhookMiddlewareOptions = {}): Promise<WebhookMiddleware> {
  const registry = new MemoryWebhookRegistry();
  await registry.activate({ workflowId: 'wf', nodes: [
    { name: 'Echo', parameters: { path: 'orders/:id', httpMethod: 'POST', responseMode: 'lastNode' } },
    { name: 'Slow', parameters: { path: 'slow', httpMethod: 'GET', responseMode: 'lastNode' } },
    { name: 'Approve', parameters: { path: 'approve', httpMethod: 'POST', responseMode: 'lastNode' } },
  ] });
  return createWebhookMiddleware(registry, executor, { logger: { error: () => undefined, warn: () => undefined }, ...options });
}

describe('workflow-webhooks/fastify: handing a call to the middleware', function handOff() {
  this.timeout(10_000);
  let host: PluginHost | undefined;
  const start = async (middleware: WebhookMiddleware, options: PluginHostOptions = {}): Promise<PluginHost> => {
    host = await startPluginHost(middleware, options);
    return host;
  };
  afterEach(async () => { await host?.close(); host = undefined; });

  it('finds where the path below the prefix starts by counting the prefix\'s segments, before any query', () => {
    expect(mountEnd('/hooks/webhook/x?a=/b', 1)).to.equal(6);
    expect(mountEnd('/v1/hooks/webhook/x', 2)).to.equal(9);
    expect(mountEnd('/webhook/x', 0)).to.equal(0);
    expect(mountEnd('/hooks', 1)).to.equal(-1);
    expect(mountEnd('/hooks?to=/webhook/x', 1)).to.equal(-1);
  });

  it('takes exactly the paths the middleware serves, by the middleware\'s own rule, for any path below the prefix', async () => {
    const settings = (await middlewareWith({ productionPrefix: 'in/Hooks', testPrefix: 'test~hooks', openApi: { path: '/docs/openapi.json' } })).settings;
    const serves = servedBy(settings);
    const prefixes = { production: settings.productionPrefix, test: settings.testPrefix, waiting: settings.waitingPrefix };
    const route = resolveOpenApiRoute({ path: settings.openApiPath }, Object.values(prefixes));
    const document = documentRoute(new MemoryWebhookRegistry(), route!, { productionPrefix: 'in/Hooks', timeoutStatus: 524, credentials: undefined, waitingPrefix: undefined, rateLimit: undefined, baseUrlOf: () => '' });
    // '^' differs from '~' in the one bit that tells a letter's cases apart: only letters match in any case.
    const segment = fc.constantFrom('in', 'IN', 'hooks', 'Hooks', 'test~hooks', 'TEST~Hooks', 'test^hooks', 'webhook-waiting', 'WEBHOOK-waiting', 'webhook-waitings', 'docs', 'openapi.json', 'OpenAPI.json', '', 'x', '%2F');
    fc.assert(fc.property(fc.array(segment, { maxLength: 4 }), fc.constantFrom('', '?', '?a=/in/hooks', '?x'), fc.constantFrom('', '/v1', '/t/acme'), (segments, query, mount) => {
      const below = `/${segments.join('/')}${query}`;
      const req = { url: below, originalUrl: `${mount}${below}`, headers: {} } as unknown as IncomingMessage;
      const middleware = readRequestTarget(req, prefixes) !== undefined || document.owns(req);
      expect(serves(`${mount}${below}`, mount.length), `${mount}${below}`).to.equal(middleware);
    }), { numRuns: 2000 });
  });

  it('takes or leaves each of several calls pipelined on one connection by its own path, and answers them in order', async () => {
    // A router that matches more than the middleware serves (duplicate slashes) and in any case, so the plugin decides.
    const app = await start(await middlewareWith({ openApi: {} }), { fastify: { routerOptions: { caseSensitive: false, ignoreDuplicateSlashes: true } } });
    const call = (method: string, path: string): string =>
      `${method} ${path} HTTP/1.1\r\nHost: ${new URL(app.origin).host}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`;
    const answers = await pipelined(Number(new URL(app.origin).port), [
      call('POST', `${PREFIX}/webhook/orders/7?to=/webhooks/x`), call('POST', `${PREFIX}//webhook/orders/7`), call('GET', '/HOOKS/openapi.json/'),
      call('POST', '/HOOKS/WEBHOOK/orders/8'), call('POST', `${PREFIX}/webhook//orders/8`), call('POST', `${PREFIX}/webhook/orders/9`),
    ]);
    expect(answers.map(({ status, body }) => [status, body.webhookUrl ?? body.servers ?? body.message])).to.deep.equal([
      [200, `${app.origin}${PREFIX}/webhook/orders/:id`],
      [404, `Route POST:${PREFIX}//webhook/orders/7 not found`],
      [200, [{ url: `${app.origin}/HOOKS` }]],
      [200, `${app.origin}/HOOKS/webhook/orders/:id`],
      // The middleware's own answer: below its prefix, the path is its to refuse.
      [404, 'The requested webhook "POST /orders/8" is not registered.'],
      [200, `${app.origin}${PREFIX}/webhook/orders/:id`],
    ]);
  });

  it('names the whole prefix in webhookUrl: nested in a plugin with its own prefix, and with a parameter in it', async () => {
    const nested = await start(await middlewareWith(), { within: '/v1' });
    const res = await request(nested.origin).post(`/v1${PREFIX}/webhook/orders/7`).send({}).expect(200);
    expect(res.body.webhookUrl).to.equal(`${nested.origin}/v1${PREFIX}/webhook/orders/:id`);
    await nested.close();
    const tenants = await start(await middlewareWith(), { prefix: '/tenants/:tenant' });
    const tenant = await request(tenants.origin).post('/tenants/acme/webhook/orders/7').send({}).expect(200);
    expect(tenant.body.webhookUrl).to.equal(`${tenants.origin}/tenants/acme/webhook/orders/:id`);
  });

  it('serves the OpenAPI document under the prefix, naming the prefix as its server, with or without a trailing slash', async () => {
    const app = await start(await middlewareWith({ openApi: {} }));
    for (const path of [`${PREFIX}/openapi.json`, `${PREFIX}/openapi.json/`]) {
      const res = await request(app.origin).get(path).expect(200).expect('content-type', /json/);
      expect(res.body.servers).to.deep.equal([{ url: `${app.origin}${PREFIX}` }]);
      expect(Object.keys(res.body.paths)).to.include('/webhook/orders/{id}');
    }
    expect((await request(app.origin).post(`${PREFIX}/openapi.json`).expect(405)).body.code).to.equal('WEBHOOK_METHOD_NOT_ALLOWED');
  });

  it('gives a run a resume address under the prefix, which resumes it', async () => {
    const app = await start(await middlewareWith({ waitingSecret: SECRET }));
    const { resumeUrl } = (await request(app.origin).post(`${PREFIX}/webhook/approve`).send({}).expect(200)).body as { resumeUrl: string };
    expect(resumeUrl.startsWith(`${app.origin}${PREFIX}/webhook-waiting/`)).to.equal(true);
    const resumed = await request(app.origin).post(resumeUrl.slice(app.origin.length)).send({ approved: true }).expect(200);
    expect(resumed.body.resumed).to.deep.equal({ amount: 12 });
  });

  it('registers under a router that ignores trailing slashes (no duplicate route) and still serves both forms', async () => {
    const app = await start(await middlewareWith({ openApi: {} }), { fastify: { routerOptions: { ignoreTrailingSlash: true } } });
    await request(app.origin).get(`${PREFIX}/openapi.json/`).expect(200);
    await request(app.origin).post(`${PREFIX}/webhook/orders/7/`).send({}).expect(200);
  });

  it('takes the paths a case-insensitive router matches, as an Express mount would, and webhookUrl keeps the caller\'s spelling', async () => {
    const app = await start(await middlewareWith(), { fastify: { routerOptions: { caseSensitive: false } } });
    const res = await request(app.origin).post('/HOOKS/WEBHOOK/orders/7').send({}).expect(200);
    expect(res.body.webhookUrl).to.equal(`${app.origin}/HOOKS/webhook/orders/:id`);
  });

  it("leaves a path the router matches but the middleware would not serve to Fastify's not-found handler, unread", async () => {
    const app = await start(await middlewareWith(), { fastify: { routerOptions: { ignoreDuplicateSlashes: true } } });
    const path = `${PREFIX}//webhook/orders/7`;
    const res = await request(app.origin).post(path).send({}).expect(404);
    expect(res.body).to.deep.equal({ message: `Route POST:${path} not found`, error: 'Not Found', statusCode: 404 });
    // Unread: no preParsing hook ran; the routes' onRequest hook handed the call to the not-found handler itself.
    expect(app.hooks.map((record) => record.hook)).to.deep.equal(['onRequest before the plugin', 'onRequest after the plugin', 'preHandler', 'onSend', 'onResponse']);
  });

  it("keeps Fastify's handlerTimeout off its calls: a call whose run outlasts it gets the workflow's answer", async () => {
    // A GET: Fastify stops the timer once a request's body has been read, so only a call with no body shows it.
    const app = await start(await middlewareWith(), { fastify: { handlerTimeout: 100 } });
    const res = await request(app.origin).get(`${PREFIX}/webhook/slow`).expect(200);
    expect(res.body.webhookUrl).to.equal(`${app.origin}${PREFIX}/webhook/slow`);
  });

  it('answers 500 INTERNAL_ERROR, and tells the logger, when a host\'s wrapper passes on a call Fastify can no longer answer', async () => {
    const logged: { fields: Record<string, unknown>; message?: string }[] = [];
    const inner = await middlewareWith({ logger: { error: (fields, message) => { logged.push({ fields, message }); }, warn: () => undefined } });
    const wrapped = Object.assign((_req: unknown, _res: unknown, next: (err?: unknown) => void) => { next(); }, inner) as WebhookMiddleware;
    const app = await start(wrapped);
    expect((await request(app.origin).post(`${PREFIX}/webhook/orders/7`).send({}).expect(500)).body.code).to.equal('INTERNAL_ERROR');
    expect(logged).to.have.length(1);
    expect(logged[0]?.message).to.match(/passed on/);
    expect(logged[0]?.fields).to.include({ path: `${PREFIX}/webhook/orders/7` });
  });
});
