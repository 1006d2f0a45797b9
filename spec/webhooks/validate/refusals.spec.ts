/**
 * What a refusal by a payload schema is, beside its answer: a `rejected` event with its code (recent calls and
 * telemetry hear it), a test address that keeps listening, a bounded list of errors, an instance without the
 * validator a workflow names refusing (never skipping) the call, and validators that answer with a promise.
 */
import { expect } from 'chai';
import request from 'supertest';
import {
  createWebhookMiddleware, MemoryWebhookRegistry, type StandardSchema, type WebhookEvent, type WorkflowWebhooks,
} from '../../../lib/index.js';
import { HOSTS, BASE } from '../../support/apps.js';
import { ORDER_JSON_SCHEMA, ORDER_ZOD } from '../../support/payload-schemas.js';
import { MAX_PROBLEMS } from '../../../lib/webhooks/validate/problems.js';

const express5 = HOSTS[0] as (typeof HOSTS)[number];

const WORKFLOW: WorkflowWebhooks = {
  workflowId: 'wf',
  nodes: [
    { name: 'Order', parameters: { path: 'order', httpMethod: 'POST', responseMode: 'lastNode' } },
    { name: 'Coded', parameters: { path: 'coded', httpMethod: 'POST', responseMode: 'lastNode' } },
  ],
  schemas: { Order: { body: ORDER_JSON_SCHEMA }, Coded: { body: 'order' } },
};

/** A Standard Schema validator that answers later, as an async refinement or a remote check would. */
const slowOrder: StandardSchema = {
  '~standard': {
    version: 1,
    vendor: 'spec',
    validate: async (value) => {
      await new Promise((resolve) => setImmediate(resolve));
      return ORDER_ZOD['~standard'].validate(value);
    },
  },
};

describe('refusals by a payload schema', () => {
  let registry: MemoryWebhookRegistry;
  let runs: number;
  const events: WebhookEvent[] = [];
  const errors: unknown[] = [];
  const logger = { error: (fields: unknown) => { errors.push(fields); }, warn: () => undefined };
  const build = (schemas: Record<string, StandardSchema>) => express5.build(createWebhookMiddleware(registry, (run) => {
    runs++;
    return { items: [{ json: { body: run.items[0]?.json.body } }] };
  }, { schemas, logger, onEvent: (event) => events.push(event) }));

  beforeEach(async () => {
    runs = 0;
    events.length = 0;
    errors.length = 0;
    registry = new MemoryWebhookRegistry();
    await registry.activate(WORKFLOW);
  });

  it('is a rejected event with PAYLOAD_INVALID, and no started event', async () => {
    await request(build({ order: ORDER_ZOD })).post(`${BASE}/webhook/order`).send({ qty: 1 }).expect(422);
    const rejected = events.find((event) => event.type === 'rejected');
    expect(rejected).to.include({ code: 'PAYLOAD_INVALID', status: 422, workflowId: 'wf', nodeName: 'Order' });
    expect(events.map((event) => event.type)).not.to.include('started');
  });

  it('leaves a test address listening: the next call that matches is the one it captures', async () => {
    const handle = await registry.listenForTest(WORKFLOW);
    const app = build({ order: ORDER_ZOD });
    await request(app).post(`${BASE}/webhook-test/order`).send({ name: 'no capital', qty: 1 }).expect(422);
    await request(app).post(`${BASE}/webhook-test/order`).send({ name: 'Tea', qty: 1 }).expect(200);
    const result = await handle.result;
    expect(result.status).to.equal('received');
    if (result.status === 'received') expect(result.run.items[0]?.json.body).to.deep.equal({ name: 'Tea', qty: 1 });
  });

  it(`lists at most ${MAX_PROBLEMS} places, however many do not match`, async () => {
    await registry.activate({
      workflowId: 'many',
      nodes: [{ name: 'Many', parameters: { path: 'many', httpMethod: 'POST' } }],
      schemas: { Many: { body: { type: 'array', items: { type: 'integer' } } } },
    });
    const res = await request(build({})).post(`${BASE}/webhook/many`).send(Array.from({ length: 500 }, (_, index) => `n${index}`)).expect(422);
    expect(res.body.errors).to.have.length(MAX_PROBLEMS);
    expect(res.body.errors[0]).to.deep.equal({ path: '/body/0', message: 'must be integer' });
  });

  it('refuses a call whose validator this instance was not given (500, logged), never letting it through unchecked', async () => {
    const res = await request(build({})).post(`${BASE}/webhook/coded`).send({ name: 'Tea', qty: 1 }).expect(500);
    expect(res.body.code).to.equal('PAYLOAD_SCHEMA_MISSING');
    expect(res.body.message).to.include('"order"');
    expect(runs).to.equal(0);
    expect(errors).to.have.length(1);
  });

  it('waits for a validator that answers with a promise, and runs with its output', async () => {
    const app = build({ order: slowOrder });
    const res = await request(app).post(`${BASE}/webhook/coded`).type('form').send('name=Tea&qty=2').expect(200);
    expect(res.body.body).to.deep.equal({ name: 'Tea', qty: 2 });
    await request(app).post(`${BASE}/webhook/coded`).send({ name: 'Tea' }).expect(422);
    expect(runs).to.equal(1);
  });

  it('refuses a schemas option that holds no Standard Schema validator, at the factory', () => {
    expect(() => createWebhookMiddleware(registry, () => ({ items: [] }), { schemas: { order: { parse: () => true } as never } }))
      .to.throw(TypeError, /schemas\.order must be a validator implementing Standard Schema v1/);
  });
});
