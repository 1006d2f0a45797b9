import { expect } from 'chai';
import request from 'supertest';
import {
  createWebhookMiddleware,
  MemoryWebhookRegistry,
  type ExecutionResult,
  type WebhookError,
  type WebhookNodeParameters,
  type WorkflowFailureContext,
} from '../../../lib/index.js';
import { BASE, HOSTS } from '../../support/apps.js';
import { hostsOf, runModes } from '../../support/queue/run-modes.js';
import { deferred, workflow } from '../../support/workflows.js';

for (const mode of runModes('responses', { onPostgres: true })) for (const host of hostsOf(mode, HOSTS)) {
  describe(`responses in ${host.name}${mode.suffix}`, () => {
    mode.hooks();
    let registry: MemoryWebhookRegistry;
    let output: () => Promise<ExecutionResult>;
    let failures: { error: WebhookError; context: WorkflowFailureContext }[];
    let app: ReturnType<(typeof HOSTS)[number]['build']>;

    async function activate(parameters: Partial<WebhookNodeParameters>): Promise<void> {
      await registry.activate(workflow('wf', { path: 'r', httpMethod: 'POST', ...parameters }));
    }

    beforeEach(() => {
      registry = new MemoryWebhookRegistry();
      failures = [];
      output = async () => ({ items: [{ json: { data: 'Hello from the workflow', n: 1 } }, { json: { n: 2 } }] });
      app = host.build(createWebhookMiddleware(registry, mode.executor(() => output()), {
        onWorkflowError: (error, context) => failures.push({ error, context }),
      }));
    });

    describe('with responseMode onReceived (the default)', () => {
      it('answers 200 "Workflow was started" before the workflow ends', async () => {
        const gate = deferred();
        let finished = false;
        output = async () => { await gate.promise; finished = true; return { items: [] }; };
        await activate({});
        const res = await request(app).post(`${BASE}/webhook/r`).expect(200).expect('content-type', /application\/json/);
        expect(res.body).to.deep.equal({ message: 'Workflow was started' });
        expect(finished).to.equal(false);
        gate.resolve();
      });

      it('uses the configured responseCode', async () => {
        await activate({ responseCode: 202 });
        await request(app).post(`${BASE}/webhook/r`).expect(202);
      });

      // In queue mode an onReceived run fails on the worker, which reports it (its logger and events), not the web side.
      if (!mode.queued) it('reports a workflow that fails after the answer through onWorkflowError', async () => {
        const reported = deferred();
        output = async () => { throw new Error('database down'); };
        app = host.build(createWebhookMiddleware(registry, mode.executor(() => output()), {
          onWorkflowError: (error, context) => { failures.push({ error, context }); reported.resolve(); },
        }));
        await activate({});
        await request(app).post(`${BASE}/webhook/r`).expect(200);
        await reported.promise;
        expect(failures[0]?.error.code).to.equal('WORKFLOW_FAILED');
        expect((failures[0]?.error.cause as Error).message).to.equal('database down');
        expect(failures[0]?.context).to.include({ workflowId: 'wf', nodeName: 'Webhook', mode: 'production' });
      });
    });

    describe('with responseMode lastNode', () => {
      it('sends the first item\'s json by default (firstEntryJson)', async () => {
        await activate({ responseMode: 'lastNode' });
        const res = await request(app).post(`${BASE}/webhook/r`).expect(200).expect('content-type', 'application/json; charset=utf-8');
        expect(res.body).to.deep.equal({ data: 'Hello from the workflow', n: 1 });
      });

      it('sends a string property as text when a Property Name is set (the string-response recipe)', async () => {
        await activate({ responseMode: 'lastNode', responseData: 'firstEntryJson', options: { responsePropertyName: 'data' } });
        const res = await request(app).post(`${BASE}/webhook/r`).expect(200).expect('content-type', 'text/plain; charset=utf-8');
        expect(res.text).to.equal('Hello from the workflow');
      });

      it('takes `data` when the Property Name option is added but left empty', async () => {
        await activate({ responseMode: 'lastNode', options: { responsePropertyName: '' } });
        const res = await request(app).post(`${BASE}/webhook/r`).expect(200);
        expect(res.text).to.equal('Hello from the workflow');
      });

      it('sends a non-string property as JSON and follows dotted paths', async () => {
        output = async () => ({ items: [{ json: { result: { total: 3, lines: [1, 2] } } }] });
        await activate({ responseMode: 'lastNode', options: { responsePropertyName: 'result.lines' } });
        const res = await request(app).post(`${BASE}/webhook/r`).expect(200).expect('content-type', /application\/json/);
        expect(res.body).to.deep.equal([1, 2]);
      });

      it('sends an empty body when the property is missing, without reading the prototype', async () => {
        await activate({ responseMode: 'lastNode', options: { responsePropertyName: 'constructor' } });
        const res = await request(app).post(`${BASE}/webhook/r`).expect(200);
        expect(res.text).to.equal('');
      });

      it('honours responseContentType for a string property', async () => {
        await activate({ responseMode: 'lastNode', options: { responsePropertyName: 'data', responseContentType: 'text/csv' } });
        await request(app).post(`${BASE}/webhook/r`).expect(200).expect('content-type', 'text/csv; charset=utf-8');
      });

      it('sends all items\' json as an array (allEntries)', async () => {
        await activate({ responseMode: 'lastNode', responseData: 'allEntries', responseCode: 201 });
        const res = await request(app).post(`${BASE}/webhook/r`).expect(201);
        expect(res.body).to.deep.equal([{ data: 'Hello from the workflow', n: 1 }, { n: 2 }]);
      });

      it('sends an empty body with noData', async () => {
        await activate({ responseMode: 'lastNode', responseData: 'noData' });
        const res = await request(app).post(`${BASE}/webhook/r`).expect(200);
        expect(res.text).to.equal('');
        expect(res.headers['content-type']).to.equal(undefined);
      });

      it('sends the first item\'s binary data with its type and file name (firstEntryBinary)', async () => {
        output = async () => ({ items: [{ json: {}, binary: { data: { mimeType: 'image/png', fileName: 'pixel.png', data: Buffer.from([1, 2, 3]) } } }] });
        await activate({ responseMode: 'lastNode', responseData: 'firstEntryBinary' });
        const res = await request(app).post(`${BASE}/webhook/r`).buffer(true).parse((r, cb) => {
          const chunks: Buffer[] = [];
          r.on('data', (c: Buffer) => chunks.push(c)).on('end', () => cb(null, Buffer.concat(chunks)));
        }).expect(200).expect('content-type', 'image/png');
        expect([...(res.body as Buffer)]).to.deep.equal([1, 2, 3]);
        expect(res.headers['content-disposition']).to.equal('inline; filename=pixel.png');
        expect(res.headers['content-security-policy']).to.equal('sandbox');
      });

      it('answers 500 naming the binary property when it does not exist', async () => {
        await activate({ responseMode: 'lastNode', responseData: 'firstEntryBinary' });
        const res = await request(app).post(`${BASE}/webhook/r`).expect(500);
        expect(res.body).to.deep.equal({ code: 'WORKFLOW_NO_ITEM', message: 'The binary property \'data\' which should be returned does not exist' });
      });

      it('answers 500 "No item to return was found" when the last node returned no items', async () => {
        output = async () => ({ items: [] });
        await activate({ responseMode: 'lastNode' });
        const res = await request(app).post(`${BASE}/webhook/r`).expect(500);
        expect(res.body.code).to.equal('WORKFLOW_NO_ITEM');
        expect(res.body.message).to.equal('No item to return was found');
      });

      it('answers 500 with a JSON error when the executor throws, reports it, and keeps serving', async () => {
        output = async () => { throw new Error('boom'); };
        await activate({ responseMode: 'lastNode' });
        const res = await request(app).post(`${BASE}/webhook/r`).expect(500);
        expect(res.body).to.deep.equal({ code: 'WORKFLOW_FAILED', message: 'Error in workflow' });
        expect(failures.map((f) => f.error.code)).to.deep.equal(['WORKFLOW_FAILED']);
        output = async () => ({ items: [{ json: { back: true } }] });
        await request(app).post(`${BASE}/webhook/r`).expect(200, { back: true });
      });

      it('answers 500 when the executor rejects with a non-Error or returns no items array', async () => {
        await activate({ responseMode: 'lastNode' });
        output = () => Promise.reject('a string') as Promise<ExecutionResult>;
        await request(app).post(`${BASE}/webhook/r`).expect(500);
        output = async () => ({ rows: [] }) as unknown as ExecutionResult;
        const res = await request(app).post(`${BASE}/webhook/r`).expect(500);
        expect(res.body.code).to.equal('WORKFLOW_INVALID_RESULT');
      });
    });
  });
}
