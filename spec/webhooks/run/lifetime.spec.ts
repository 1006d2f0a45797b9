import { expect } from 'chai';
import { fork } from 'node:child_process';
import { Agent, request as httpRequest } from 'node:http';
import { fileURLToPath } from 'node:url';
import request from 'supertest';
import { createWebhookMiddleware, MemoryWebhookRegistry, type WebhookMiddleware, type WebhookRun } from '../../../lib/index.js';
import { BASE, HOSTS } from '../../support/apps.js';
import { eventually, filesUnder, makeTempDir, type TempDir } from '../../support/temp-dir.js';
import { deferred, workflow } from '../../support/workflows.js';

interface Logged { level: 'error' | 'warn'; fields: Record<string, unknown>; message: string | undefined }

for (const host of HOSTS) {
  describe(`runs that never end, and shutting down, in ${host.name}`, () => {
    let temp: TempDir;
    let runs: WebhookRun[];
    let logged: Logged[];
    let finish: ReturnType<typeof deferred<void>>;
    let middleware: WebhookMiddleware;
    let app: ReturnType<typeof host.build>;

    beforeEach(async () => {
      temp = makeTempDir();
      runs = [];
      logged = [];
      finish = deferred();
      const registry = new MemoryWebhookRegistry();
      await registry.activate({ workflowId: 'wf', nodes: [
        { name: 'Hung', parameters: { path: 'hung', httpMethod: 'POST' } },
        { name: 'Waits', parameters: { path: 'waits', httpMethod: 'POST', responseMode: 'lastNode' } },
      ] });
      middleware = createWebhookMiddleware(registry, async (run) => {
        runs.push(run);
        if (run.nodeName === 'Hung') return new Promise(() => undefined);
        await finish.promise;
        return { items: [{ json: { done: true } }] };
      }, {
        uploads: { tempDir: temp.path, memoryThreshold: 0 },
        maxRunMs: 150,
        logger: { error: (fields, message) => logged.push({ level: 'error', fields, message }), warn: (fields, message) => logged.push({ level: 'warn', fields, message }) },
      });
      app = host.build(middleware);
    });
    afterEach(() => temp.remove());

    it('tells a hung onReceived run to stop after maxRunMs and removes its temp files', async () => {
      await request(app).post(`${BASE}/webhook/hung`).attach('file', Buffer.alloc(4096, 1), 'a.bin').expect(200, { message: 'Workflow was started' });
      expect(filesUnder(temp.path)).to.have.length(1);
      const signal = (runs[0] as WebhookRun).signal;
      expect(signal.aborted).to.equal(false);
      await eventually(() => signal.aborted, 2000);
      expect((signal.reason as { code: string }).code).to.equal('WORKFLOW_TIMEOUT');
      await eventually(() => filesUnder(temp.path).length === 0, 2000);
      expect(logged.some((entry) => entry.level === 'warn' && /maxRunMs/.test(entry.message ?? ''))).to.equal(true);
    });

    it('close() lets runs under way finish, answers new calls 503, and says how many completed', async () => {
      const pending = request(app).post(`${BASE}/webhook/waits`).send({ a: 1 }).then((res) => res);
      await eventually(() => runs.length === 1);
      const closing = middleware.close({ timeoutMs: 2000 });
      const refused = await request(app).post(`${BASE}/webhook/waits`).send({ a: 2 }).expect(503);
      expect(refused.body.code).to.equal('SHUTTING_DOWN');
      expect(refused.headers['retry-after']).to.equal('5');
      expect(refused.headers.connection).to.equal('close');
      finish.resolve();
      expect((await pending).body).to.deep.equal({ done: true });
      expect(await closing).to.deep.equal({ completed: 1, aborted: 0 });
    });

    it('close() tells runs still going at its timeout to stop, and removes their temp files', async () => {
      await request(app).post(`${BASE}/webhook/hung`).attach('file', Buffer.alloc(4096, 1), 'a.bin').expect(200);
      expect(filesUnder(temp.path)).to.have.length(1);
      const result = await middleware.close({ timeoutMs: 50 });
      expect(result).to.deep.equal({ completed: 0, aborted: 1 });
      expect(((runs[0] as WebhookRun).signal.reason as { code: string }).code).to.equal('SHUTTING_DOWN');
      expect(filesUnder(temp.path)).to.deep.equal([]);
    });
  });
}

describe('a run that outlives its answer', () => {
  it('keeps neither the request nor the response alive', async function () {
    this.timeout(10_000);
    const gc = (globalThis as { gc?: () => void }).gc;
    if (gc === undefined) throw new Error('mocha must run with --expose-gc (package.json "node-option")');
    const registry = new MemoryWebhookRegistry();
    await registry.activate(workflow('wf', { path: 'hung', httpMethod: 'POST' }));
    const middleware = createWebhookMiddleware(registry, () => new Promise(() => undefined));
    const refs: WeakRef<object>[] = [];
    const app = (HOSTS[0] as (typeof HOSTS)[number]).build(Object.assign((req: Parameters<WebhookMiddleware>[0], res: Parameters<WebhookMiddleware>[1], next: Parameters<WebhookMiddleware>[2]) => {
      refs.push(new WeakRef(req), new WeakRef(res));
      middleware(req, res, next);
    }, { close: middleware.close, settings: middleware.settings, subscribe: middleware.subscribe }));
    for (let index = 0; index < 20; index += 1) await request(app).post(`${BASE}/webhook/hung`).set('connection', 'close').send({ index }).expect(200);
    await new Promise((resolve) => setTimeout(resolve, 100));
    gc();
    await new Promise((resolve) => setTimeout(resolve, 50));
    gc();
    expect(refs.filter((ref) => ref.deref() !== undefined)).to.have.length(0);
    await middleware.close({ timeoutMs: 1 });
  });
});

describe('calls under steady load', () => {
  it('leave nothing behind that young collections must keep: 20 000 finished calls promote well under 100 bytes each', async function () {
    // Under load, a call's objects used to outlive it (a churned Set's replaced tables, a closure kept on the call's
    // state): every call was promoted, and the old generation needed a mark-compact every ~5 000 calls.
    this.timeout(60_000);
    const child = fork(fileURLToPath(new URL('../../support/gc-watched-server.ts', import.meta.url)), [], {
      execArgv: ['--conditions=workflow-webhooks-source', '--import', 'tsx', '--expose-gc'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const next = <T>(type: string): Promise<T> => new Promise((resolve, reject) => {
      const heard = (message: T & { type: string }): void => {
        if (message.type !== type) return;
        child.off('message', heard);
        resolve(message);
      };
      child.on('message', heard);
      child.once('exit', (code) => reject(new Error(`the server exited with ${String(code)}`)));
    });
    try {
      const { port } = await next<{ port: number }>('listening');
      const agent = new Agent({ keepAlive: true, maxSockets: 10 });
      const body = 'name=Ada+Lovelace&email=ada%40example.com&tags=a&tags=b';
      const post = (): Promise<number> => new Promise((resolve, reject) => {
        const req = httpRequest({ port, host: '127.0.0.1', path: '/webhook/hook', method: 'POST', agent, headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': body.length } }, (res) => {
          res.resume().on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject).end(body);
      });
      /** `amount` calls over 10 kept-alive connections; how many were not answered 2xx. */
      const load = async (amount: number): Promise<{ non2xx: number }> => {
        let non2xx = 0;
        await Promise.all(Array.from({ length: 10 }, async () => {
          for (let sent = 0; sent < amount / 10; sent += 1) if (await post() >= 300) non2xx += 1;
        }));
        return { non2xx };
      };
      expect((await load(10_000)).non2xx, 'warm-up answers other than 2xx').to.equal(0);
      const started = next<unknown>('started');
      child.send({ type: 'start' });
      await started;
      expect((await load(20_000)).non2xx, 'answers other than 2xx').to.equal(0);
      const stopped = next<{ scavenges: number; promoted: number; markCompacts: number }>('stopped');
      child.send({ type: 'stop' });
      const { scavenges, promoted, markCompacts } = await stopped;
      expect(scavenges, 'young collections in the window').to.be.greaterThan(0);
      expect(promoted / 20_000, `bytes promoted per call (${scavenges} young and ${markCompacts} full collections)`).to.be.below(100);
      agent.destroy();
    } finally {
      child.kill();
    }
  });
});
