/**
 * What history keeps of one call (kept-call, kept-json), over HTTP in Express 5 with a MemoryHistoryStore: the body
 * up to `bodyBytes` (whole, its start, or only its size), each file as a row and its bytes up to `fileBytes` (held in
 * memory or streamed to disk), the answer up to `answerBytes`, and the call's links: request id, path with a
 * credential-named parameter redacted, route, instance and duration.
 */
import { expect } from 'chai';
import type { HistoryEntry } from '../../../lib/index.js';
import { HOOK_BASE, hookWorkflow, postJson, startHistoryApp, type HistoryApp, type HistoryAppOptions } from '../../support/history-app.js';
import { sendTo } from '../../support/raw-http.js';
import { makeTempDir, type TempDir } from '../../support/temp-dir.js';
import { closeAll } from '../../support/close-all.js';

const ORDER = { order: { id: 42, status: 'paid', note: 'x'.repeat(200) } };
const ORDER_TEXT = JSON.stringify(ORDER);

describe('call history: what is kept of a call', () => {
  let app: HistoryApp | undefined;
  let temp: TempDir | undefined;
  afterEach(() => closeAll(() => app?.close(), () => temp?.remove()));

  async function start(history: HistoryAppOptions['history'], options: Partial<HistoryAppOptions> = {}): Promise<HistoryApp> {
    app = await startHistoryApp({ workflows: [hookWorkflow('orders', 'orders')], history, ...options });
    return app;
  }

  async function keptAfter(send: (app: HistoryApp) => Promise<unknown>): Promise<HistoryEntry> {
    await send(app as HistoryApp);
    const [entry] = await (app as HistoryApp).kept();
    if (entry === undefined) throw new Error('the call was not kept');
    return entry;
  }

  it('keeps a body that fits bodyBytes whole', async () => {
    await start({ bodyBytes: ORDER_TEXT.length });
    const entry = await keptAfter((one) => postJson(one.url('orders'), ORDER));
    expect(entry.data).to.deep.include({ bodyKept: 'whole', body: ORDER, bodyKind: 'json', bodySize: ORDER_TEXT.length });
  });

  it('keeps the start of a body larger than bodyBytes, and its whole size', async () => {
    await start({ bodyBytes: 20 });
    const entry = await keptAfter((one) => postJson(one.url('orders'), ORDER));
    expect(entry.data).to.deep.include({ bodyKept: 'truncated', body: ORDER_TEXT.slice(0, 20), bodySize: ORDER_TEXT.length });
  });

  it('keeps no body by default, only its size as the caller sent it (Content-Length)', async () => {
    await start({});
    const spaced = JSON.stringify(ORDER, null, 2);
    const entry = await keptAfter((one) => fetch(one.url('orders'), { method: 'POST', body: spaced, headers: { 'content-type': 'application/json' } }).then((answer) => answer.text()));
    expect(entry.data.bodyKept).to.equal('none');
    expect(entry.data).not.to.have.property('body');
    expect(entry.data.bodySize).to.equal(Buffer.byteLength(spaced));
  });

  it('keeps an empty body whole even with no bodyBytes, so the call stays replayable', async () => {
    await start({});
    const entry = await keptAfter((one) => postJson(one.url('orders'), {}));
    expect(entry.data).to.deep.include({ bodyKept: 'whole', body: {} });
  });

  it('keeps each uploaded file as a row (name, type, size), and its bytes only when they fit fileBytes', async () => {
    temp = makeTempDir();
    await start({ fileBytes: 8 }, { middleware: { uploads: { tempDir: temp.path, memoryThreshold: 1024 } } });
    const form = new FormData();
    form.append('small', new Blob([Buffer.from('PDF-1')], { type: 'application/pdf' }), 'small.pdf');
    form.append('large', new Blob([Buffer.from('0123456789')], { type: 'text/plain' }), 'large.txt');
    const entry = await keptAfter((one) => fetch(one.url('orders'), { method: 'POST', body: form }).then((answer) => answer.text()));
    expect(entry.data.files).to.deep.equal([
      { property: 'small', fileName: 'small.pdf', mimeType: 'application/pdf', size: 5, data: Buffer.from('PDF-1').toString('base64') },
      { property: 'large', fileName: 'large.txt', mimeType: 'text/plain', size: 10 },
    ]);
  });

  it('keeps the bytes of a file streamed to disk (larger than uploads.memoryThreshold) when they fit fileBytes', async () => {
    temp = makeTempDir();
    const bytes = Buffer.alloc(4096, 7);
    await start({ fileBytes: 8192 }, { middleware: { uploads: { tempDir: temp.path, memoryThreshold: 100 } } });
    const form = new FormData();
    form.append('scan', new Blob([bytes], { type: 'application/octet-stream' }), 'scan.bin');
    const entry = await keptAfter((one) => fetch(one.url('orders'), { method: 'POST', body: form }).then((answer) => answer.text()));
    expect(entry.data.files).to.have.length(1);
    expect(entry.data.files[0]).to.deep.include({ property: 'scan', fileName: 'scan.bin', size: 4096 });
    expect(Buffer.from(entry.data.files[0]?.data ?? '', 'base64').equals(bytes)).to.equal(true);
  });

  it('keeps the workflow\'s answer whole when it fits answerBytes, else its start', async () => {
    const answer = { items: [{ json: { accepted: true, total: 42 } }] };
    const text = JSON.stringify([{ json: { accepted: true, total: 42 } }]);
    await start({ answerBytes: text.length }, { executor: () => answer });
    const whole = await keptAfter((one) => postJson(one.url('orders'), {}));
    expect(whole.data).to.deep.include({ answerKept: 'whole', answer: [{ json: { accepted: true, total: 42 } }] });
    await app?.close();
    await start({ answerBytes: 10 }, { executor: () => answer });
    const cut = await keptAfter((one) => postJson(one.url('orders'), {}));
    expect(cut.data).to.deep.include({ answerKept: 'truncated', answer: text.slice(0, 10) });
  });

  it('keeps no answer by default', async () => {
    await start({});
    const entry = await keptAfter((one) => postJson(one.url('orders'), { n: 1 }));
    expect(entry.data).not.to.have.property('answer');
    expect(entry.data).not.to.have.property('answerKept');
  });

  it('links the call: its x-request-id, its route, this instance, how long it took', async () => {
    await start({ instance: 'web-7' });
    const entry = await keptAfter((one) => postJson(one.url('orders'), {}, { 'x-request-id': 'req-42' }));
    expect(entry).to.deep.include({ requestId: 'req-42', route: '/webhook/orders', path: '/webhook/orders', instance: 'web-7', workflowId: 'orders', nodeName: 'Webhook', method: 'POST' });
    expect(entry.durationMs).to.be.a('number').and.at.least(0);
  });

  it('redacts a path parameter named like a credential, and keeps the others', async () => {
    app = await startHistoryApp({ workflows: [hookWorkflow('reset', 'users/:userId/reset/:token')] });
    const entry = await keptAfter((one) => postJson(one.url('users/u-7/reset/tk_s3cret-value'), {}));
    expect(entry.route).to.equal('/webhook/users/:userId/reset/:token');
    expect(entry.path).to.equal('/webhook/users/u-7/reset/[redacted]');
    expect(entry.data.params).to.deep.equal({ userId: 'u-7', token: '[redacted]' });
    expect(JSON.stringify(entry)).not.to.include('tk_s3cret-value');
  });

  it('shows each call of a webhook with parameters by its own path, the credential-named one redacted in each', async () => {
    app = await startHistoryApp({ workflows: [hookWorkflow('reset', 'users/:userId/reset/:token')] });
    await postJson(app.url('users/u-7/reset/tk_s3cret-one'), {});
    await postJson(app.url('users/u-8/reset/tk_s3cret-two'), {});
    const entries = await app.kept();
    expect(entries.map((entry) => entry.path)).to.deep.equal(['/webhook/users/u-8/reset/[redacted]', '/webhook/users/u-7/reset/[redacted]']);
    expect(entries.map((entry) => entry.data.params.userId)).to.deep.equal(['u-8', 'u-7']);
  });

  it('keeps headers without the credential the node checked', async () => {
    app = await startHistoryApp({
      workflows: [{ workflowId: 'partner', nodes: [{ name: 'Webhook', credentials: { ref: 'key' }, parameters: { path: 'partner', httpMethod: 'POST', authentication: 'headerAuth' } }] }],
      middleware: { credentials: () => ({ name: 'X-Api-Key', value: 'k-s3cret-123' }) },
    });
    const entry = await keptAfter((one) => postJson(one.url('partner'), {}, { 'x-api-key': 'k-s3cret-123', 'x-tenant': 'acme' }));
    expect(entry.data.headers).to.deep.include({ 'x-api-key': '[redacted]', 'x-tenant': 'acme' });
    expect(JSON.stringify(entry)).not.to.include('k-s3cret-123');
  });

  it('keeps the message a failing workflow threw, with the call\'s credentials redacted from it', async () => {
    await start({}, {
      workflows: [{ workflowId: 'orders', nodes: [{ name: 'Webhook', parameters: { path: 'orders', httpMethod: 'POST', responseMode: 'lastNode' } }] }],
      executor: (run) => { throw new Error(`order 7 has no customer (called with ${String((run.items[0]?.json.headers as Record<string, unknown>).authorization)})`); },
    });
    const entry = await keptAfter((one) => postJson(one.url('orders'), { order: 7 }, { authorization: 'Bearer tok-s3cret-4711' }));
    expect(entry.data.error).to.deep.include({ code: 'WORKFLOW_FAILED', message: 'Error in workflow', cause: 'order 7 has no customer (called with [redacted])' });
    expect(JSON.stringify(entry)).not.to.include('tok-s3cret-4711');
  });

  it('keeps where the caller reached the address (origin and mount path), without publicUrl', async () => {
    await start({});
    const entry = await keptAfter((one) => postJson(one.url('orders'), {}));
    expect(entry.data.baseUrl).to.equal(`${app!.origin}/api/automation`);
  });

  it('keeps where each caller reached the address when callers reach it by different hosts', async () => {
    await start({});
    for (const host of ['a.example.test:8443', 'b.example.test:8443', 'a.example.test:8443']) {
      await sendTo(Number(new URL(app!.origin).port), { path: `${HOOK_BASE}/webhook/orders`, headers: { host, 'content-type': 'application/json' }, chunks: ['{}'] });
    }
    expect((await app!.kept()).map((entry) => entry.data.baseUrl)).to.deep.equal(
      ['http://a.example.test:8443/api/automation', 'http://b.example.test:8443/api/automation', 'http://a.example.test:8443/api/automation']);
  });

  it('keeps no answer the run gives after its call was kept (a run stopped at maxRunMs that ends later)', async () => {
    let release = (): void => undefined;
    const released = new Promise<void>((resolve) => { release = resolve; });
    let heardExecuted = (): void => undefined;
    const executed = new Promise<void>((resolve) => { heardExecuted = resolve; });
    await start({ answerBytes: 10_000, flushMs: 60_000 }, {
      executor: () => released.then(() => ({ items: [{ json: { answer: 'given-after-the-stop' } }] })),
      middleware: {
        maxRunMs: 50,
        // The call is kept right after `responded`; the run ends after that, and its answer reaches history then.
        onEvent: (event) => {
          if (event.type === 'responded') release();
          if (event.type === 'executed') heardExecuted();
        },
      },
    });
    const answer = await postJson(app!.url('orders'), { order: 7 });
    await executed;
    const [entry] = await app!.kept();
    expect(answer.status).to.equal(524);
    expect(entry?.code).to.equal('WORKFLOW_TIMEOUT');
    expect(entry?.data).not.to.have.property('answer');
    expect(JSON.stringify(entry)).not.to.include('given-after-the-stop');
  });
});
