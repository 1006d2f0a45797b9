import { expect } from 'chai';
import request from 'supertest';
import { createWebhookMiddleware, MemoryWebhookRegistry, type WebhookMiddlewareOptions, type WebhookRun } from '../../../lib/index.js';
import { BASE, HOSTS } from '../../support/apps.js';
import { workflow } from '../../support/workflows.js';

for (const host of HOSTS) {
  describe(`webhookUrl behind proxies in ${host.name}`, () => {
    let warnings: { fields: Record<string, unknown>; message: string | undefined }[];
    let runs: WebhookRun[];
    const logger = { error: () => undefined, warn: (fields: Record<string, unknown>, message?: string) => { warnings.push({ fields, message }); } };
    beforeEach(() => { warnings = []; runs = []; });

    async function app(options: WebhookMiddlewareOptions): Promise<ReturnType<typeof host.build>> {
      const registry = new MemoryWebhookRegistry();
      await registry.activate(workflow('wf', { path: 'orders' }));
      return host.build(createWebhookMiddleware(registry, async (run) => { runs.push(run); return { items: [] }; }, { logger, ...options }));
    }

    function call(built: ReturnType<typeof host.build>, headers: Record<string, string>): request.Test {
      const made = request(built).get(`${BASE}/webhook/orders`);
      for (const [name, value] of Object.entries(headers)) made.set(name, value);
      return made;
    }

    async function webhookUrl(options: WebhookMiddlewareOptions, headers: Record<string, string>): Promise<unknown> {
      await call(await app(options), headers).expect(200);
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

    it('warns once, naming publicUrl, when it builds webhookUrl from a Host header nobody checks', async () => {
      const built = await app({});
      await call(built, {}).expect(200);
      expect(warnings).to.deep.equal([]);
      await call(built, { host: 'evil.example' }).expect(200);
      expect(runs[1]?.items[0]?.json.webhookUrl).to.equal(`http://evil.example${BASE}/webhook/orders`);
      await call(built, { host: 'other.example' }).expect(200);
      expect(warnings).to.have.length(1);
      expect(warnings[0]?.message).to.match(/publicUrl/).and.to.match(/allowedHosts/).and.to.match(/evil\.example/);
    });

    it('does not warn when publicUrl, proxyHops or allowedHosts says where callers come from', async () => {
      for (const options of [{ publicUrl: 'https://hooks.example.com' }, { proxyHops: 1 }, { allowedHosts: ['evil.example'] }]) {
        await call(await app(options), { host: 'evil.example' }).expect(200);
      }
      expect(warnings).to.deep.equal([]);
    });

    it('refuses a call addressed to a host outside allowedHosts with 421 HOST_NOT_ALLOWED, before its workflow runs', async () => {
      const built = await app({ allowedHosts: ['api.example.com', '*.hooks.example.com', 'local.test:8080'] });
      const refused = await call(built, { host: 'evil.example' }).expect(421);
      expect(refused.body.code).to.equal('HOST_NOT_ALLOWED');
      await call(built, { host: 'hooks.example.com' }).expect(421);
      await call(built, { host: 'local.test:9090' }).expect(421);
      expect(runs).to.have.length(0);
      await call(built, { host: 'API.example.com' }).expect(200);
      await call(built, { host: 'eu.hooks.example.com:443' }).expect(200);
      await call(built, { host: 'local.test:8080' }).expect(200);
      expect(runs.map((run) => run.items[0]?.json.webhookUrl)).to.deep.equal([
        `http://API.example.com${BASE}/webhook/orders`,
        `http://eu.hooks.example.com:443${BASE}/webhook/orders`,
        `http://local.test:8080${BASE}/webhook/orders`,
      ]);
    });

    it('checks the forwarded host behind trusted proxies, and still uses publicUrl for webhookUrl when both are set', async () => {
      const built = await app({ proxyHops: 1, allowedHosts: ['api.example.com'], publicUrl: 'https://hooks.example.com/base' });
      await call(built, { 'x-forwarded-host': 'evil.example', host: 'api.example.com' }).expect(421);
      await call(built, { 'x-forwarded-host': 'api.example.com', host: 'internal:3000' }).expect(200);
      expect(runs[0]?.items[0]?.json.webhookUrl).to.equal('https://hooks.example.com/base/webhook/orders');
    });

    it('refuses a malformed allowedHosts at the factory, naming the option', () => {
      const registry = new MemoryWebhookRegistry();
      for (const allowedHosts of [[], ['https://api.example.com'], ['api.example.com/path'], [42]]) {
        expect(() => createWebhookMiddleware(registry, () => ({ items: [] }), { allowedHosts } as WebhookMiddlewareOptions))
          .to.throw(TypeError, /allowedHosts/);
      }
    });
  });
}
