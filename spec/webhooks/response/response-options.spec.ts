import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import request from 'supertest';
import { createWebhookMiddleware, MemoryWebhookRegistry, type ExecutionResult, type WebhookNodeParameters } from '../../../lib/index.js';
import { HTML_SANDBOX } from '../../../lib/webhooks/response/finalize.js';
import { BASE, HOSTS } from '../../support/apps.js';
import { hostsOf, runModes } from '../../support/queue/run-modes.js';
import { makeTempDir } from '../../support/temp-dir.js';
import { workflow } from '../../support/workflows.js';

function binaryParser(res: request.Response, callback: (error: Error | null, body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk)).on('end', () => callback(null, Buffer.concat(chunks)));
}

for (const mode of runModes('response options', { onPostgres: true })) for (const host of hostsOf(mode, HOSTS)) {
  describe(`response options in ${host.name}${mode.suffix}`, () => {
    mode.hooks();
    let registry: MemoryWebhookRegistry;
    let output: ExecutionResult;
    let app: ReturnType<(typeof HOSTS)[number]['build']>;

    async function activate(parameters: Partial<WebhookNodeParameters>): Promise<void> {
      await registry.activate(workflow('wf', { path: 'r', httpMethod: 'POST', ...parameters }));
    }

    beforeEach(() => {
      registry = new MemoryWebhookRegistry();
      output = { items: [{ json: { data: '<b>hi</b>' } }] };
      app = host.build(createWebhookMiddleware(registry, mode.executor(async () => output), { onWorkflowError: () => undefined }));
    });

    it('adds responseHeaders to every successful answer, in either stored shape', async () => {
      await activate({ options: { responseHeaders: { entries: [{ name: 'X-Flow', value: 'orders' }, { name: 'Cache-Control', value: 'no-store' }] } } });
      await request(app).post(`${BASE}/webhook/r`).expect(200).expect('x-flow', 'orders').expect('cache-control', 'no-store');
      await activate({ responseMode: 'lastNode', options: { responseHeaders: { 'X-Plain': '1' } } });
      await request(app).post(`${BASE}/webhook/r`).expect(200).expect('x-plain', '1');
    });

    it('leaves responseHeaders off error answers', async () => {
      output = { items: [] };
      await activate({ responseMode: 'lastNode', options: { responseHeaders: { 'X-Flow': 'orders' } } });
      const res = await request(app).post(`${BASE}/webhook/r`).expect(500);
      expect(res.headers).to.not.have.property('x-flow');
    });

    for (const [label, headers, message] of [
      ['a value with CR/LF', { 'X-A': 'one\r\nSet-Cookie: a=b' }, /invalid value for "x-a"/],
      ['a name that is not a token', { 'X A': '1' }, /invalid header name "X A"/],
      ['a hop-by-hop header', { Connection: 'close' }, /may not set "connection"/],
      ['Transfer-Encoding', { entries: [{ name: 'Transfer-Encoding', value: 'chunked' }] }, /may not set "transfer-encoding"/],
    ] as const) {
      it(`refuses responseHeaders with ${label} at activation`, async () => {
        try {
          await activate({ options: { responseHeaders: headers as never } });
          expect.fail('activation should be refused');
        } catch (error) {
          expect(error).to.have.property('code', 'WEBHOOK_INVALID_NODE');
          expect((error as Error).message).to.match(message);
        }
      });
    }

    describe('the response code, as each node version stores it', () => {
      for (const [label, parameters, status] of [
        ['versions 1 and 1.1: top level', { responseCode: 202 }, 202],
        ['versions 2 and 2.1: a listed code', { options: { responseCode: { values: { responseCode: 204 } } } }, 204],
        ['versions 2 and 2.1: a custom code', { options: { responseCode: { values: { responseCode: 'customCode', customCode: 299 } } } }, 299],
        ['a custom number left over from an earlier choice is not used', { options: { responseCode: { values: { responseCode: 201, customCode: 299 } } } }, 201],
        ['the top level wins over the options', { responseCode: 203, options: { responseCode: { values: { responseCode: 201 } } } }, 203],
        ['an empty choice', { options: { responseCode: { values: {} } } }, 200],
      ] as const) {
        it(`${label}: ${status} for onReceived and lastNode alike`, async () => {
          await activate(parameters as Partial<WebhookNodeParameters>);
          await request(app).post(`${BASE}/webhook/r`).expect(status);
          await activate({ ...parameters as Partial<WebhookNodeParameters>, responseMode: 'lastNode' });
          await request(app).post(`${BASE}/webhook/r`).expect(status);
        });
      }

      for (const [label, responseCode, message] of [
        ['a custom code chosen without its number', { values: { responseCode: 'customCode' } }, /chooses a custom code but gives no customCode/],
        ['a custom code out of range', { values: { responseCode: 'customCode', customCode: 99 } }, /customCode must be an integer from 100 to 599; got 99/],
        ['a listed code that is not a number', { values: { responseCode: 'created' } }, /values\.responseCode must be an integer from 100 to 599; got "created"/],
        ['a bare number where the options keep an object', 201, /must be \{ values: \{ responseCode \} \}/],
      ] as const) {
        it(`refuses ${label} at activation`, async () => {
          const error = await activate({ options: { responseCode: responseCode as never } }).then(() => undefined, (failure: Error) => failure);
          expect(error).to.have.property('code', 'WEBHOOK_INVALID_NODE');
          expect(error?.message).to.match(message);
        });
      }
    });

    it('answers onReceived with no body when noResponseBody is on', async () => {
      await activate({ options: { noResponseBody: true } });
      const res = await request(app).post(`${BASE}/webhook/r`).expect(200);
      expect(res.text).to.equal('');
      expect(res.headers).to.not.have.property('content-type');
    });

    it('answers onReceived with a fixed text as text/plain', async () => {
      await activate({ options: { responseData: 'success' } });
      const res = await request(app).post(`${BASE}/webhook/r`).expect(200).expect('content-type', 'text/plain; charset=utf-8');
      expect(res.text).to.equal('success');
      expect(res.headers).to.not.have.property('content-security-policy');
    });

    it('sends an HTML answer chosen with responseContentType in a sandbox where its forms and scripts still work', async () => {
      await activate({ responseMode: 'lastNode', options: { responsePropertyName: 'data', responseContentType: 'text/html' } });
      const res = await request(app).post(`${BASE}/webhook/r`).expect(200).expect('content-type', 'text/html; charset=utf-8')
        .expect('content-security-policy', HTML_SANDBOX);
      expect(res.text).to.equal('<b>hi</b>');
    });

    it('streams firstEntryBinary from a file, with type, name and sandbox', async () => {
      const temp = makeTempDir();
      try {
        const path = join(temp.path, 'report.pdf');
        writeFileSync(path, Buffer.alloc(200_000, 9));
        output = { items: [{ json: {}, binary: { pdf: { mimeType: 'application/pdf', fileName: 'Bericht ü.pdf', path } } }] };
        await activate({ responseMode: 'lastNode', responseData: 'firstEntryBinary', options: { responseBinaryPropertyName: 'pdf' } });
        const res = await request(app).post(`${BASE}/webhook/r`).buffer(true).parse(binaryParser)
          .expect(200).expect('content-type', 'application/pdf').expect('content-security-policy', 'sandbox');
        expect((res.body as Buffer).length).to.equal(200_000);
        expect(res.headers['content-disposition']).to.equal('inline; filename="Bericht _.pdf"; filename*=UTF-8\'\'Bericht%20%C3%BC.pdf');
      } finally {
        temp.remove();
      }
    });

    it('answers 500 naming the binary property when firstEntryBinary finds none', async () => {
      output = { items: [{ json: {}, binary: { other: { mimeType: 'text/plain', data: Buffer.from('x') } } }] };
      await activate({ responseMode: 'lastNode', responseData: 'firstEntryBinary', options: { responseBinaryPropertyName: 'pdf' } });
      const res = await request(app).post(`${BASE}/webhook/r`).expect(500);
      expect(res.body.message).to.equal('The binary property \'pdf\' which should be returned does not exist');
    });
  });
}
