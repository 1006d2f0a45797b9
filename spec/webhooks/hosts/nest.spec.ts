/**
 * The middleware in a real NestJS 12 application (Express platform, Nest's default body parsers on), mounted the
 * two ways Nest users do: `app.use('/hooks', …)` in main.ts, which runs before Nest's parsers, and a module's
 * `consumer.apply(…).forRoutes('hooks')`, which runs after them. Everything goes through HTTP.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import request from 'supertest';
import {
  createWebhookMiddleware, MemoryWebhookRegistry,
  type BinaryData, type WebhookExecutor, type WebhookMiddlewareOptions, type WebhookRun, type WorkflowWebhooks,
} from '../../../lib/index.js';
import { MOUNT, startNestHost, type Mounting, type NestHost, type NestHostOptions } from '../../support/hosts/nest-app.js';
import { sendTo } from '../../support/raw-http.js';
import { credentialOf, signedHeaders } from '../../support/signers.js';
import { eventually, makeTempDir, type TempDir } from '../../support/temp-dir.js';
import { closeAll } from '../../support/close-all.js';

const WORKFLOW: WorkflowWebhooks = { workflowId: 'wf', workflowName: 'Nest hooks', nodes: [
  { name: 'Echo', parameters: { path: 'echo', httpMethod: 'POST', responseMode: 'lastNode' } },
  { name: 'Started', parameters: { path: 'started', httpMethod: 'POST' } },
  { name: 'Respond', parameters: { path: 'respond', httpMethod: 'POST', responseMode: 'responseNode' } },
  { name: 'Files', parameters: { path: 'files', httpMethod: 'POST', responseMode: 'lastNode' } },
  { name: 'Raw', parameters: { path: 'raw', httpMethod: 'POST', responseMode: 'lastNode', options: { rawBody: true } } },
  { name: 'Signed', parameters: { path: 'signed', httpMethod: 'POST', responseMode: 'lastNode', authentication: 'signatureAuth' } },
  { name: 'Keyed', parameters: { path: 'keyed', httpMethod: 'POST', authentication: 'headerAuth' } },
  { name: 'Basic', parameters: { path: 'basic', httpMethod: 'POST', authentication: 'basicAuth' } },
  { name: 'Broken', parameters: { path: 'broken', httpMethod: 'POST', responseMode: 'lastNode' } },
  { name: 'Report', parameters: { path: 'report', httpMethod: 'GET', responseMode: 'lastNode', responseData: 'firstEntryBinary' } },
  { name: 'Slow', parameters: { path: 'slow', httpMethod: 'POST', responseMode: 'lastNode' } },
  { name: 'Stuck', parameters: { path: 'stuck', httpMethod: 'POST', responseMode: 'lastNode' } },
] };

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

interface Built { host: NestHost; runs: WebhookRun[]; errors: string[]; warnings: string[] }

let temp: TempDir;
let reportPath: string;

const executor: (runs: WebhookRun[]) => WebhookExecutor = (runs) => async (run) => {
  runs.push(run);
  const item = run.items[0]!;
  switch (run.nodeName) {
    case 'Respond':
      run.respond({ status: 201, headers: { 'x-workflow': 'answered' }, body: { created: true } });
      return { items: [] };
    case 'Files': {
      const files = Object.entries(item.binary ?? {}).map(([name, file]: [string, BinaryData]) => {
        const bytes = file.data ?? readFileSync(file.path!);
        return { name, fileName: file.fileName, mimeType: file.mimeType, onDisk: file.path !== undefined, sha256: sha256(bytes) };
      });
      return { items: [{ json: { body: item.json.body, files } }] };
    }
    case 'Raw': return { items: [{ json: { body: item.json.body, raw: item.binary?.data?.data?.toString() } }] };
    case 'Broken': throw new Error('the database is gone');
    case 'Report': return { items: [{ json: {}, binary: { data: { mimeType: 'application/pdf', fileName: 'report.pdf', path: reportPath } } }] };
    case 'Slow': await sleep(300); break;
    case 'Stuck': await sleep(10_000, undefined, { signal: run.signal }); break;
  }
  return { items: run.items };
};

async function build(options: NestHostOptions, extra: WebhookMiddlewareOptions = {}): Promise<Built> {
  const built = { runs: [] as WebhookRun[], errors: [] as string[], warnings: [] as string[] };
  const registry = new MemoryWebhookRegistry();
  await registry.activate(WORKFLOW);
  const middleware = createWebhookMiddleware(registry, executor(built.runs), {
    limits: { bodySize: '2kb' }, openApi: { title: 'Nest hooks' }, onWorkflowError: () => undefined,
    logger: { error: (fields, message) => built.errors.push(`${message} ${JSON.stringify(fields)}`), warn: (_, message) => built.warnings.push(message ?? '') },
    credentials: ({ nodeName }) => nodeName === 'Signed' ? credentialOf('standardWebhooks')
      : nodeName === 'Keyed' ? { name: 'x-api-key', value: 'key-1' } : { user: 'ada', password: 'secret' },
    ...extra,
  });
  return { ...built, host: await startNestHost(middleware, { securityHeaders: true, ...options }) };
}

/** Runs `use` against a host of its own, closed whatever happens. */
async function withHost(options: NestHostOptions, use: (built: Built) => Promise<void>, extra?: WebhookMiddlewareOptions): Promise<void> {
  const built = await build(options, extra);
  try { await use(built); } finally { await built.host.close(); }
}

/** How many descriptors this process holds open on `path` (Linux: the links in /proc/self/fd). */
function openDescriptors(path: string): number {
  return readdirSync('/proc/self/fd').filter((fd) => {
    try { return readlinkSync(`/proc/self/fd/${fd}`) === path; } catch { return false; }
  }).length;
}

const MOUNTINGS: { mounting: Mounting; label: string; parsedByNest: boolean }[] = [
  { mounting: 'app.use', label: "app.use('/hooks', …) in main.ts", parsedByNest: false },
  { mounting: 'forRoutes(string)', label: "a module's consumer.apply(…).forRoutes('hooks')", parsedByNest: true },
];

for (const { mounting, label, parsedByNest } of MOUNTINGS) {
  describe(`NestJS 12 with the webhooks mounted by ${label}`, function nest() {
    this.timeout(10_000);
    let built: Built;
    const http = () => request(built.host.origin);
    const hook = (path: string) => `${MOUNT}/webhook/${path}`;

    before(async () => {
      temp = makeTempDir();
      reportPath = join(temp.path, 'report.pdf');
      writeFileSync(reportPath, randomBytes(3 * 1024 * 1024));
      built = await build({ mounting, rawBody: true });
    });
    after(() => closeAll(() => built?.host.close(), () => temp?.remove()));
    beforeEach(() => { built.runs.length = 0; built.errors.length = 0; built.warnings.length = 0; });

    it("still serves the app's own controller, whose JSON body Nest parses", async () => {
      await http().get('/api/orders').expect(200, [{ id: 1 }]);
      await http().post('/api/orders').send({ item: 'Tea' }).expect(201, { received: { item: 'Tea' } });
    });

    it('gives a JSON body to the workflow, with its address under the mount in webhookUrl and the OpenAPI server', async () => {
      const res = await http().post(hook('echo')).send({ item: 'Tea', count: 2 }).expect(200);
      expect(res.body.body).to.deep.equal({ item: 'Tea', count: 2 });
      expect(res.body.webhookUrl).to.equal(`${built.host.origin}${MOUNT}/webhook/echo`);
      const openApi = await http().get(`${MOUNT}/openapi.json`).expect(200);
      expect(openApi.body.servers).to.deep.equal([{ url: `${built.host.origin}${MOUNT}` }]);
      expect(openApi.body.paths).to.have.property('/webhook/echo');
    });

    it(`gives an urlencoded form to the workflow, ${parsedByNest ? "as Nest's extended parser nests it" : 'flat, as the middleware parses it'}`, async () => {
      const res = await http().post(hook('echo')).type('form').send('name=Ada&tag=a&tag=b&a[b]=1').expect(200);
      expect(res.body.body).to.deep.equal(parsedByNest
        ? { name: 'Ada', tag: ['a', 'b'], a: { b: '1' } }
        : { name: 'Ada', tag: ['a', 'b'], 'a[b]': '1' });
    });

    it(`gives a node with the option rawBody the untouched bytes, ${parsedByNest ? 'those Nest kept with rawBody: true' : 'read before Nest\'s parsers'}`, async () => {
      const res = await http().post(hook('raw')).set('content-type', 'application/json').send('{ "a" : 1 }').expect(200);
      expect(res.body).to.deep.equal({ body: { a: 1 }, raw: '{ "a" : 1 }' });
      expect(built.warnings).to.deep.equal([]);
    });

    it('gives multipart fields and real files to the workflow as binary, the large one streamed to disk', async () => {
      const pdf = randomBytes(1536 * 1024);
      const notes = Buffer.from('first line\nsecond line\n');
      const res = await http().post(hook('files')).field('title', 'Report')
        .attach('document', pdf, { filename: 'report.pdf', contentType: 'application/pdf' })
        .attach('notes', notes, { filename: 'notes.txt', contentType: 'text/plain' }).expect(200);
      expect(res.body).to.deep.equal({ body: { title: 'Report' }, files: [
        { name: 'document', fileName: 'report.pdf', mimeType: 'application/pdf', onDisk: true, sha256: sha256(pdf) },
        { name: 'notes', fileName: 'notes.txt', mimeType: 'text/plain', onDisk: false, sha256: sha256(notes) },
      ] });
    });

    it('verifies a Standard Webhooks signature over the JSON body when Nest is created with rawBody: true', async () => {
      const body = JSON.stringify({ type: 'invoice.paid', amount: 120 });
      const res = await http().post(hook('signed')).set(await signedHeaders('standardWebhooks', body))
        .set('content-type', 'application/json').send(body).expect(200);
      expect(res.body.body).to.deep.equal({ type: 'invoice.paid', amount: 120 });
      expect(res.body.signature).to.include({ scheme: 'standardWebhooks' });
      const forged = await http().post(hook('signed')).set(await signedHeaders('standardWebhooks', body))
        .set('content-type', 'application/json').send(JSON.stringify({ type: 'invoice.paid', amount: 1 })).expect(403);
      expect(forged.body.code).to.equal('SIGNATURE_INVALID');
      expect(built.runs).to.have.length(1);
    });

    it(parsedByNest
      ? 'refuses signed JSON and form calls with 500 SIGNATURE_BODY_UNAVAILABLE without rawBody: true, and logs what to change'
      : 'verifies signed JSON and form calls without rawBody: true too, since it reads them before Nest\'s parsers', async () => {
      await withHost({ mounting, rawBody: false }, async (plain) => {
        for (const [type, body] of [['application/json', '{"type":"invoice.paid"}'], ['application/x-www-form-urlencoded', 'type=invoice.paid']] as const) {
          const res = await request(plain.host.origin).post(hook('signed')).set(await signedHeaders('standardWebhooks', body))
            .set('content-type', type).send(body).expect(parsedByNest ? 500 : 200);
          expect(parsedByNest ? res.body.code : res.body.body).to.deep.equal(parsedByNest ? 'SIGNATURE_BODY_UNAVAILABLE' : { type: 'invoice.paid' });
        }
        if (!parsedByNest) return;
        expect(plain.runs).to.have.length(0);
        expect(plain.errors).to.have.length(2);
        // The operator's log says what to change, not only the caller's answer.
        expect(plain.errors[0]).to.match(/^webhook call answered 500 SIGNATURE_BODY_UNAVAILABLE /).and.match(/kept no raw bytes/)
          .and.match(/"hint":"[^"]*NestFactory\.create\(AppModule, \{ rawBody: true \}\)/);
      });
    });

    it('answers each response mode: onReceived at once, lastNode with the last item, responseNode with respond()', async () => {
      await http().post(hook('started')).send({ a: 1 }).expect(200, { message: 'Workflow was started' });
      const last = await http().post(hook('echo')).send({ a: 1 }).expect(200);
      expect(last.body).to.include({ executionMode: 'production' }).and.deep.include({ body: { a: 1 }, params: {} });
      await http().post(hook('respond')).send({}).expect(201, { created: true }).expect('x-workflow', 'answered');
    });

    it('refuses calls without credentials with JSON that has a code: 401 for basicAuth, 403 for headerAuth', async () => {
      const basic = await http().post(hook('basic')).send({}).expect(401).expect('www-authenticate', /^Basic realm="Webhook"/);
      expect(basic.body.code).to.equal('AUTH_REQUIRED');
      const keyed = await http().post(hook('keyed')).send({}).expect(403).expect('content-type', /application\/json/);
      expect(keyed.body.code).to.equal('AUTH_INVALID');
      await http().post(hook('keyed')).set('x-api-key', 'key-1').send({}).expect(200);
      await http().post(hook('basic')).auth('ada', 'secret').send({}).expect(200);
      await eventually(() => built.runs.length === 2);
      expect(built.runs.map((run) => run.nodeName).sort()).to.deep.equal(['Basic', 'Keyed']);
    });

    it('answers a text body over limits.bodySize with 413 LIMIT_BODY_SIZE, since Nest does not parse text', async () => {
      const res = await http().post(hook('echo')).set('content-type', 'text/plain').send('x'.repeat(3000)).expect(413);
      expect(res.body.code).to.equal('LIMIT_BODY_SIZE');
      expect(built.runs).to.have.length(0);
    });

    if (parsedByNest) {
      it("holds JSON to Nest's own parser limit (100kb), not limits.bodySize, since Nest read it first", async () => {
        const small = await http().post(hook('echo')).send({ text: 'x'.repeat(3000) }).expect(200);
        expect(small.body.body.text).to.have.length(3000);
        const large = await http().post(hook('echo')).send({ text: 'x'.repeat(200_000) }).expect(413);
        expect(large.body).to.deep.equal({ statusCode: 413, message: 'request entity too large' });
      });
    } else {
      it('holds JSON to limits.bodySize too: 413 LIMIT_BODY_SIZE before the body is read', async () => {
        const res = await http().post(hook('echo')).send({ text: 'x'.repeat(3000) }).expect(413);
        expect(res.body.code).to.equal('LIMIT_BODY_SIZE');
      });
    }

    it('streams a file from disk as a firstEntryBinary answer, and closes it', async () => {
      const res = await http().get(hook('report')).buffer(true).parse((response, done) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk)).on('end', () => done(null, Buffer.concat(chunks)));
      }).expect(200).expect('content-type', 'application/pdf').expect('content-disposition', 'inline; filename=report.pdf');
      expect(sha256(res.body as Buffer)).to.equal(sha256(readFileSync(reportPath)));
      await eventually(() => openDescriptors(reportPath) === 0);
    });

    for (const [what, path, status] of [['an unknown address', 'nothing', 404], ['a refused call', 'keyed', 403], ['a failed workflow', 'broken', 500], ['a body over the limit', 'echo', 413]] as const) {
      it(`keeps the request id and Nest's security headers on the answer to ${what} (${status})`, async () => {
        const res = await http().post(hook(path)).set('content-type', 'text/plain').send(status === 413 ? 'x'.repeat(3000) : 'hi').expect(status);
        expect(res.body.code).to.be.a('string');
        expect(res.headers).to.include({ 'x-request-id': 'nest-req-1', 'x-content-type-options': 'nosniff', 'x-frame-options': 'SAMEORIGIN' });
        expect(res.headers['content-security-policy']).to.include("default-src 'self'");
      });
    }

    describe('shutdown through beforeApplicationShutdown', () => {
      let closing: Built;
      afterEach(() => closing?.host.close());

      it('lets app.close() wait for a slow lastNode call, which gets its answer, and leaves the port closed', async () => {
        closing = await build({ mounting, closeTimeoutMs: 2000 });
        const answer = sendTo(closing.host.port, { path: hook('slow'), headers: { 'content-type': 'application/json', connection: 'close' }, chunks: ['{"a":1}'] });
        await eventually(() => closing.runs.length === 1);
        await closing.host.close();
        expect((await answer).status).to.equal(200);
        expect(await closing.host.shutdown).to.deep.equal({ completed: 1, aborted: 0 });
        expect(closing.host.app.getHttpServer().listening).to.equal(false);
        const refused = await fetch(`${closing.host.origin}/api/orders`).then(() => undefined, (error: { cause?: { code?: string } }) => error.cause?.code);
        expect(refused).to.equal('ECONNREFUSED');
      });

      it('answers a call whose run outlasts the close timeout 503 SHUTTING_DOWN with Retry-After, and stops the run', async () => {
        closing = await build({ mounting, closeTimeoutMs: 200 });
        const answer = sendTo(closing.host.port, { path: hook('stuck'), headers: { 'content-type': 'application/json', connection: 'close' }, chunks: ['{}'] });
        await eventually(() => closing.runs.length === 1);
        await closing.host.close();
        const { status, headers, body } = await answer;
        expect([status, headers['retry-after'], (body as { code: string }).code]).to.deep.equal([503, '5', 'SHUTTING_DOWN']);
        expect(await closing.host.shutdown).to.deep.equal({ completed: 0, aborted: 1 });
        expect(closing.runs[0]?.signal.aborted).to.equal(true);
        expect(closing.warnings.join('\n')).to.match(/close\(\): 1 call\(s\) still under way after 200 ms were told to stop/);
      });
    });
  });
}

describe('NestJS 12: which forRoutes() form, global prefix and shutdown hook the middleware needs', () => {
  it("forRoutes({ path: 'hooks/*path', method: RequestMethod.ALL }) hands it the whole URL, so every call falls through to Nest's 404", async () => {
    await withHost({ mounting: 'forRoutes(RouteInfo)', rawBody: true }, async ({ host, runs }) => {
      const res = await request(host.origin).post(`${MOUNT}/webhook/echo`).send({ a: 1 }).expect(404);
      expect(res.body).to.deep.include({ statusCode: 404, message: `Cannot POST ${MOUNT}/webhook/echo` });
      expect(runs).to.have.length(0);
    });
  });

  it('setGlobalPrefix() moves the path forRoutes() mounts, and leaves an app.use() mount where it is', async () => {
    for (const [mounting, reached] of [['forRoutes(string)', `/api${MOUNT}`], ['app.use', MOUNT]] as const) {
      await withHost({ mounting, globalPrefix: 'api' }, async ({ host }) => {
        const res = await request(host.origin).post(`${reached}/webhook/echo`).send({ a: 1 }).expect(200);
        expect(res.body.webhookUrl).to.equal(`${host.origin}${reached}/webhook/echo`);
        await request(host.origin).post(`${reached === MOUNT ? `/api${MOUNT}` : MOUNT}/webhook/echo`).send({ a: 1 }).expect(404);
      });
    }
  });

  it('onApplicationShutdown comes after Nest closed its server, which waited for the call: close() has nothing left to drain', async function late() {
    this.timeout(5000);
    await withHost({ mounting: 'app.use', shutdownHook: 'onApplicationShutdown', closeTimeoutMs: 100 }, async ({ host, runs }) => {
      const answer = sendTo(host.port, { path: `${MOUNT}/webhook/stuck`, headers: { 'content-type': 'application/json', connection: 'close' }, chunks: ['{}'] });
      await eventually(() => runs.length === 1);
      await host.close();
      // The caller got the deadline's answer, not the shutdown's: app.close() was held until then.
      expect([(await answer).status, ((await answer).body as { code: string }).code]).to.deep.equal([524, 'WORKFLOW_TIMEOUT']);
      expect(await host.shutdown).to.deep.equal({ completed: 0, aborted: 0 });
    }, { responseTimeoutMs: 500 });
  });
});
