/**
 * OPTIONS calls answered without a workflow (guards/preflight.ts): what makes one a CORS preflight (an Origin and
 * an Access-Control-Request-Method, both), how the requested method is read, which address's methods are offered,
 * and the Vary header that keeps a shared cache from mixing the answers.
 */
import { expect } from 'chai';
import request from 'supertest';
import { createWebhookMiddleware, MemoryWebhookRegistry, type WebhookRun } from '../../../lib/index.js';
import { BASE, HOSTS } from '../../support/apps.js';
import { workflow } from '../../support/workflows.js';

const PREFLIGHT_VARY = 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers';
const corsHeadersOf = (headers: Record<string, string>): string[] => Object.keys(headers).filter((name) => name.startsWith('access-control'));

for (const host of HOSTS) {
  describe(`OPTIONS and CORS preflights in ${host.name}`, () => {
    let runs: WebhookRun[];
    let app: ReturnType<(typeof HOSTS)[number]['build']>;

    beforeEach(async () => {
      runs = [];
      const registry = new MemoryWebhookRegistry();
      await registry.activate(workflow('open', { path: 'open', multipleMethods: true, httpMethod: ['GET', 'PUT'], options: { allowedOrigins: '*' } }));
      await registry.activate(workflow('plain', { path: 'plain', httpMethod: 'POST' }));
      app = host.build(createWebhookMiddleware(registry, async (run) => { runs.push(run); return { items: [{ json: {} }] }; }));
    });

    it('answers an OPTIONS with an Origin but no requested method, or a requested method but no Origin, as a plain OPTIONS: Allow and no CORS headers', async () => {
      const originOnly = await request(app).options(`${BASE}/webhook/open`).set('Origin', 'https://app.example.com').expect(204);
      const methodOnly = await request(app).options(`${BASE}/webhook/open`).set('Access-Control-Request-Method', 'PUT').expect(204);
      for (const res of [originOnly, methodOnly]) {
        expect(res.headers).to.include({ allow: 'OPTIONS, GET, PUT', vary: PREFLIGHT_VARY });
        expect(corsHeadersOf(res.headers)).to.deep.equal([]);
      }
      expect(runs).to.have.length(0);
    });

    it('takes a requested method written in lower case', async () => {
      const res = await request(app).options(`${BASE}/webhook/open`).set('Origin', 'https://app.example.com').set('Access-Control-Request-Method', 'put').expect(204);
      expect(res.headers).to.include({ 'access-control-allow-origin': 'https://app.example.com', 'access-control-allow-methods': 'OPTIONS, GET, PUT' });
    });

    it('says Vary on a preflight of a node without allowedOrigins, which gets no CORS header', async () => {
      const res = await request(app).options(`${BASE}/webhook/plain`).set('Origin', 'https://app.example.com').set('Access-Control-Request-Method', 'POST').expect(204);
      expect(res.headers.vary).to.equal(PREFLIGHT_VARY);
      expect(corsHeadersOf(res.headers)).to.deep.equal([]);
    });

    it('does not offer a production path\'s methods at its test address, where nothing listens', async () => {
      const plain = await request(app).options(`${BASE}/webhook-test/open`).expect(404);
      expect(plain.body.code).to.equal('WEBHOOK_TEST_NOT_LISTENING');
      expect(plain.headers.allow).to.equal(undefined);
      const preflight = await request(app).options(`${BASE}/webhook-test/open`).set('Origin', 'https://app.example.com').set('Access-Control-Request-Method', 'GET').expect(404);
      expect(preflight.headers['access-control-allow-methods']).to.equal(undefined);
    });
  });
}
