import { expect } from 'chai';
import fc from 'fast-check';
import request from 'supertest';
import { createWebhookMiddleware, MemoryWebhookRegistry, type WebhookRun } from '../../../lib/index.js';
import { BASE, HOSTS } from '../../support/apps.js';
import { credentialOf, SECRETS, type Scheme } from '../../support/signers.js';

/** Every header any scheme reads, so each fuzzed call may carry any mix of them. */
const HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature', 'x-hub-signature-256', 'stripe-signature',
  'x-slack-signature', 'x-slack-request-timestamp', 'x-shopify-hmac-sha256', 'x-acme-signature', 'x-acme-time'];

/** Values shaped like real signatures (right prefixes, hex or base64 of the right length) as well as junk. */
const value = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc.uint8Array({ minLength: 0, maxLength: 64 }).map((bytes) => Buffer.from(bytes).toString('hex')),
  fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => `sha256=${Buffer.from(bytes).toString('hex')}`),
  fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => `v1,${Buffer.from(bytes).toString('base64')} v1,${'A'.repeat(43)}=`),
  fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => `t=${Math.floor(Date.now() / 1000)},v1=${Buffer.from(bytes).toString('hex')}`),
  fc.uint8Array({ minLength: 64, maxLength: 64 }).map((bytes) => `acme1:${Buffer.from(bytes).toString('base64')}`),
  fc.integer({ min: -1, max: 2 ** 40 }).map(String),
  fc.constant(String(Math.floor(Date.now() / 1000))),
).filter((text) => /^[\t\x20-\x7e]*$/.test(text));

const headers = fc.dictionary(fc.constantFrom(...HEADERS), value);

describe('fuzzed signature headers', function () {
  this.timeout(60_000);
  const host = HOSTS[0] as (typeof HOSTS)[number];

  it('never crash, never answer 5xx, and never reach the workflow, for any scheme', async () => {
    const schemes = Object.keys(SECRETS) as Scheme[];
    const registry = new MemoryWebhookRegistry();
    for (const scheme of schemes) {
      await registry.activate({ workflowId: scheme, nodes: [{ name: 'Signed', credentials: scheme, parameters: { path: scheme, httpMethod: 'POST', authentication: 'signatureAuth' } }] });
    }
    const runs: WebhookRun[] = [];
    const app = host.build(createWebhookMiddleware(registry, (run) => { runs.push(run); return { items: [] }; }, {
      credentials: ({ credentials }) => credentialOf(credentials as Scheme), logger: { error: () => undefined, warn: () => undefined },
    }));
    const statuses = new Set<number>();
    await fc.assert(fc.asyncProperty(fc.constantFrom(...schemes), headers, fc.string({ maxLength: 200 }), async (scheme, sent, body) => {
      const res = await request(app).post(`${BASE}/webhook/${scheme}`).set('content-type', 'text/plain').set(sent).send(body);
      statuses.add(res.status);
      expect([401, 403]).to.include(res.status);
      expect(res.body.code).to.match(/^SIGNATURE_(MISSING|INVALID|EXPIRED)$/);
    }), { numRuns: Number(process.env.SIGNATURE_FUZZ_RUNS ?? 300) });
    expect(runs).to.have.length(0);
    expect([...statuses].sort()).to.deep.equal([401, 403]);
  });
});
