import { generateKeyPairSync } from 'node:crypto';
import { expect } from 'chai';
import { SignJWT, UnsecuredJWT } from 'jose';
import request from 'supertest';
import { createWebhookMiddleware, MemoryWebhookRegistry, type WebhookCredential, type WebhookRun } from '../../../lib/index.js';
import { BASE, HOSTS } from '../../support/apps.js';

const secret = 'a-long-shared-secret-for-tests-only';
const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();

const sign = (alg: string, key: Uint8Array | typeof privateKey, expires = '5m') =>
  new SignJWT({ sub: 'user-7', role: 'admin' }).setProtectedHeader({ alg }).setIssuedAt().setExpirationTime(expires).sign(key);

const CREDENTIALS: Record<string, WebhookCredential> = {
  basic: { user: 'ada', password: 'lovelace' },
  header: { name: 'X-Api-Key', value: 'k-123' },
  jwt: { keyType: 'passphrase', secret, algorithm: 'HS256' },
  rsa: { keyType: 'pemKey', publicKey: publicPem, algorithm: 'RS256' },
  none: { keyType: 'passphrase', secret, algorithm: 'none' },
};

for (const host of HOSTS) {
  describe(`authentication in ${host.name}`, () => {
    let runs: WebhookRun[];
    let app: ReturnType<(typeof HOSTS)[number]['build']>;

    beforeEach(async () => {
      runs = [];
      const registry = new MemoryWebhookRegistry();
      const node = (path: string, authentication: 'basicAuth' | 'headerAuth' | 'jwtAuth', credential: string) =>
        ({ name: 'Webhook', credentials: { ref: credential }, parameters: { path, httpMethod: 'POST' as const, authentication, responseMode: 'lastNode' as const } });
      await registry.activate({ workflowId: 'basic', nodes: [node('basic', 'basicAuth', 'basic')] });
      await registry.activate({ workflowId: 'header', nodes: [node('header', 'headerAuth', 'header')] });
      await registry.activate({ workflowId: 'jwt', nodes: [node('jwt', 'jwtAuth', 'jwt')] });
      await registry.activate({ workflowId: 'rsa', nodes: [node('rsa', 'jwtAuth', 'rsa')] });
      await registry.activate({ workflowId: 'none', nodes: [node('none', 'jwtAuth', 'none')] });
      await registry.activate({ workflowId: 'lost', nodes: [node('lost', 'basicAuth', 'missing')] });
      app = host.build(createWebhookMiddleware(registry, async (run) => { runs.push(run); return { items: [{ json: { jwt: run.items[0]?.json.jwtPayload ?? null } }] }; }, {
        credentials: ({ credentials }) => CREDENTIALS[(credentials as { ref: string }).ref],
        onWorkflowError: () => undefined,
      }));
    });

    it('puts a WWW-Authenticate challenge on every 401 it answers, whatever the node\'s authentication', async () => {
      const calls = ['basic', 'header', 'jwt', 'rsa'].flatMap((path) => [
        request(app).post(`${BASE}/webhook/${path}`),
        request(app).post(`${BASE}/webhook/${path}`).set('authorization', 'Bearer'),
        request(app).post(`${BASE}/webhook/${path}`).set('authorization', 'Basic !!!'),
      ]);
      const answers = await Promise.all(calls);
      const unauthorized = answers.filter((res) => res.status === 401);
      expect(unauthorized.length).to.be.greaterThan(5);
      for (const res of unauthorized) expect(res.headers['www-authenticate']).to.match(/^(Basic|Bearer) realm="Webhook"/);
      expect(runs).to.have.length(0);
    });

    describe('basicAuth', () => {
      it('answers 401 with a Basic challenge when the call has no credentials', async () => {
        const res = await request(app).post(`${BASE}/webhook/basic`).expect(401).expect('www-authenticate', /^Basic realm="Webhook"/);
        expect(res.body.code).to.equal('AUTH_REQUIRED');
      });
      it('answers 403 for a wrong user or password, and runs for the right ones', async () => {
        const wrongUser = await request(app).post(`${BASE}/webhook/basic`).auth('bob', 'lovelace').expect(403);
        expect(wrongUser.body).to.deep.equal({ code: 'AUTH_INVALID', message: 'Authorization data is wrong!' });
        await request(app).post(`${BASE}/webhook/basic`).auth('ada', 'wrong').expect(403);
        await request(app).post(`${BASE}/webhook/basic`).auth('ada', 'lovelace').expect(200);
        expect(runs).to.have.length(1);
      });
    });

    describe('headerAuth', () => {
      it('answers 403 when the header is missing (no scheme to challenge with, as the platform answers) or wrong', async () => {
        const res = await request(app).post(`${BASE}/webhook/header`).expect(403);
        expect(res.headers).to.not.have.property('www-authenticate');
        expect(res.body).to.deep.equal({ code: 'AUTH_INVALID', message: 'Authorization data is wrong!', hint: 'The call must carry the header X-Api-Key.' });
        await request(app).post(`${BASE}/webhook/header`).set('x-api-key', 'k-12').expect(403);
        await request(app).post(`${BASE}/webhook/header`).set('x-api-key', 'k-123').expect(200);
        expect(runs).to.have.length(1);
      });
    });

    describe('jwtAuth', () => {
      it('verifies an HS256 token and puts its payload into the item', async () => {
        const token = await sign('HS256', new TextEncoder().encode(secret));
        const res = await request(app).post(`${BASE}/webhook/jwt`).set('authorization', `Bearer ${token}`).expect(200);
        expect(res.body.jwt).to.include({ sub: 'user-7', role: 'admin' });
      });
      it('verifies an RS256 token against a public key', async () => {
        await request(app).post(`${BASE}/webhook/rsa`).set('authorization', `Bearer ${await sign('RS256', privateKey)}`).expect(200);
      });
      it('answers 401 with a Bearer challenge without a token', async () => {
        await request(app).post(`${BASE}/webhook/jwt`).expect(401).expect('www-authenticate', /^Bearer/);
      });
      it('refuses a token signed with none', async () => {
        const unsecured = new UnsecuredJWT({ sub: 'x' }).setIssuedAt().setExpirationTime('5m').encode();
        await request(app).post(`${BASE}/webhook/jwt`).set('authorization', `Bearer ${unsecured}`).expect(403);
      });
      it('refuses a token signed with another algorithm than the credential\'s', async () => {
        const hs512 = await sign('HS512', new TextEncoder().encode(secret));
        await request(app).post(`${BASE}/webhook/jwt`).set('authorization', `Bearer ${hs512}`).expect(403);
        const hs256WithPublicKey = await sign('HS256', new TextEncoder().encode(publicPem));
        await request(app).post(`${BASE}/webhook/rsa`).set('authorization', `Bearer ${hs256WithPublicKey}`).expect(403);
      });
      it('refuses an expired token, saying so', async () => {
        const expired = await sign('HS256', new TextEncoder().encode(secret), '-1m');
        const res = await request(app).post(`${BASE}/webhook/jwt`).set('authorization', `Bearer ${expired}`).expect(403);
        expect(res.body.message).to.equal('The token has expired.');
        expect(runs).to.have.length(0);
      });
      it('refuses a credential that allows none, as a configuration error', async () => {
        const res = await request(app).post(`${BASE}/webhook/none`).set('authorization', 'Bearer a.b.c').expect(500);
        expect(res.body.code).to.equal('AUTH_NOT_CONFIGURED');
      });
    });

    it('answers 500 AUTH_NOT_CONFIGURED when the host has no credential for the node', async () => {
      const res = await request(app).post(`${BASE}/webhook/lost`).auth('ada', 'lovelace').expect(500);
      expect(res.body.code).to.equal('AUTH_NOT_CONFIGURED');
      expect(runs).to.have.length(0);
    });
  });
}
