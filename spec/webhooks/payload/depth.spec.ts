import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import { createWebhookMiddleware, MemoryWebhookRegistry, type WebhookLimitsOptions } from '../../../lib/index.js';
import { BASE, HOSTS } from '../../support/apps.js';
import { runModes } from '../../support/queue/run-modes.js';
import { workflow } from '../../support/workflows.js';

const URL_PATH = `${BASE}/webhook/in`;
const host = HOSTS[0] as (typeof HOSTS)[number];

const arrays = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const objects = (depth: number): string => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
const elements = (depth: number): string => `${'<a>'.repeat(depth)}x${'</a>'.repeat(depth)}`;

for (const mode of runModes('nested bodies')) {
  describe(`deeply nested bodies in ${host.name}${mode.suffix}`, () => {
    mode.hooks();

    /** Answers with the whole trigger item (lastNode, allEntries), which serialises the body the caller sent. */
    async function appWith(limits: WebhookLimitsOptions = {}) {
      const registry = new MemoryWebhookRegistry();
      await registry.activate(workflow('wf', { path: 'in', httpMethod: 'POST', responseMode: 'lastNode', responseData: 'allEntries' }));
      return host.build(createWebhookMiddleware(registry, mode.executor(async (run) => ({ items: run.items })), {
        limits, logger: { error: () => undefined, warn: () => undefined },
      }));
    }

    it('refuses 5 000 nested JSON arrays (10 KB) with 400 BODY_TOO_DEEP stating the limit, and goes on serving', async () => {
      const app = await appWith();
      const answer = await request(app).post(URL_PATH).set('content-type', 'application/json').send(arrays(5000));
      expect([answer.status, answer.body.code]).to.deep.equal([400, 'BODY_TOO_DEEP']);
      expect(answer.body.message).to.equal('The request body nests deeper than the limit of 64 levels (JSON arrays and objects, XML elements).');
      expect(answer.body.hint).to.include('limits.bodyDepth');
      const next = await request(app).post(URL_PATH).send({ order: 7 });
      expect(next.status).to.equal(200);
      expect(next.body[0].body).to.deep.equal({ order: 7 });
    });

    it('takes JSON nested 64 levels (the default), arrays or objects, and refuses 65', async () => {
      const app = await appWith();
      for (const nested of [arrays, objects]) {
        const fits = await request(app).post(URL_PATH).set('content-type', 'application/json').send(nested(64));
        expect(fits.status).to.equal(200);
        expect(JSON.stringify(fits.body[0].body)).to.equal(nested(64));
        const over = await request(app).post(URL_PATH).set('content-type', 'application/json').send(nested(65));
        expect([over.status, over.body.code]).to.deep.equal([400, 'BODY_TOO_DEEP']);
      }
    });

    it('holds XML elements to the same limit: 64 levels parse, 65 and 5 000 are BODY_TOO_DEEP', async () => {
      const app = await appWith();
      const fits = await request(app).post(URL_PATH).set('content-type', 'application/xml').send(elements(64));
      expect(fits.status).to.equal(200);
      for (const depth of [65, 5000]) {
        const over = await request(app).post(URL_PATH).set('content-type', 'application/xml').send(elements(depth));
        expect([over.status, over.body.code]).to.deep.equal([400, 'BODY_TOO_DEEP']);
      }
    });

    it('takes another depth from limits.bodyDepth', async () => {
      const app = await appWith({ bodyDepth: 3 });
      expect((await request(app).post(URL_PATH).send({ a: { b: [1] } })).status).to.equal(200);
      const over = await request(app).post(URL_PATH).send({ a: { b: [[1]] } });
      expect([over.status, over.body.message]).to.deep.equal([400, 'The request body nests deeper than the limit of 3 levels (JSON arrays and objects, XML elements).']);
    });
  });
}

describe('a deeply nested body a host parser read first', () => {
  it('is refused with 400 BODY_TOO_DEEP as well', async () => {
    const registry = new MemoryWebhookRegistry();
    await registry.activate(workflow('wf', { path: 'in', httpMethod: 'POST', responseMode: 'lastNode', responseData: 'allEntries' }));
    const app = express();
    app.use(express.json());
    app.use(BASE, createWebhookMiddleware(registry, async (run) => ({ items: run.items }), { logger: { error: () => undefined, warn: () => undefined } }));
    const answer = await request(app).post(URL_PATH).set('content-type', 'application/json').send(arrays(5000));
    expect([answer.status, answer.body.code]).to.deep.equal([400, 'BODY_TOO_DEEP']);
    expect((await request(app).post(URL_PATH).set('content-type', 'application/json').send(arrays(64))).status).to.equal(200);
  });
});
