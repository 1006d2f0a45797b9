import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import connect from 'connect';
import express5 from 'express';
import express4 from 'express4';
import { expect } from 'chai';
import request from 'supertest';
import { createWebhookMiddleware, MemoryWebhookRegistry, type WebhookMiddleware, type WebhookRun } from '../../../lib/index.js';
import { BASE } from '../../support/apps.js';
import { workflow } from '../../support/workflows.js';

type Verify = (req: IncomingMessage, res: ServerResponse, buf: Buffer) => void;
/** A body-parser `verify` hook that keeps the raw bytes, as hosts do for signature checks. */
const keepRawBody: Verify = (req, _res, buf) => { (req as IncomingMessage & { rawBody?: Buffer }).rawBody = buf; };

/** Hosts with a global JSON body parser mounted before the webhook middleware. */
const PARSING_HOSTS: { name: string; build(middleware: WebhookMiddleware, verify?: Verify): RequestListener }[] = [
  { name: 'Express 5', build: (middleware, verify) => express5().use(express5.json(verify ? { verify } : {})).use(BASE, middleware) },
  { name: 'Express 4', build: (middleware, verify) => express4().use(express4.json(verify ? { verify } : {})).use(BASE, middleware) },
  {
    name: 'Connect',
    build: (middleware, verify) => connect().use(express5.json(verify ? { verify } : {})).use(BASE, middleware) as unknown as RequestListener,
  },
];

for (const host of PARSING_HOSTS) {
  describe(`rawBody behind a host body parser in ${host.name}`, () => {
    let runs: WebhookRun[];
    let warnings: { fields: Record<string, unknown>; message: string | undefined }[];

    async function middleware(rawBody: boolean): Promise<WebhookMiddleware> {
      const registry = new MemoryWebhookRegistry();
      await registry.activate(workflow('wf', { path: 'in', httpMethod: 'POST', responseMode: 'lastNode', responseData: 'noData', options: { rawBody } }));
      return createWebhookMiddleware(registry, async (run) => { runs.push(run); return { items: [] }; }, {
        logger: { error: () => undefined, warn: (fields, message) => { warnings.push({ fields, message }); } },
      });
    }

    beforeEach(() => { runs = []; warnings = []; });

    it('keeps the bytes the parser\'s verify hook left on req.rawBody', async () => {
      const app = host.build(await middleware(true), keepRawBody);
      await request(app).post(`${BASE}/webhook/in`).set('content-type', 'application/json').send('{ "a" : 1 }').expect(200);
      expect(runs[0]?.items[0]?.json.body).to.deep.equal({ a: 1 });
      const raw = runs[0]?.items[0]?.binary?.data;
      expect(raw).to.deep.include({ mimeType: 'application/json', bytes: 11, fileSize: '11 B', fileType: 'json', fileExtension: 'json' });
      expect(raw?.data?.toString()).to.equal('{ "a" : 1 }');
      expect(warnings).to.deep.equal([]);
    });

    it('says once per middleware that the raw body is gone and where to mount, and still gives the parsed body', async () => {
      const first = await middleware(true);
      const app = host.build(first);
      for (let i = 0; i < 3; i += 1) {
        await request(app).post(`${BASE}/webhook/in`).set('content-type', 'application/json').send('{"a":1}').expect(200);
      }
      expect(runs.map((run) => run.items[0]?.json.body)).to.deep.equal([{ a: 1 }, { a: 1 }, { a: 1 }]);
      expect(runs.every((run) => run.items[0]?.binary === undefined)).to.equal(true);
      expect(warnings).to.have.length(1);
      expect(warnings[0]?.message).to.match(/raw body is unavailable/).and.match(/before global body parsers/);
      expect(warnings[0]?.fields).to.deep.include({ path: `${BASE}/webhook/in`, contentType: 'application/json' });
      // Another middleware instance reports for itself.
      await request(host.build(await middleware(true))).post(`${BASE}/webhook/in`).set('content-type', 'application/json').send('{}').expect(200);
      expect(warnings).to.have.length(2);
    });

    it('says nothing for a node without rawBody', async () => {
      const app = host.build(await middleware(false));
      await request(app).post(`${BASE}/webhook/in`).set('content-type', 'application/json').send('{"a":1}').expect(200);
      expect(runs[0]?.items[0]?.json.body).to.deep.equal({ a: 1 });
      expect(warnings).to.deep.equal([]);
    });
  });
}
