/**
 * Which calls a rate limit counts, and what a refused one costs, on node:http with the memory registry: only calls
 * that passed every guard spend a budget (an unauthenticated flood or a forged signature cannot use up a legitimate
 * caller's budget); a refused call is answered before its body is read and never runs; a header key is a credential
 * that is hashed, never shown; test addresses are not limited; the middleware's default holds where a workflow sets
 * none, and `false` opts a workflow out.
 */
import { expect } from 'chai';
import { request as httpRequest } from 'node:http';
import {
  createWebhookMiddleware, MemoryWebhookRegistry, WebhookError, type WebhookEvent, type WebhookMiddlewareOptions, type WorkflowWebhooks,
} from '../../../lib/index.js';
import { listen, sendTo, type RawResponse } from '../../support/raw-http.js';
import { SECRETS, signedHeaders } from '../../support/signers.js';
import { makeTempDir, type TempDir } from '../../support/temp-dir.js';
import { workflow } from '../../support/workflows.js';
import { closeAll } from '../../support/close-all.js';

const API_KEY = 'sk_live_4f9a0c7e1b2d3c5e6f708192a3b4c5d6';

describe('what a rate limit counts, and what a refused call costs', () => {
  let runs: number;
  let events: WebhookEvent[];
  let logged: unknown[];
  let server: Awaited<ReturnType<typeof listen>>;
  let uploads: TempDir;

  async function serve(workflows: WorkflowWebhooks[], options: WebhookMiddlewareOptions = {}): Promise<MemoryWebhookRegistry> {
    const registry = new MemoryWebhookRegistry();
    for (const one of workflows) await registry.activate(one);
    const middleware = createWebhookMiddleware(registry, () => {
      runs += 1;
      return { items: [{ json: {} }] };
    }, {
      onEvent: (event) => events.push(event),
      logger: { warn: (fields, message) => logged.push([fields, message]), error: (fields, message) => logged.push([fields, message]) },
      uploads: { tempDir: uploads.path, memoryThreshold: 0 },
      ...options,
    });
    server = await listen((req, res) => middleware(req, res, (error?: unknown) => {
      res.statusCode = error instanceof WebhookError ? 598 : 404;
      res.setHeader('x-next-headers', JSON.stringify(error instanceof WebhookError ? error.headers : {}));
      res.end();
    }));
    return registry;
  }

  const post = (path: string, headers: Record<string, string> = {}, body = '{"n":1}'): Promise<RawResponse> =>
    sendTo(server.port, { path: `/${path}`, headers: { 'content-type': 'application/json', ...headers }, chunks: [body] });

  beforeEach(() => {
    runs = 0;
    events = [];
    logged = [];
    uploads = makeTempDir();
  });
  afterEach(() => closeAll(() => server?.close(), () => uploads?.remove()));

  it('answers a refused call before its body arrives: a 50 MiB upload is refused with only its headers sent, and nothing is stored', async () => {
    await serve([workflow('files', { path: 'files', httpMethod: 'POST' }, { settings: { rateLimit: { limit: 1, windowMs: 60_000 } } })]);
    expect((await post('webhook/files')).status).to.equal(200);
    const answer = await new Promise<{ status: number; sent: number }>((resolve, reject) => {
      const req = httpRequest({
        host: '127.0.0.1', port: server.port, method: 'POST', path: '/webhook/files',
        headers: { 'content-type': 'application/octet-stream', 'content-length': String(50 * 2 ** 20) },
      }, (res) => {
        resolve({ status: res.statusCode ?? 0, sent: req.socket?.bytesWritten ?? -1 });
        req.destroy();
      });
      req.on('error', (error) => { if (!req.destroyed) reject(error); });
      req.flushHeaders();
    });
    expect(answer.status).to.equal(429);
    expect(answer.sent).to.be.below(1024);
    expect(uploads.files()).to.deep.equal([]);
    expect(runs).to.equal(1);
  });

  it('emits rejected with RATE_LIMITED and 429 for a refused call, which never starts a run', async () => {
    await serve([workflow('wf', { path: 'hook', httpMethod: 'POST' }, { settings: { rateLimit: { limit: 1, windowMs: 60_000 } } })]);
    await post('webhook/hook');
    events = [];
    await post('webhook/hook');
    const rejected = events.find((event) => event.type === 'rejected');
    expect(rejected?.type === 'rejected' && [rejected.code, rejected.status, rejected.workflowId, rejected.nodeName]).to.deep.equal(['RATE_LIMITED', 429, 'wf', 'Webhook']);
    expect(events.map((event) => event.type)).to.not.include('started');
    expect(runs).to.equal(1);
  });

  it('counts only calls that pass the guards: a flood with a wrong header-auth key spends nothing of the right caller\'s budget', async () => {
    await serve([workflow('wf', { path: 'hook', httpMethod: 'POST', authentication: 'headerAuth' }, { settings: { rateLimit: { limit: 2, windowMs: 60_000 } } })], {
      credentials: () => ({ name: 'x-api-key', value: API_KEY }),
    });
    const flood = await Promise.all(Array.from({ length: 20 }, () => post('webhook/hook', { 'x-api-key': 'guessed' })));
    expect(new Set(flood.map((res) => res.status))).to.deep.equal(new Set([403]));
    const legitimate = [await post('webhook/hook', { 'x-api-key': API_KEY }), await post('webhook/hook', { 'x-api-key': API_KEY }), await post('webhook/hook', { 'x-api-key': API_KEY })];
    expect(legitimate.map((res) => res.status)).to.deep.equal([200, 200, 429]);
  });

  it('counts a signed call once its signature holds: forged calls spend nothing, genuine ones do', async () => {
    await serve([{
      workflowId: 'gh', nodes: [{ name: 'GitHub', parameters: { path: 'github', httpMethod: 'POST', authentication: 'signatureAuth' } }],
      settings: { rateLimit: { limit: 2, windowMs: 60_000 } },
    }], { credentials: () => ({ scheme: 'github', secret: SECRETS.github }) });
    const forged = await Promise.all(Array.from({ length: 10 }, async () => post('webhook/github', await signedHeaders('github', '{"n":1}', { secret: 'not-the-secret' }))));
    expect(new Set(forged.map((res) => (res.body as { code: string }).code))).to.deep.equal(new Set(['SIGNATURE_INVALID']));
    const genuine = [];
    for (let call = 0; call < 3; call += 1) genuine.push(await post('webhook/github', await signedHeaders('github', '{"n":1}')));
    expect(genuine.map((res) => res.status)).to.deep.equal([200, 200, 429]);
    expect(genuine[2]?.headers.ratelimit).to.equal('"address-60s";r=0;t=60');
    expect(runs).to.equal(2);
  });

  it('keys by a header: each value its own budget, calls without it one shared budget, and the value never shown anywhere', async () => {
    await serve([workflow('wf', { path: 'hook', httpMethod: 'POST' }, { settings: { rateLimit: { limit: 1, windowMs: 60_000, key: 'X-Api-Key' } } })]);
    const statuses = [];
    for (const key of [API_KEY, API_KEY, 'another-key', undefined, undefined]) {
      const res = await post('webhook/hook', key === undefined ? {} : { 'x-api-key': key });
      statuses.push(res.status);
      expect(res.text + JSON.stringify(res.headers)).to.not.include(API_KEY);
    }
    expect(statuses).to.deep.equal([200, 429, 200, 200, 429]);
    const refused = events.find((event) => event.type === 'rejected');
    expect(refused?.type === 'rejected' && refused.error.message).to.equal('Too many calls: this webhook takes 1 call per 60 s for each value of the x-api-key header. Try again in 60 s.');
    expect(JSON.stringify(events) + JSON.stringify(logged)).to.not.include(API_KEY);
  });

  it('does not limit test addresses: a listen takes its one call whatever the workflow\'s limit', async () => {
    const limited = workflow('wf', { path: 'hook', httpMethod: 'POST' }, { settings: { rateLimit: { limit: 1, windowMs: 60_000 } } });
    const registry = await serve([limited]);
    await post('webhook/hook');
    expect((await post('webhook/hook')).status).to.equal(429);
    const handle = await registry.listenForTest(limited);
    const test = await post('webhook-test/hook');
    expect([test.status, test.headers.ratelimit, (await handle.result).status]).to.deep.equal([200, undefined, 'received']);
  });

  it('limits every production address with the middleware\'s default, unless a workflow sets its own or opts out with false', async () => {
    await serve([
      workflow('plain', { path: 'plain', httpMethod: 'POST' }),
      workflow('own', { path: 'own', httpMethod: 'POST' }, { settings: { rateLimit: { limit: 2, windowMs: 60_000, name: 'own-limit' } } }),
      workflow('out', { path: 'out', httpMethod: 'POST' }, { settings: { rateLimit: false } }),
    ], { rateLimit: { default: { limit: 1, windowMs: 30_000 } } });
    const statuses = async (path: string): Promise<number[]> => [(await post(path)).status, (await post(path)).status, (await post(path)).status];
    expect(await statuses('webhook/plain')).to.deep.equal([200, 429, 429]);
    expect(await statuses('webhook/own')).to.deep.equal([200, 200, 429]);
    expect(await statuses('webhook/out')).to.deep.equal([200, 200, 200]);
    expect((await post('webhook/own')).headers['ratelimit-policy']).to.equal('"own-limit";q=2;w=60');
    expect((await post('webhook/out')).headers['ratelimit-policy']).to.equal(undefined);
  });

  it('with headers "refused", tells the limit on refusals only', async () => {
    await serve([workflow('wf', { path: 'hook', httpMethod: 'POST' }, { settings: { rateLimit: { limit: 1, windowMs: 60_000 } } })], { rateLimit: { headers: 'refused' } });
    const accepted = await post('webhook/hook');
    const refused = await post('webhook/hook');
    expect([accepted.headers['ratelimit-policy'], accepted.headers.ratelimit]).to.deep.equal([undefined, undefined]);
    expect([refused.headers['retry-after'], refused.headers['ratelimit-policy'], refused.headers.ratelimit]).to.deep.equal(['60', '"address-60s";q=1;w=60', '"address-60s";r=0;t=60']);
  });

  it('passes a call only when every policy has room, and names the one to wait longest for in Retry-After', async () => {
    await serve([workflow('wf', { path: 'hook', httpMethod: 'POST' }, {
      settings: { rateLimit: [{ limit: 2, windowMs: 1000, name: 'burst' }, { limit: 3, windowMs: 120_000, name: 'steady' }] },
    })]);
    const first = [await post('webhook/hook'), await post('webhook/hook'), await post('webhook/hook')];
    expect(first.map((res) => res.status)).to.deep.equal([200, 200, 429]);
    expect(first[0]?.headers['ratelimit-policy']).to.equal('"burst";q=2;w=1, "steady";q=3;w=120');
    expect(first[2]?.headers.ratelimit).to.equal('"burst";r=0;t=1, "steady";r=1;t=120');
    expect(first[2]?.headers['retry-after']).to.equal('1');
    await new Promise((resolve) => setTimeout(resolve, 1050));
    const second = [await post('webhook/hook'), await post('webhook/hook')];
    expect(second.map((res) => res.status)).to.deep.equal([200, 429]);
    // The burst budget has room now, the steady one none: the refusal says to wait for the steady window.
    const steady = /^"burst";r=1;t=1, "steady";r=0;t=(\d+)$/.exec(String(second[1]?.headers.ratelimit));
    expect(Number(steady?.[1])).to.be.within(110, 119);
    expect(second[1]?.headers['retry-after']).to.equal(steady?.[1]);
    expect(runs).to.equal(3);
  });

  it('hands the refusal with its headers to the host\'s error handler with errorHandling "next", and keeps a RateLimit header the host set', async () => {
    const registry = new MemoryWebhookRegistry();
    await registry.activate(workflow('wf', { path: 'hook', httpMethod: 'POST' }, { settings: { rateLimit: { limit: 1, windowMs: 60_000 } } }));
    const middleware = createWebhookMiddleware(registry, () => ({ items: [] }), { errorHandling: 'next' });
    server = await listen((req, res) => {
      res.setHeader('ratelimit', '"gateway";r=99;t=1');
      res.setHeader('ratelimit-policy', '"gateway";q=100;w=1');
      middleware(req, res, (error?: unknown) => {
        res.statusCode = error instanceof WebhookError ? error.status : 404;
        if (error instanceof WebhookError) for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
        res.end();
      });
    });
    const accepted = await post('webhook/hook');
    expect([accepted.headers['ratelimit-policy'], accepted.headers.ratelimit]).to.deep.equal(['"gateway";q=100;w=1, "address-60s";q=1;w=60', '"gateway";r=99;t=1, "address-60s";r=0;t=60']);
    const refused = await post('webhook/hook');
    expect([refused.status, refused.headers['retry-after'], refused.headers.ratelimit]).to.deep.equal([429, '60', '"gateway";r=99;t=1, "address-60s";r=0;t=60']);
  });
});
