import { expect } from 'chai';
import request from 'supertest';
import { createWebhookMiddleware, MemoryWebhookRegistry, type WebhookMiddlewareOptions, type WebhookRun } from '../../../lib/index.js';
import { BASE, HOSTS } from '../../support/apps.js';
import { workflow } from '../../support/workflows.js';

for (const host of HOSTS) {
  describe(`the IP allowlist in ${host.name}`, () => {
    let runs: WebhookRun[];

    async function appWith(ipWhitelist: string, options: WebhookMiddlewareOptions = {}) {
      const registry = new MemoryWebhookRegistry();
      await registry.activate(workflow('wf', { path: 'ip', httpMethod: 'POST', options: { ipWhitelist } }));
      return { registry, app: host.build(createWebhookMiddleware(registry, async (run) => { runs.push(run); return { items: [] }; }, options)) };
    }

    beforeEach(() => { runs = []; });

    it('lets listed addresses and ranges call, with spaces and a trailing comma in the list', async () => {
      const { app } = await appWith(' 10.0.0.0/8 , 127.0.0.1 ,');
      await request(app).post(`${BASE}/webhook/ip`).expect(200);
      expect(runs).to.have.length(1);
    });

    it('answers 403 with the resolved address for others, without running the workflow', async () => {
      const { app } = await appWith('203.0.113.0/24');
      const res = await request(app).post(`${BASE}/webhook/ip`).expect(403);
      expect(res.body.code).to.equal('WEBHOOK_IP_NOT_ALLOWED');
      expect(res.body.message).to.equal('The address 127.0.0.1 is not allowed to call this webhook.');
      expect(res.body.hint).to.match(/proxyHops/);
      expect(runs).to.have.length(0);
    });

    it('ignores a spoofed X-Forwarded-For with 0 proxy hops', async () => {
      const { app } = await appWith('203.0.113.7', { proxyHops: 0 });
      await request(app).post(`${BASE}/webhook/ip`).set('X-Forwarded-For', '203.0.113.7').expect(403);
      expect(runs).to.have.length(0);
    });

    it('takes the address before the trusted proxy with 1 hop, and not a spoofed one further left', async () => {
      const { app } = await appWith('203.0.113.7', { proxyHops: 1 });
      await request(app).post(`${BASE}/webhook/ip`).set('X-Forwarded-For', '203.0.113.7').expect(200);
      const res = await request(app).post(`${BASE}/webhook/ip`).set('X-Forwarded-For', '203.0.113.7, 198.51.100.9').expect(403);
      expect(res.body.message).to.include('198.51.100.9');
      expect(runs).to.have.length(1);
    });

    it('matches IPv6 ranges and IPv4-mapped IPv6 addresses', async () => {
      const { app } = await appWith('2001:db8::/32, 10.0.0.0/8', { proxyHops: 1 });
      await request(app).post(`${BASE}/webhook/ip`).set('X-Forwarded-For', '2001:db8:1::5').expect(200);
      await request(app).post(`${BASE}/webhook/ip`).set('X-Forwarded-For', '::ffff:10.1.2.3').expect(200);
      await request(app).post(`${BASE}/webhook/ip`).set('X-Forwarded-For', '2001:db9::1').expect(403);
    });

    it('does not use up a test listen on a refused call', async () => {
      const { registry, app } = await appWith('203.0.113.7', { proxyHops: 1 });
      const handle = await registry.listenForTest(workflow('wf', { path: 'ip', httpMethod: 'POST', options: { ipWhitelist: '203.0.113.7' } }));
      await request(app).post(`${BASE}/webhook-test/ip`).set('X-Forwarded-For', '198.51.100.1').expect(403);
      await request(app).post(`${BASE}/webhook-test/ip`).set('X-Forwarded-For', '203.0.113.7').expect(200);
      expect((await handle.result).status).to.equal('received');
    });
  });
}
