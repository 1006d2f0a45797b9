/**
 * The middleware in a real Fastify 5 application through @fastify/middie, mounted at `/hooks` beside the app's own
 * routes, hooks and logger: every payload kind, response mode and refusal over HTTP, what Fastify still does for the
 * answers the middleware writes itself (hooks, headers, logs), and shutdown through `app.close()`.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import request from 'supertest';
import {
  createWebhookMiddleware, MemoryWebhookRegistry,
  type WebhookExecutor, type WebhookMiddlewareOptions, type WebhookRun, type WorkflowWebhooks,
} from '../../../lib/index.js';
import { echoRun, itGivesEveryBodyToTheRun, sha256 } from '../../support/hosts/fastify-bodies.js';
import { MOUNT, startFastifyHost, type FastifyHost, type FastifyHostOptions } from '../../support/hosts/fastify-app.js';
import { credentialOf, signedHeaders } from '../../support/signers.js';
import { eventually, makeTempDir, type TempDir } from '../../support/temp-dir.js';
import { closeAll } from '../../support/close-all.js';

const WORKFLOW: WorkflowWebhooks = { workflowId: 'wf', nodes: [
  { name: 'Echo', parameters: { path: 'orders/:id', httpMethod: 'POST', responseMode: 'lastNode' } },
  { name: 'Raw', parameters: { path: 'raw', httpMethod: 'POST', responseMode: 'lastNode', options: { rawBody: true } } },
  { name: 'Signed', parameters: { path: 'signed', httpMethod: 'POST', responseMode: 'lastNode', authentication: 'signatureAuth' } },
  { name: 'Started', parameters: { path: 'started', httpMethod: 'POST' } },
  { name: 'All', parameters: { path: 'all', httpMethod: 'POST', responseMode: 'lastNode', responseData: 'allEntries' } },
  { name: 'Greeting', parameters: { path: 'greeting', httpMethod: 'POST', responseMode: 'lastNode', options: { responsePropertyName: 'greeting' } } },
  { name: 'Quiet', parameters: { path: 'quiet', httpMethod: 'POST', responseMode: 'lastNode', responseData: 'noData', responseCode: 204 } },
  { name: 'Respond', parameters: { path: 'respond', httpMethod: 'POST', responseMode: 'responseNode' } },
  { name: 'Report', parameters: { path: 'report', httpMethod: 'GET', responseMode: 'lastNode', responseData: 'firstEntryBinary' } },
  { name: 'Keyed', parameters: { path: 'keyed', httpMethod: 'POST', authentication: 'headerAuth' } },
  { name: 'Basic', parameters: { path: 'basic', httpMethod: 'POST', authentication: 'basicAuth' } },
  { name: 'Slow', parameters: { path: 'slow', httpMethod: 'POST', responseMode: 'lastNode' } },
  { name: 'Stuck', parameters: { path: 'stuck', httpMethod: 'POST', responseMode: 'lastNode' } },
] };

const hook = (path: string): string => `${MOUNT}/webhook/${path}`;

let temp: TempDir;
let reportPath: string; // a 3 MiB file the Report workflow answers with

const executor = (runs: WebhookRun[]): WebhookExecutor => async (run) => {
  runs.push(run);
  switch (run.nodeName) {
    case 'Respond':
      run.respond({ status: 201, headers: { 'x-workflow': 'answered' }, body: { created: true } });
      return { items: [] };
    case 'All': return { items: [{ json: { n: 1 } }, { json: { n: 2 } }] };
    case 'Greeting': return { items: [{ json: { greeting: 'Hello from the workflow' } }] };
    case 'Report': return { items: [{ json: {}, binary: { data: { mimeType: 'application/pdf', fileName: 'report.pdf', path: reportPath } } }] };
    case 'Slow': await sleep(300); break;
    case 'Stuck': await sleep(10_000, undefined, { signal: run.signal }); break;
  }
  return echoRun(run);
};

interface Built { host: FastifyHost; runs: WebhookRun[] }

async function build(options: FastifyHostOptions = {}, extra: WebhookMiddlewareOptions = {}): Promise<Built> {
  const runs: WebhookRun[] = [];
  const registry = new MemoryWebhookRegistry();
  await registry.activate(WORKFLOW);
  const middleware = createWebhookMiddleware(registry, executor(runs), {
    limits: { bodySize: '64kb' },
    uploads: { tempDir: temp.path },
    onWorkflowError: () => undefined,
    logger: { error: () => undefined, warn: () => undefined },
    credentials: ({ nodeName }) => nodeName === 'Signed' ? credentialOf('standardWebhooks')
      : nodeName === 'Keyed' ? { name: 'x-api-key', value: 'key-1' } : { user: 'ada', password: 'secret' },
    ...extra,
  });
  return { host: await startFastifyHost(middleware, options), runs };
}

describe('Fastify 5 host', function host() {
  this.timeout(10_000);
  before(() => {
    temp = makeTempDir();
    reportPath = join(temp.path, 'report.pdf');
    writeFileSync(reportPath, randomBytes(3 * 1024 * 1024));
  });
  after(() => temp?.remove());

  describe('with the webhooks mounted by @fastify/middie at /hooks', () => {
    let built: Built;
    const http = () => request(built.host.origin);

    before(async () => { built = await build(); });
    after(() => built?.host.close());
    beforeEach(() => { built.runs.length = 0; built.host.hooks.length = 0; });

    it('gives a JSON call to the workflow with its params, query and the webhookUrl of the Fastify mount', async () => {
      const res = await http().post(`${hook('orders/7')}?tag=a&tag=b`).send({ item: 'Tea' }).expect(200);
      expect(res.body).to.deep.include({ body: { item: 'Tea' }, params: { id: '7' }, query: { tag: ['a', 'b'] }, executionMode: 'production' });
      expect(res.body.webhookUrl).to.equal(`${built.host.origin}${MOUNT}/webhook/orders/:id`);
    });

    itGivesEveryBodyToTheRun(() => http(), hook);

    it('gives a raw upload whole as binary, and the untouched bytes beside the parsed body with options.rawBody', async () => {
      const png = randomBytes(4096);
      const upload = await http().post(hook('orders/1')).set('content-type', 'image/png').send(png).expect(200);
      expect(upload.body.body).to.deep.equal({});
      expect(upload.body.files).to.deep.equal([{ name: 'data', fileName: upload.body.files[0].fileName, mimeType: 'image/png', onDisk: false, sha256: sha256(png) }]);
      const raw = await http().post(hook('raw')).set('content-type', 'application/json').send('{ "a" : 1 }').expect(200);
      expect(raw.body.body).to.deep.equal({ a: 1 });
      expect(raw.body.files[0]).to.include({ mimeType: 'application/json', sha256: sha256(Buffer.from('{ "a" : 1 }')) });
    });

    it('verifies a Standard Webhooks signature over the bytes it read itself, and refuses a tampered body', async () => {
      const body = JSON.stringify({ type: 'invoice.paid', amount: 120 });
      const res = await http().post(hook('signed')).set(await signedHeaders('standardWebhooks', body))
        .set('content-type', 'application/json').send(body).expect(200);
      expect(res.body.body).to.deep.equal({ type: 'invoice.paid', amount: 120 });
      expect(res.body.signature).to.include({ scheme: 'standardWebhooks' });
      const forged = await http().post(hook('signed')).set(await signedHeaders('standardWebhooks', body))
        .set('content-type', 'application/json').send(body.replace('120', '1')).expect(403);
      expect(forged.body.code).to.equal('SIGNATURE_INVALID');
      expect(built.runs).to.have.length(1);
    });

    it('answers every response mode: onReceived at once, lastNode as responseData says, responseNode with respond()', async () => {
      await http().post(hook('started')).send({ a: 1 }).expect(200, { message: 'Workflow was started' });
      await eventually(() => built.runs.length === 1);
      await http().post(hook('all')).send({}).expect(200, [{ n: 1 }, { n: 2 }]);
      await http().post(hook('greeting')).send({}).expect(200, 'Hello from the workflow').expect('content-type', 'text/plain; charset=utf-8');
      expect((await http().post(hook('quiet')).send({}).expect(204)).text).to.equal('');
      await http().post(hook('respond')).send({}).expect(201, { created: true }).expect('x-workflow', 'answered');
    });

    it('streams a file from disk as a firstEntryBinary answer', async () => {
      const res = await http().get(hook('report')).responseType('blob')
        .expect(200).expect('content-type', 'application/pdf').expect('content-disposition', 'inline; filename=report.pdf');
      expect(sha256(res.body as Buffer)).to.equal(sha256(readFileSync(reportPath)));
    });

    it('refuses calls without credentials with JSON that has a code: 401 for basicAuth, 403 for headerAuth', async () => {
      const basic = await http().post(hook('basic')).send({}).expect(401).expect('www-authenticate', /^Basic realm="Webhook"/);
      expect(basic.body.code).to.equal('AUTH_REQUIRED');
      expect((await http().post(hook('keyed')).send({}).expect(403).expect('content-type', /application\/json/)).body.code).to.equal('AUTH_INVALID');
      await http().post(hook('keyed')).set('x-api-key', 'key-1').send({}).expect(200);
      await eventually(() => built.runs.length === 1);
    });

    it('answers a body over limits.bodySize 413 LIMIT_BODY_SIZE, and the app serves the next call', async () => {
      const res = await http().post(hook('orders/1')).send({ text: 'x'.repeat(70 * 1024) }).expect(413);
      expect(res.body.code).to.equal('LIMIT_BODY_SIZE');
      expect(built.runs).to.have.length(0);
      await http().get('/api/orders').expect(200, [{ id: 1 }]);
    });

    it("answers an unknown webhook address with its own JSON 404, and leaves any other address to Fastify's 404", async () => {
      expect((await http().post(hook('nothing')).send({}).expect(404)).body.code).to.equal('WEBHOOK_NOT_FOUND');
      for (const path of ['/nothing', `${MOUNT}/other`]) {
        const res = await http().post(path).send({}).expect(404);
        expect(res.body).to.deep.equal({ message: `Route POST:${path} not found`, error: 'Not Found', statusCode: 404 });
      }
    });

    it("serves the app's own routes beside it, inside the mount too, whose bodies Fastify still parses", async () => {
      await http().get('/api/orders').expect(200, [{ id: 1 }]);
      await http().post(`${MOUNT}/notes`).send({ note: 'Tea' }).expect(200, { parsedByFastify: { note: 'Tea' } });
      const xml = await http().post(`${MOUNT}/notes`).set('content-type', 'application/xml').send('<a/>').expect(415);
      expect(xml.body.code).to.equal('FST_ERR_CTP_INVALID_MEDIA_TYPE');
    });

    it('keeps the headers a host hook put on reply.raw before middie on its answers, but not those of reply.header()', async () => {
      for (const [path, status] of [['orders/1', 200], ['nothing', 404], ['keyed', 403]] as const) {
        const res = await http().post(hook(path)).send({}).expect(status);
        expect(res.headers['x-request-id']).to.match(/^req-/);
        expect(res.headers).not.to.have.property('x-fastify-header');
      }
      const own = await http().get('/api/orders').expect(200);
      expect(own.headers).to.include({ 'x-fastify-header': 'set with reply.header' }).and.to.have.property('x-request-id');
    });

    it("runs Fastify's onResponse hook for its answers, but no onSend hook nor an onRequest hook added after middie", async () => {
      await http().post(hook('orders/1')).send({}).expect(200);
      await http().post(hook('nothing')).send({}).expect(404);
      await http().get('/api/orders').expect(200);
      await eventually(() => built.host.hooks.filter((record) => record.hook === 'onResponse').length === 3);
      // middie leaves req.url stripped of the mount when the middleware answers: request.originalUrl keeps it.
      expect(built.host.hooks).to.deep.equal([
        { hook: 'onResponse', url: '/webhook/orders/1', originalUrl: hook('orders/1'), status: 200 },
        { hook: 'onResponse', url: '/webhook/nothing', originalUrl: hook('nothing'), status: 404 },
        { hook: 'onRequest after middie', url: '/api/orders', originalUrl: '/api/orders', status: 200 },
        { hook: 'onSend', url: '/api/orders', originalUrl: '/api/orders', status: 200 },
        { hook: 'onResponse', url: '/api/orders', originalUrl: '/api/orders', status: 200 },
      ]);
    });

    it('leaves Fastify nothing to warn about after its answers (no reply.hijack() needed), and Fastify logs each one', async () => {
      const before = built.host.logs.length;
      await http().post(hook('orders/1')).attach('file', randomBytes(2048), 'a.bin').expect(200);
      await http().post(hook('orders/1')).send({ text: 'x'.repeat(70 * 1024) }).expect(413);
      await http().post(hook('orders/1')).set('content-type', 'application/json').send('{oops').expect(400);
      await sleep(50);
      const logs = built.host.logs.slice(before);
      expect(logs.filter((log) => log.level >= 40)).to.deep.equal([]);
      const completed = logs.filter((log) => log.msg === 'request completed') as { res?: { statusCode?: number } }[];
      expect(completed.map((log) => log.res?.statusCode)).to.deep.equal([200, 413, 400]);
    });
  });

  describe('setups: an error handler, a plugin prefix, and middleware.close() in a preClose hook', () => {
    let built: Built;
    let agent: Agent;
    beforeEach(() => { agent = new Agent({ keepAlive: true }); });
    afterEach(() => closeAll(() => agent?.destroy(), () => built?.host.close()));

    /** A call on a kept-alive connection, as HTTP clients make them (or not); resolves with its status and JSON. */
    const call = (path: string, keepAlive = true) => new Promise<{ status: number; body: { code?: string } }>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port: new URL(built.host.origin).port, path: hook(path), method: 'POST', agent: keepAlive ? agent : false, headers: { 'content-type': 'application/json' } }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => { text += chunk; }).on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      });
      req.on('error', reject).end('{"a":1}');
    });

    it("with errorHandling 'next', answers webhook errors through the app's setErrorHandler, whose reply.header() applies", async () => {
      built = await build({ errorHandler: true }, { errorHandling: 'next' });
      const res = await request(built.host.origin).post(hook('keyed')).send({}).expect(403);
      expect(res.body).to.deep.equal({ error: { code: 'AUTH_INVALID', message: res.body.error.message } });
      expect(res.headers).to.include({ 'x-fastify-header': 'set with reply.header' });
      expect(built.host.hooks.map((record) => record.hook)).to.include('onSend');
    });

    it("inside a plugin with a prefix, serves its addresses only when that plugin has its own not-found handler", async () => {
      built = await build({ scoped: { prefix: '/v1', notFoundHandler: false } });
      await request(built.host.origin).post(`/v1${hook('orders/1')}`).send({}).expect(404, /Route POST/);
      await built.host.close();
      built = await build({ scoped: { prefix: '/v1', notFoundHandler: true } });
      const res = await request(built.host.origin).post(`/v1${hook('orders/1')}`).send({ a: 1 }).expect(200);
      expect(res.body.webhookUrl).to.equal(`${built.host.origin}/v1${MOUNT}/webhook/orders/:id`);
      await request(built.host.origin).get('/v1/status').expect(200, { ok: true });
    });

    it('lets app.close() wait for a slow lastNode call, which gets its answer, then closes its kept-alive connection at once', async () => {
      // A close timeout far past the spec's own: close() can only resolve in time by the call ending and the idle
      // connection being closed, never by waiting the timeout out.
      built = await build({ closeTimeoutMs: 600_000 });
      const answer = call('slow');
      await eventually(() => built.runs.length === 1);
      await built.host.close();
      expect((await answer).status).to.equal(200);
      expect(await built.host.shutdown).to.deep.equal({ completed: 1, aborted: 0 });
      expect(built.host.app.server.listening).to.equal(false);
      expect(await new Promise((resolve) => { built.host.app.server.getConnections((_error, count) => resolve(count)); })).to.equal(0);
    });

    it('answers a call whose run outlasts the close timeout 503 SHUTTING_DOWN, stops the run, and lets app.close() resolve', async () => {
      built = await build({ closeTimeoutMs: 200 });
      const answer = call('stuck');
      await eventually(() => built.runs.length === 1);
      await built.host.close();
      expect(await answer).to.deep.include({ status: 503 }).and.nested.include({ 'body.code': 'SHUTTING_DOWN' });
      expect(await built.host.shutdown).to.deep.equal({ completed: 0, aborted: 1 });
      expect(built.runs[0]?.signal.aborted).to.equal(true);
    });

    it('would come too late in an onClose hook: Fastify closed its server first, which waited for the call', async () => {
      built = await build({ closeHook: 'onClose', closeTimeoutMs: 100 }, { responseTimeoutMs: 400 });
      const answer = call('stuck', false);
      await eventually(() => built.runs.length === 1);
      await built.host.close();
      // The caller got the response deadline's answer, not the shutdown's: app.close() was held until then.
      expect(await answer).to.deep.include({ status: 524 }).and.nested.include({ 'body.code': 'WORKFLOW_TIMEOUT' });
      expect(await built.host.shutdown).to.deep.equal({ completed: 0, aborted: 0 });
    });
  });
});
