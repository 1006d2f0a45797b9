/**
 * Payload schemas over HTTP, in Express 5 and in Fastify (the plugin): JSON, form, query, header and multipart calls
 * against the same order said as a JSON Schema, a zod schema and a valibot schema. A call that matches runs with
 * what passed (strings read as numbers and booleans); one that does not is answered 422 PAYLOAD_INVALID with where
 * and what was expected, no run starts, its files are removed, and the value sent is never repeated.
 */
import type { RequestListener } from 'node:http';
import { expect } from 'chai';
import request from 'supertest';
import {
  createWebhookMiddleware, MemoryWebhookRegistry, type WebhookExecutor, type WebhookMiddleware, type WebhookRun,
} from '../../../lib/index.js';
import { HOSTS, BASE } from '../../support/apps.js';
import { PREFIX, startPluginHost } from '../../support/hosts/fastify-plugin-app.js';
import { FLAVOURS, schemaWorkflow } from '../../support/payload-schemas.js';
import { eventually, filesUnder, makeTempDir, type TempDir } from '../../support/temp-dir.js';
import { closeAll } from '../../support/close-all.js';

interface Served { target: string | RequestListener; base: string; close(): Promise<void> }

const HOST_KINDS: { name: string; serve(middleware: WebhookMiddleware): Promise<Served> }[] = [
  {
    name: 'Express 5',
    serve: (middleware) => Promise.resolve({ target: (HOSTS[0] as (typeof HOSTS)[number]).build(middleware), base: BASE, close: () => Promise.resolve() }),
  },
  {
    name: 'Fastify',
    async serve(middleware) {
      const host = await startPluginHost(middleware);
      return { target: host.origin, base: PREFIX, close: () => host.close() };
    },
  },
];

/** The run's view of the call, answered as the last node's item. */
const echo: WebhookExecutor = (run) => {
  const item = run.items[0];
  const files = Object.values(item?.binary ?? {}).map((file) => file.fileName);
  return { items: [{ json: { body: item?.json.body, query: item?.json.query, files } }] };
};

const SECRET = 'sk_live_s3cr3t-value';

for (const host of HOST_KINDS) {
  for (const flavour of FLAVOURS) {
    describe(`payload schemas in ${host.name}, said with ${flavour.name}`, function schemas() {
      this.timeout(10_000);
      let served: Served;
      let runs: WebhookRun[];
      let temp: TempDir;
      const http = () => request(served.target);
      const hook = (path: string): string => `${served.base}/webhook/${path}`;

      beforeEach(async () => {
        temp = makeTempDir();
        runs = [];
        const registry = new MemoryWebhookRegistry();
        await registry.activate(schemaWorkflow(flavour));
        served = await host.serve(createWebhookMiddleware(registry, (run) => { runs.push(run); return echo(run); }, {
          schemas: flavour.validators,
          uploads: { tempDir: temp.path, memoryThreshold: 0 },
          logger: { error: () => undefined, warn: () => undefined },
        }));
      });
      afterEach(() => closeAll(() => served?.close(), () => temp?.remove()));

      it('runs a JSON call that matches, with the body as sent', async () => {
        const res = await http().post(hook('body')).send({ name: 'Tea', qty: 2, gift: true }).expect(200);
        expect(res.body.body).to.deep.equal({ name: 'Tea', qty: 2, gift: true });
        expect(runs).to.have.length(1);
      });

      it('refuses a JSON call that does not match with 422, where and what was expected, and starts no run', async () => {
        const res = await http().post(hook('body')).send({ name: SECRET, qty: 0 }).expect(422);
        expect(res.body.code).to.equal('PAYLOAD_INVALID');
        expect(res.body.hint).to.be.a('string');
        expect(res.body.errors.map((error: { path: string }) => error.path)).to.have.members(['/body/name', '/body/qty']);
        for (const error of res.body.errors) expect(error.message).to.be.a('string').and.not.equal('');
        expect(res.text).not.to.include(SECRET);
        expect(runs).to.have.length(0);
      });

      if (flavour.name === 'JSON Schema') {
        // A validator object reads strings its own way; a JSON Schema reads a JSON body's values as the types they are.
        it('checks a JSON body as sent: "qty": "3" is no integer, so the call is refused 422 and starts no run', async () => {
          const res = await http().post(hook('body')).send({ name: 'Tea', qty: '3' }).expect(422);
          expect(res.body.errors.map((error: { path: string }) => error.path)).to.deep.equal(['/body/qty']);
          expect(runs).to.have.length(0);
        });
      }

      it('reads a form\'s strings as the numbers and booleans the schema says', async () => {
        const res = await http().post(hook('body')).type('form').send('name=Tea&qty=3&gift=false').expect(200);
        expect(res.body.body).to.deep.equal({ name: 'Tea', qty: 3, gift: false });
      });

      it('refuses a form whose field is no number', async () => {
        const res = await http().post(hook('body')).type('form').send('name=Tea&qty=three').expect(422);
        expect(res.body.errors.map((error: { path: string }) => error.path)).to.deep.equal(['/body/qty']);
        expect(runs).to.have.length(0);
      });

      it('reads the query string as the schema says, and refuses a query that does not match', async () => {
        const ok = await http().get(`${hook('query')}?page=2`).expect(200);
        expect(ok.body.query).to.deep.equal({ page: 2 });
        const refused = await http().get(`${hook('query')}?page=none`).expect(422);
        expect(refused.body.errors.map((error: { path: string }) => error.path)).to.deep.equal(['/query/page']);
        expect(runs).to.have.length(1);
      });

      it('checks headers: a missing or wrong one is refused without repeating its value', async () => {
        await http().post(hook('headers')).set('x-tenant', 'acme').send({}).expect(200);
        const missing = await http().post(hook('headers')).send({}).expect(422);
        expect(missing.body.errors.map((error: { path: string }) => error.path)).to.deep.equal(['/headers/x-tenant']);
        const wrong = await http().post(hook('headers')).set('x-tenant', SECRET).send({}).expect(422);
        expect(wrong.body.errors.map((error: { path: string }) => error.path)).to.deep.equal(['/headers/x-tenant']);
        expect(wrong.text).not.to.include(SECRET);
        expect(runs).to.have.length(1);
      });

      it('checks a multipart call\'s fields (its files are binary, not part of the body) and removes the files of a refused one', async () => {
        const ok = await http().post(hook('body')).field('name', 'Tea').field('qty', '5').attach('doc', Buffer.from('hello'), 'doc.txt').expect(200);
        expect(ok.body.body).to.deep.equal({ name: 'Tea', qty: 5 });
        expect(ok.body.files).to.deep.equal(['doc.txt']);
        await http().post(hook('body')).field('name', 'tea').attach('doc', Buffer.from('hello'), 'doc.txt').expect(422);
        expect(runs).to.have.length(1);
        await eventually(() => filesUnder(temp.path).length === 0);
      });
    });
  }
}
