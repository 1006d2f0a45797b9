import { expect } from 'chai';
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
    afterEach(() => temp?.remove());

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
