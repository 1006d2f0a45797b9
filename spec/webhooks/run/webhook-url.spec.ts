import { expect } from 'chai';
import request from 'supertest';
import { createWebhookMiddleware, MemoryWebhookRegistry, type WebhookMiddlewareOptions, type WebhookRun } from '../../../lib/index.js';
import { BASE, HOSTS } from '../../support/apps.js';
import { workflow } from '../../support/workflows.js';

for (const host of HOSTS) {
  describe(`webhookUrl behind proxies in ${host.name}`, () => {
    async function webhookUrl(options: WebhookMiddlewareOptions, headers: Record<string, string>): Promise<unknown> {
      const registry = new MemoryWebhookRegistry();
      await registry.activate(workflow('wf', { path: 'orders' }));
      const runs: WebhookRun[] = [];
      const app = host.build(createWebhookMiddleware(registry, async (run) => { runs.push(run); return { items: [] }; }, options));
      const call = request(app).get(`${BASE}/webhook/orders`);
      for (const [name, value] of Object.entries(headers)) call.set(name, value);
      await call.expect(200);
      return runs[0]?.items[0]?.json.webhookUrl;
    }

    it('uses the scheme and host a trusted proxy forwarded', async () => {
      expect(await webhookUrl({ proxyHops: 1 }, { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'api.example.com' }))
        .to.equal(`https://api.example.com${BASE}/webhook/orders`);
    });

    it('takes the entry of the outermost trusted proxy from a list', async () => {
      expect(await webhookUrl({ proxyHops: 2 }, { 'x-forwarded-proto': 'http, https, http', 'x-forwarded-host': 'spoofed.example, api.example.com, lb.internal' }))
        .to.equal(`https://api.example.com${BASE}/webhook/orders`);
    });

    it('ignores forwarded headers when no proxy is trusted', async () => {
      expect(await webhookUrl({ proxyHops: 0 }, { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example' }))
        .to.match(new RegExp(`^http://127\\.0\\.0\\.1:\\d+${BASE}/webhook/orders$`));
    });

    it('uses publicUrl whatever Host and forwarded headers say', async () => {
      expect(await webhookUrl({ proxyHops: 1, publicUrl: 'https://hooks.example.com/api/automation' }, { 'x-forwarded-host': 'evil.example', host: 'evil.example' }))
        .to.equal('https://hooks.example.com/api/automation/webhook/orders');
    });

    it('never puts a malformed Host into workflow data', async () => {
      expect(await webhookUrl({ proxyHops: 1 }, { 'x-forwarded-host': 'a.example/<script>' })).to.equal(`http://localhost${BASE}/webhook/orders`);
    });
  });
}
