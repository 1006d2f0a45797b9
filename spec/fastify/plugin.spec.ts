/**
 * `workflow-webhooks/fastify` in a real Fastify 5 application over HTTP: every body reaches the run as the middleware
 * reads it (Fastify reads none of it), every other path stays Fastify's, the middleware's own errors, which of the
 * host's hooks run and which headers its answers keep, the options refused at registration, and app.close().
 */
import { randomBytes } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import Fastify from 'fastify';
import request from 'supertest';
import {
  createWebhookMiddleware, MemoryWebhookRegistry,
  type WebhookExecutor, type WebhookMiddlewareOptions, type WebhookRun, type WorkflowWebhooks,
} from '../../lib/index.js';
import { webhookPlugin } from '../../lib/fastify/index.js';
import { echoRun, itGivesEveryBodyToTheRun, sha256 } from '../support/hosts/fastify-bodies.js';
import { PREFIX, startPluginHost, type PluginHost, type PluginHostOptions } from '../support/hosts/fastify-plugin-app.js';
import { eventually as until } from '../support/registry-contract/instances.js';
import { eventually, filesUnder, makeTempDir, type TempDir } from '../support/temp-dir.js';
import { closeAll } from '../support/close-all.js';

const WORKFLOW: WorkflowWebhooks = { workflowId: 'wf', nodes: [
  { name: 'Echo', parameters: { path: 'orders/:id', httpMethod: 'POST', responseMode: 'lastNode' } },
  { name: 'Raw', parameters: { path: 'raw', httpMethod: 'POST', responseMode: 'lastNode', options: { rawBody: true } } },
  { name: 'Keyed', parameters: { path: 'keyed', httpMethod: 'POST', authentication: 'headerAuth' } },
  { name: 'Slow', parameters: { path: 'slow', httpMethod: 'POST', responseMode: 'lastNode' } },
  { name: 'Stuck', parameters: { path: 'stuck', httpMethod: 'POST', responseMode: 'lastNode' } },
  { name: 'Held', parameters: { path: 'held', httpMethod: 'POST', responseMode: 'lastNode' } },
] };

/** Lets the runs of the Held node end (each waits for it). */
let letGo: () => void = () => undefined;
let held = Promise.resolve();

const hook = (path: string): string => `${PREFIX}/webhook/${path}`;

let temp: TempDir;

const executor = (runs: WebhookRun[]): WebhookExecutor => async (run) => {
  runs.push(run);
  if (run.nodeName === 'Slow') await sleep(300);
  if (run.nodeName === 'Stuck') await sleep(10_000, undefined, { signal: run.signal });
  if (run.nodeName === 'Held') await held;
  return echoRun(run);
};

interface Built { host: PluginHost; runs: WebhookRun[] }

async function build(options: PluginHostOptions = {}, extra: WebhookMiddlewareOptions = {}): Promise<Built> {
  const runs: WebhookRun[] = [];
  const registry = new MemoryWebhookRegistry();
  await registry.activate(WORKFLOW);
  const middleware = createWebhookMiddleware(registry, executor(runs), {
    limits: { bodySize: '64kb', fileSize: '4mb' },
    uploads: { tempDir: temp.path, memoryThreshold: '256kb' },
    onWorkflowError: () => undefined,
    logger: { error: () => undefined, warn: () => undefined },
    credentials: () => ({ name: 'x-api-key', value: 'key-1' }),
    ...extra,
  });
  return { host: await startPluginHost(middleware, options), runs };
}

describe('workflow-webhooks/fastify: the middleware as a Fastify 5 plugin', function plugin() {
  this.timeout(10_000);
  beforeEach(() => { temp = makeTempDir(); });
  afterEach(() => temp?.remove());

  describe('registered at /hooks beside the app\'s own routes', () => {
    let built: Built;
    const http = () => request(built.host.origin);
    beforeEach(async () => { built = await build(); });
    afterEach(() => built?.host.close());

    it('gives a JSON call to the workflow with its params, query and the webhookUrl under the prefix', async () => {
      const res = await http().post(`${hook('orders/7')}?tag=a&tag=b`).send({ item: 'Tea' }).expect(200);
      expect(res.body).to.deep.include({ body: { item: 'Tea' }, params: { id: '7' }, query: { tag: ['a', 'b'] }, executionMode: 'production' });
      expect(res.body.webhookUrl).to.equal(`${built.host.origin}${PREFIX}/webhook/orders/:id`);
    });

    it('hands the request stream over unread: the run gets the exact bytes sent, and Fastify\'s preParsing never runs', async () => {
      const sent = '{ "a" :  1 }';
      const res = await http().post(hook('raw')).set('content-type', 'application/json').send(sent).expect(200);
      expect(res.body.body).to.deep.equal({ a: 1 });
      expect(res.body.files).to.deep.equal([{ name: 'data', fileName: res.body.files[0].fileName, mimeType: 'application/json', onDisk: false, sha256: sha256(Buffer.from(sent)) }]);
      expect(built.host.hooks.map((record) => record.hook)).not.to.include('preParsing');
    });

    itGivesEveryBodyToTheRun(() => http(), hook);

    it('answers its own errors in JSON with a code: 404 unknown webhook, 405 wrong method, 413 body too large, 403 bad key', async () => {
      for (const path of [hook('nothing'), `${PREFIX}/webhook`, `${PREFIX}/webhook-test/nothing`]) {
        expect((await http().post(path).send({}).expect(404)).body.code, path).to.match(/^WEBHOOK_(NOT_FOUND|TEST_NOT_LISTENING)$/);
      }
      const wrong = await http().put(hook('orders/1')).send({}).expect(405).expect('allow', /POST/);
      expect(wrong.body.code).to.equal('WEBHOOK_METHOD_NOT_ALLOWED');
      expect((await http().post(hook('orders/1')).send({ text: 'x'.repeat(70 * 1024) }).expect(413)).body.code).to.equal('LIMIT_BODY_SIZE');
      expect((await http().post(hook('keyed')).send({}).expect(403).expect('content-type', /application\/json/)).body.code).to.equal('AUTH_INVALID');
      expect(built.runs).to.have.length(0);
    });

    it("leaves every other path to Fastify: its routes inside the prefix (body parsed by Fastify) and outside, and its own 404", async () => {
      await http().get('/api/orders').expect(200, [{ id: 1 }]);
      await http().post(`${PREFIX}/notes`).send({ note: 'Tea' }).expect(200, { parsedByFastify: { note: 'Tea' } });
      expect((await http().post(`${PREFIX}/notes`).set('content-type', 'application/xml').send('<a/>').expect(415)).body.code).to.equal('FST_ERR_CTP_INVALID_MEDIA_TYPE');
      for (const path of ['/nothing', `${PREFIX}/other`, `${PREFIX}/webhooks/orders/1`, '/webhook/orders/1']) {
        const res = await http().post(path).send({}).expect(404);
        expect(res.body).to.deep.equal({ message: `Route POST:${path} not found`, error: 'Not Found', statusCode: 404 });
      }
      expect(built.runs).to.have.length(0);
    });

    it("runs the app's onRequest hooks, before and after the registration, then onResponse; no parsing, handler or onSend hook", async () => {
      await http().post(hook('orders/1')).send({}).expect(200);
      await http().post(hook('nothing')).send({}).expect(404);
      await eventually(() => built.host.hooks.filter((record) => record.hook === 'onResponse').length === 2);
      // The middleware sees the call as an Express mount gives it: request.url below the prefix, originalUrl whole.
      const at = (url: string, status: number) => [
        { hook: 'onRequest before the plugin', url: hook(url), originalUrl: hook(url), status: 200 },
        { hook: 'onRequest after the plugin', url: hook(url), originalUrl: hook(url), status: 200 },
        { hook: 'onResponse', url: `/webhook/${url}`, originalUrl: hook(url), status },
      ];
      expect(built.host.hooks).to.deep.equal([...at('orders/1', 200), ...at('nothing', 404)]);
    });

    it('keeps the headers host hooks set on its answers, errors included: on reply.raw and with reply.header()', async () => {
      for (const [path, status] of [['orders/1', 200], ['nothing', 404], ['keyed', 403]] as const) {
        const res = await http().post(hook(path)).send({}).expect(status);
        expect(res.headers['x-request-id']).to.match(/^req-/);
        expect(res.headers).to.include({ 'x-fastify-header': 'set with reply.header' });
      }
    });

    it('leaves Fastify nothing to warn about, and Fastify logs each answer with the status sent', async () => {
      const before = built.host.logs.length;
      await http().post(hook('orders/1')).attach('file', randomBytes(2048), 'a.bin').expect(200);
      await http().post(hook('orders/1')).send({ text: 'x'.repeat(70 * 1024) }).expect(413);
      await http().post(hook('orders/1')).set('content-type', 'application/json').send('{oops').expect(400);
      // Fastify logs an answer once it is sent: all three logged, whatever Fastify had to say about them is too.
      const completedNow = () => built.host.logs.slice(before).filter((log) => log.msg === 'request completed');
      await eventually(() => completedNow().length === 3, 2000);
      const logs = built.host.logs.slice(before);
      expect(logs.filter((log) => log.level >= 40)).to.deep.equal([]);
      const completed = completedNow() as { res?: { statusCode?: number } }[];
      expect(completed.map((log) => log.res?.statusCode)).to.deep.equal([200, 413, 400]);
    });

    it('leaves no temp file when a caller hangs up half-way through an upload, and runs nothing', async () => {
      const req = httpRequest({ host: '127.0.0.1', port: new URL(built.host.origin).port, method: 'POST', path: hook('orders/1'), headers: {
        'content-type': 'multipart/form-data; boundary=B', 'content-length': String(3 * 1024 * 1024),
      } });
      req.on('error', () => undefined);
      req.write('--B\r\nContent-Disposition: form-data; name="f"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n');
      for (let i = 0; i < 8; i += 1) req.write(Buffer.alloc(64 * 1024, 1));
      await eventually(() => filesUnder(temp.path).length > 0, 2000);
      req.destroy();
      await eventually(() => filesUnder(temp.path).length === 0, 2000);
      expect(built.runs).to.have.length(0);
      await http().get('/api/orders').expect(200);
    });
  });

  describe('registration', () => {
    const middleware = (options: WebhookMiddlewareOptions = {}) => createWebhookMiddleware(new MemoryWebhookRegistry(), () => ({ items: [] }), options);
    const registering = async (options: Record<string, unknown>, pluginTimeout?: number): Promise<unknown> => {
      const app = Fastify(pluginTimeout === undefined ? {} : { pluginTimeout });
      try {
        await app.register(webhookPlugin, options as never);
        return undefined;
      } catch (error) {
        return error;
      } finally {
        await app.close();
      }
    };

    it("refuses a middleware with errorHandling 'next', whose errors Fastify could no longer answer, and names the middie way", async () => {
      const error = await registering({ middleware: middleware({ errorHandling: 'next' }), prefix: PREFIX });
      expect(error).to.be.instanceOf(TypeError).with.property('message').that.matches(/errorHandling 'next'/).and.matches(/@fastify\/middie/);
    });

    it('refuses options without the middleware createWebhookMiddleware() made', async () => {
      for (const given of [{}, { middleware: () => undefined }, { middleware: 'webhooks' }]) {
        expect(await registering(given)).to.be.instanceOf(TypeError).with.property('message', `workflow-webhooks/fastify: option middleware must be what createWebhookMiddleware() returns; got ${given.middleware === undefined ? 'undefined' : typeof given.middleware === 'function' ? 'a function' : '"webhooks"'}.`);
      }
    });

    it("refuses a closeTimeoutMs that does not fit 5 s below the app's pluginTimeout, which bounds each preClose hook", async () => {
      const error = await registering({ middleware: middleware(), closeTimeoutMs: 10_000 });
      expect(error).to.be.instanceOf(TypeError).with.property('message').that.matches(/pluginTimeout \(10000 ms\)/).and.matches(/at least 15000/);
      expect(await registering({ middleware: middleware(), closeTimeoutMs: 10_000 }, 15_000)).to.equal(undefined);
      expect(await registering({ middleware: middleware(), closeTimeoutMs: 60_000 }, 0)).to.equal(undefined);
      expect(await registering({ middleware: middleware(), closeTimeoutMs: -1 })).to.be.instanceOf(TypeError);
    });
  });

  describe('app.close()', () => {
    let built: Built;
    let agent: Agent;
    beforeEach(() => { agent = new Agent({ keepAlive: true }); });
    afterEach(() => closeAll(() => agent?.destroy(), () => built?.host.close()));

    const call = (path: string, method = 'POST', fresh = false) => new Promise<{ status: number; body: { code?: string; error?: string }; retryAfter?: string }>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port: new URL(built.host.origin).port, path, method, agent: fresh ? false : agent, headers: { 'content-type': 'application/json' } }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => { text += chunk; }).on('end', () => {
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(text), retryAfter: res.headers['retry-after'] });
        });
      });
      req.on('error', reject).end(method === 'GET' ? undefined : '{"a":1}');
    });

    it("answers a new call while the app closes with the middleware's 503 SHUTTING_DOWN and Retry-After; the app's own routes keep Fastify's 503", async () => {
      held = new Promise((resolve) => { letGo = resolve; });
      built = await build({ plugin: { closeTimeoutMs: 600_000 }, fastify: { pluginTimeout: 0 } });
      const first = call(hook('held'));
      await eventually(() => built.runs.length === 1);
      const closed = built.host.close();
      try {
        // The app is closing once Fastify answers its own route 503; the held run keeps it from finishing.
        await until(async () => (await call('/api/orders', 'GET', true)).status === 503, 5000);
        const late = await call(hook('orders/7'), 'POST', true);
        expect([late.status, late.body.code, late.retryAfter]).to.deep.equal([503, 'SHUTTING_DOWN', '5']);
        expect((await call('/api/orders', 'GET', true)).body).to.include({ error: 'Service Unavailable' });
        expect(built.runs).to.have.length(1);
      } finally {
        letGo();
        await closed;
      }
      expect((await first).status).to.equal(200);
    });

    it('closes the middleware in preClose: a slow call gets its answer, then its kept-alive connection closes at once', async () => {
      built = await build({ plugin: { closeTimeoutMs: 600_000 }, fastify: { pluginTimeout: 0 } });
      const answer = call(hook('slow'));
      await eventually(() => built.runs.length === 1);
      await built.host.close();
      expect((await answer).status).to.equal(200);
      expect(built.host.app.server.listening).to.equal(false);
      expect(await new Promise((resolve) => { built.host.app.server.getConnections((_error, count) => resolve(count)); })).to.equal(0);
    });

    it('by default drains 5 s less than pluginTimeout, so app.close() resolves: a stuck run is stopped and its caller gets 503', async () => {
      built = await build({ fastify: { pluginTimeout: 5_300 } });
      const answer = call(hook('stuck'));
      await eventually(() => built.runs.length === 1);
      // A drain of the middleware's own 10 s would outlast pluginTimeout, and app.close() would reject here.
      await built.host.close();
      expect(await answer).to.deep.include({ status: 503 }).and.nested.include({ 'body.code': 'SHUTTING_DOWN' });
      expect(built.runs[0]?.signal.aborted).to.equal(true);
    });
  });
});
