/**
 * `limits.schemaWork`: the work one call's JSON Schema checks may cost, set by the host. A call past it is refused
 * 422 PAYLOAD_TOO_COSTLY and never run; the same call passes under a larger budget; a value that is no count is
 * refused when the middleware is made.
 */
import { expect } from 'chai';
import request from 'supertest';
import { createWebhookMiddleware, MemoryWebhookRegistry, type WorkflowWebhooks } from '../../../lib/index.js';
import { HOSTS, BASE } from '../../support/apps.js';

const express5 = HOSTS[0] as (typeof HOSTS)[number];

const WORKFLOW: WorkflowWebhooks = {
  workflowId: 'wf',
  nodes: [{ name: 'Hook', parameters: { path: 'names', httpMethod: 'POST' } }],
  schemas: { Hook: { body: { type: 'array', items: { type: 'string', pattern: '^[a-z]+$' } } } },
};

describe('limits.schemaWork', () => {
  let registry: MemoryWebhookRegistry;
  let runs: number;
  const app = (schemaWork?: number) => express5.build(createWebhookMiddleware(registry, () => {
    runs++;
    return { items: [{ json: {} }] };
  }, { limits: schemaWork === undefined ? {} : { schemaWork } }));
  const names = Array.from({ length: 2_000 }, () => 'abcdefghij');

  beforeEach(async () => {
    runs = 0;
    registry = new MemoryWebhookRegistry();
    await registry.activate(WORKFLOW);
  });

  it('refuses a call whose checks would cost more than the host allows, 422 PAYLOAD_TOO_COSTLY, and runs nothing', async () => {
    const answer = await request(app(10_000)).post(`${BASE}/webhook/names`).send(names).expect(422);
    expect(answer.body.code).to.equal('PAYLOAD_TOO_COSTLY');
    expect(answer.body.message).to.include('10000 units');
    expect(answer.body.hint).to.include('limits.schemaWork');
    expect(runs).to.equal(0);
  });

  it('runs the same call under the default budget', async () => {
    await request(app()).post(`${BASE}/webhook/names`).send(names).expect(200);
    expect(runs).to.equal(1);
  });

  it('refuses a value that is no positive count when the middleware is made', () => {
    expect(() => createWebhookMiddleware(registry, () => ({ items: [] }), { limits: { schemaWork: -1 } })).to.throw(TypeError, /limits.schemaWork must be a positive integer/);
  });
});
