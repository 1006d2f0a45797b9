/**
 * `format` in a payload's JSON Schema is checked, on a JSON body as sent and on query values as they arrive
 * (strings): a date that does not exist, an address without its domain, a uuid too short are refused 422 with the
 * place. `url`, `regex` and formats nobody defined stay annotations, as JSON Schema says of formats a validator does
 * not check.
 */
import { expect } from 'chai';
import request from 'supertest';
import { createWebhookMiddleware, MemoryWebhookRegistry } from '../../../lib/index.js';
import { HOSTS, BASE } from '../../support/apps.js';

const express5 = HOSTS[0] as (typeof HOSTS)[number];

const SIGNUP = {
  type: 'object',
  properties: {
    email: { type: 'string', format: 'email' },
    birthday: { type: 'string', format: 'date' },
    account: { type: 'string', format: 'uuid' },
    at: { type: 'string', format: 'date-time' },
    site: { type: 'string', format: 'url' },
    filter: { type: 'string', format: 'regex' },
    colour: { type: 'string', format: 'x-colour' },
  },
};

describe('format in a payload schema', () => {
  let runs: unknown[];
  let app: ReturnType<typeof express5.build>;

  beforeEach(async () => {
    runs = [];
    const registry = new MemoryWebhookRegistry();
    await registry.activate({
      workflowId: 'wf',
      nodes: [{ name: 'Signup', parameters: { path: 'signup', httpMethod: 'POST', responseMode: 'lastNode' } }],
      schemas: { Signup: { body: SIGNUP, query: { type: 'object', properties: { since: { type: 'string', format: 'date' } } } } },
    });
    app = express5.build(createWebhookMiddleware(registry, (run) => {
      runs.push(run.items[0]?.json.body);
      return { items: [{ json: {} }] };
    }));
  });

  it('refuses strings not of the format the schema names, each at its place, without echoing them', async () => {
    const res = await request(app).post(`${BASE}/webhook/signup`)
      .send({ email: 'ana.example.com', birthday: '2026-02-30', account: '1234-5678', at: '2026-01-01 25:00' }).expect(422);
    expect(res.body.code).to.equal('PAYLOAD_INVALID');
    expect(res.body.errors).to.deep.equal([
      { path: '/body/email', message: 'must match format "email"' },
      { path: '/body/birthday', message: 'must match format "date"' },
      { path: '/body/account', message: 'must match format "uuid"' },
      { path: '/body/at', message: 'must match format "date-time"' },
    ]);
    expect(res.text).to.not.include('ana.example.com').and.not.include('2026-02-30');
    expect(runs).to.deep.equal([]);
  });

  it('runs a call whose strings are of their formats', async () => {
    const body = { email: 'ana@example.com', birthday: '2024-02-29', account: '3f2b8c1e-9d4a-4f7b-8a21-5c6d7e8f9a0b', at: '2026-01-01T12:00:00Z' };
    await request(app).post(`${BASE}/webhook/signup?since=2024-02-29`).send(body).expect(200);
    expect(runs).to.deep.equal([body]);
  });

  it('checks a query value, which arrives as a string, against its format', async () => {
    const res = await request(app).post(`${BASE}/webhook/signup?since=2025-02-29`).send({}).expect(422);
    expect(res.body.errors).to.deep.equal([{ path: '/query/since', message: 'must match format "date"' }]);
  });

  it('leaves url, regex and a format nobody defined unchecked: annotations, as JSON Schema says', async () => {
    await request(app).post(`${BASE}/webhook/signup`).send({ site: 'not an address', filter: '(unclosed', colour: 'plaid' }).expect(200);
    expect(runs).to.have.length(1);
  });
});
