import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import { createWebhookMiddleware, ERROR_CODES, MemoryWebhookRegistry, WebhookError, type WebhookCredential } from '../../../lib/index.js';
import { signWait } from '../../../lib/webhooks/waiting/address.js';
import { BASE, HOSTS } from '../../support/apps.js';

const WAITING_SECRET = 'a-waiting-secret-of-at-least-32-characters';
const WAIT_ID = 'AAAAAAAAAAAAAAAAAAAAAw';
const CREDENTIALS: Record<string, WebhookCredential> = {
  basic: { user: 'ada', password: 'lovelace' },
  jwt: { keyType: 'passphrase', secret: 'a-long-shared-secret-for-tests-only', algorithm: 'HS256' },
  github: { scheme: 'github', secret: 'github-webhook-secret' },
};

/** Codes of the console's own router, which has its own access rules (and its own `challenge` option). */
const ELSEWHERE = (code: string): boolean => code.startsWith('CONSOLE_');

type Agent = ReturnType<typeof request>;

/**
 * One call per 401 the middleware can answer, for each kind of address that can answer it. A new 401 code in the
 * catalogue fails the coverage test below until a call for it is added here.
 */
const UNAUTHORIZED: Record<string, [string, (agent: Agent) => request.Test][]> = {
  AUTH_REQUIRED: [
    ['basicAuth without credentials', (agent) => agent.post(`${BASE}/webhook/basic`)],
    ['basicAuth with a malformed header', (agent) => agent.post(`${BASE}/webhook/basic`).set('authorization', 'Basic !!!')],
    ['jwtAuth without a token', (agent) => agent.post(`${BASE}/webhook/jwt`)],
    ['jwtAuth with an empty bearer', (agent) => agent.post(`${BASE}/webhook/jwt`).set('authorization', 'Bearer')],
    ['a test address with basicAuth', (agent) => agent.post(`${BASE}/webhook-test/basic`)],
    ['a rightly signed resume address whose wait takes basicAuth', (agent) =>
      agent.post(`${BASE}/webhook-waiting/${WAIT_ID}?signature=${signWait(Buffer.from(WAITING_SECRET), WAIT_ID, '')}`)],
  ],
  SIGNATURE_MISSING: [
    ['signatureAuth without its signature header', (agent) => agent.post(`${BASE}/webhook/signed`).set('content-type', 'application/json').send('{}')],
  ],
};

async function middlewareWith(errorHandling: 'respond' | 'next') {
  const registry = new MemoryWebhookRegistry();
  const node = (path: string, authentication: 'basicAuth' | 'jwtAuth' | 'signatureAuth', ref: string) =>
    ({ name: 'Webhook', credentials: { ref }, parameters: { path, httpMethod: 'POST' as const, authentication } });
  await registry.activate({ workflowId: 'basic', nodes: [node('basic', 'basicAuth', 'basic')] });
  await registry.activate({ workflowId: 'jwt', nodes: [node('jwt', 'jwtAuth', 'jwt')] });
  await registry.activate({ workflowId: 'signed', nodes: [node('signed', 'signatureAuth', 'github')] });
  await registry.listenForTest({ workflowId: 'basic', nodes: [node('basic', 'basicAuth', 'basic')] }, { timeoutMs: 60_000 });
  const now = Date.now();
  await registry.putWait({ waitId: WAIT_ID, status: 'waiting', expiresAt: now + 60_000, workflowId: 'approval', nodeName: 'Wait', mode: 'production',
    startedAt: now, form: 'suspended', wait: { authentication: 'basicAuth', credentials: { ref: 'basic' } } });
  return createWebhookMiddleware(registry, async () => ({ items: [] }), {
    credentials: ({ credentials }) => CREDENTIALS[(credentials as { ref: string }).ref],
    waitingSecret: WAITING_SECRET,
    errorHandling,
    logger: { error: () => undefined, warn: () => undefined },
  });
}

describe('401 answers of the middleware', () => {
  it('has a call for every 401 code of the catalogue (but the console\'s)', () => {
    const codes = Object.entries(ERROR_CODES).filter(([code, status]) => status === 401 && !ELSEWHERE(code)).map(([code]) => code);
    expect(Object.keys(UNAUTHORIZED).sort()).to.deep.equal(codes.sort());
  });

  const host = HOSTS[0] as (typeof HOSTS)[number];
  for (const [code, calls] of Object.entries(UNAUTHORIZED)) {
    for (const [label, call] of calls) {
      it(`challenges the caller with WWW-Authenticate on every 401: ${code}, ${label}`, async () => {
        const app = host.build(await middlewareWith('respond'));
        const answer = await call(request(app));
        expect([answer.status, answer.body.code]).to.deep.equal([401, code]);
        expect(answer.headers['www-authenticate']).to.be.a('string').and.not.equal('');
      });

      it(`hands the challenge to the host's error handler with errorHandling 'next': ${code}, ${label}`, async () => {
        const app = express();
        let seen: unknown;
        app.use(BASE, await middlewareWith('next'));
        app.use((error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
          seen = error;
          res.status(599).end();
        });
        await call(request(app));
        expect(seen).to.be.instanceOf(WebhookError);
        expect((seen as WebhookError).status).to.equal(401);
        expect((seen as WebhookError).headers['www-authenticate']).to.be.a('string').and.not.equal('');
      });
    }
  }

  it('answers a resume address with a wrong signature 403, which asks for no credentials', async () => {
    const app = host.build(await middlewareWith('respond'));
    const answer = await request(app).post(`${BASE}/webhook-waiting/${WAIT_ID}?signature=${'A'.repeat(43)}`);
    expect([answer.status, answer.body.code]).to.deep.equal([403, 'WAIT_SIGNATURE_INVALID']);
  });

  it('refuses a timeoutStatus of 401 or 407 when the middleware is made: a deadline has no challenge to send', () => {
    for (const timeoutStatus of [401, 407]) {
      expect(() => createWebhookMiddleware(new MemoryWebhookRegistry(), async () => ({ items: [] }), { timeoutStatus }))
        .to.throw(TypeError, /option timeoutStatus must be an HTTP error status from 400 to 599 other than 401 and 407/);
    }
  });
});
