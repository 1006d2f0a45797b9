import { expect } from 'chai';
import request from 'supertest';
import { createWebhookMiddleware, MemoryWebhookRegistry, type WebhookError, type WebhookExecutor } from '../../../lib/index.js';
import { buildWorkflowResponse } from '../../../lib/webhooks/response/workflow-responder.js';
import { HTML_SANDBOX } from '../../../lib/webhooks/response/finalize.js';
import { BASE, HOSTS } from '../../support/apps.js';
import { hostsOf, runModes } from '../../support/queue/run-modes.js';
import { deferred, workflow } from '../../support/workflows.js';

describe('buildWorkflowResponse()', () => {
  it('sends strings as text, buffers as octet-stream, the rest as JSON', () => {
    expect(buildWorkflowResponse({ body: 'hi' })).to.deep.equal({ status: 200, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'hi' });
    expect(buildWorkflowResponse({ status: 201, body: Buffer.from('x') }).headers).to.deep.equal({ 'content-type': 'application/octet-stream' });
    expect(buildWorkflowResponse({ body: { a: 1 }, headers: { 'X-Trace': 't' } })).to.deep.include({ body: '{"a":1}', headers: { 'content-type': 'application/json; charset=utf-8', 'x-trace': 't' } });
    expect(buildWorkflowResponse({ status: 204 })).to.deep.equal({ status: 204, headers: {} });
  });

  for (const [label, response] of [
    ['a status out of range', { status: 99 }],
    ['a header value with CR/LF', { headers: { 'x-a': 'one\r\nSet-Cookie: evil=1' } }],
    ['a header name with a space', { headers: { 'bad name': 'x' } }],
    ['no object at all', null],
  ] as const) {
    it(`refuses ${label}`, () => {
      expect(() => buildWorkflowResponse(response as never)).to.throw().with.property('code', 'WORKFLOW_INVALID_RESPONSE');
    });
  }
});

for (const mode of runModes('workflow responder', { onPostgres: true })) for (const host of hostsOf(mode, HOSTS)) {
  describe(`responseMode responseNode in ${host.name}${mode.suffix}`, () => {
    mode.hooks();
    let registry: MemoryWebhookRegistry;
    let executor: WebhookExecutor;
    let reports: WebhookError[];
    let app: ReturnType<(typeof HOSTS)[number]['build']>;

    beforeEach(async () => {
      registry = new MemoryWebhookRegistry();
      reports = [];
      app = host.build(createWebhookMiddleware(registry, mode.executor((run) => executor(run)), { onWorkflowError: (error) => reports.push(error) }));
      await registry.activate(workflow('wf', { path: 'respond', httpMethod: 'POST', responseMode: 'responseNode' }));
    });

    it('answers with what the workflow passes to respond(), before the workflow ends', async () => {
      const gate = deferred();
      executor = async (run) => {
        run.respond({ status: 201, headers: { 'x-order': '7' }, body: { accepted: true } });
        await gate.promise;
        return { items: [] };
      };
      const res = await request(app).post(`${BASE}/webhook/respond`).expect(201).expect('x-order', '7');
      expect(res.body).to.deep.equal({ accepted: true });
      gate.resolve();
    });

    it('puts HTML and binary answers of respond() in a sandbox', async () => {
      executor = async (run) => { run.respond({ headers: { 'content-type': 'text/html' }, body: '<script>alert(1)</script>' }); return { items: [] }; };
      await request(app).post(`${BASE}/webhook/respond`).expect(200).expect('content-security-policy', HTML_SANDBOX)
        .expect('content-type', 'text/html; charset=utf-8');
      executor = async (run) => { run.respond({ body: Buffer.from('GIF89a') }); return { items: [] }; };
      await request(app).post(`${BASE}/webhook/respond`).expect(200).expect('content-security-policy', 'sandbox');
      executor = async (run) => { run.respond({ body: { json: true } }); return { items: [] }; };
      const res = await request(app).post(`${BASE}/webhook/respond`).expect(200);
      expect(res.headers).to.not.have.property('content-security-policy');
    });

    // In queue mode respond() runs on the worker, which reports its misuse through its own logger.
        if (!mode.queued) it('ignores and reports a second respond()', async () => {
      const done = deferred();
      executor = async (run) => {
        run.respond({ body: 'first' });
        run.respond({ body: 'second' });
        done.resolve();
        return { items: [] };
      };
      const res = await request(app).post(`${BASE}/webhook/respond`).expect(200);
      await done.promise;
      expect(res.text).to.equal('first');
      expect(reports.map((r) => r.code)).to.deep.equal(['WORKFLOW_INVALID_RESPONSE']);
    });

    it('answers 500, never an empty 200, when the workflow finishes without responding', async () => {
      executor = async () => ({ items: [{ json: {} }] });
      const res = await request(app).post(`${BASE}/webhook/respond`).expect(500);
      expect(res.body.code).to.equal('WORKFLOW_NO_RESPONSE');
      expect(res.body.hint).to.match(/run\.respond\(\)/);
    });

    it('answers 500 when the workflow fails before responding, and only reports a failure after it', async () => {
      executor = async () => { throw new Error('early'); };
      await request(app).post(`${BASE}/webhook/respond`).expect(500, { code: 'WORKFLOW_FAILED', message: 'Error in workflow' });
      executor = async (run) => { run.respond({ body: 'ok' }); throw new Error('late'); };
      await request(app).post(`${BASE}/webhook/respond`).expect(200, 'ok');
      // In queue mode the run's end reaches this instance after its answer went out: it is waited for, a while.
      for (const until = Date.now() + 5000; reports.length < 2 && Date.now() < until;) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(reports.map((r) => r.code)).to.deep.equal(['WORKFLOW_FAILED', 'WORKFLOW_FAILED']);
    });

    it('answers 500 with a JSON error when respond() gets an unusable response', async () => {
      executor = async (run) => { run.respond({ headers: { 'x-bad': 'a\nb' } }); return { items: [] }; };
      const res = await request(app).post(`${BASE}/webhook/respond`).expect(500);
      expect(res.body.code).to.equal('WORKFLOW_INVALID_RESPONSE');
    });

    // Reported on the worker in queue mode, as above.
        if (!mode.queued) it('reports respond() called under another response mode and does not send it', async () => {
      await registry.activate(workflow('wf2', { path: 'other', httpMethod: 'POST', responseMode: 'lastNode' }));
      executor = async (run) => { run.respond({ body: 'sneaky' }); return { items: [{ json: { normal: true } }] }; };
      await request(app).post(`${BASE}/webhook/other`).expect(200, { normal: true });
      expect(reports.map((r) => r.code)).to.deep.equal(['WORKFLOW_INVALID_RESPONSE']);
    });
  });
}
