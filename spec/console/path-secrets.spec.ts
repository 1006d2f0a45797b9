/**
 * A path parameter named like a credential (`reset/:token`) is hidden wherever a call's path leaves the request path,
 * as it is in the Input pane and the curl line: the host's `received` event, a 5xx line of the host's logger, the
 * console's recent calls (GET /api/calls), its `call` event and a RedisCallLog in Redis show `[redacted]` in its
 * place; a parameter with a plain name (`:orderId`) is shown as sent. Over HTTP in Express 5, with a real
 * redis-server.
 */
import { expect } from 'chai';
import { createClient } from 'redis';
import { RedisCallLog } from 'workflow-webhooks/redis';
import type { CallListing, CallRecord } from '../../lib/console/index.js';
import type { WebhookEvent } from '../../lib/index.js';
import { startConsoleApp, WEBHOOK_BASE, type ConsoleApp } from '../support/console-app.js';
import { consoleSession, type ConsoleSession } from '../support/console-session.js';
import { REDIS, RedisServer } from '../support/redis-server.js';
import { findService, markNotRun } from '../support/services.js';
import { closeAll } from '../support/close-all.js';

const TOKEN = 'rst_9f8e7d6c5b4a39281706';
const KEY_PREFIX = 'path-secrets:';

if (findService(REDIS) === undefined) {
  markNotRun('a path parameter named like a credential', REDIS);
} else {
  describe('a path parameter named like a credential is hidden wherever the call\'s path is shown', function () {
    this.timeout(20_000);
    let server: RedisServer;
    let redis: ReturnType<typeof createClient>;
    let log: RedisCallLog;
    let app: ConsoleApp;
    let page: ConsoleSession;
    const received: string[] = [];
    const errors: string[] = [];

    before(async () => {
      server = await RedisServer.start() as RedisServer;
      redis = createClient({ url: server.url });
      await redis.connect();
      log = new RedisCallLog({ client: redis, keyPrefix: KEY_PREFIX, onError: () => undefined });
      app = await startConsoleApp({
        executor: () => ({ items: [{ json: { ok: true } }] }),
        middleware: {
          onEvent: (event: WebhookEvent) => { if (event.type === 'received') received.push(event.path); },
          logger: { warn: () => undefined, error: (fields) => { errors.push(JSON.stringify(fields)); } },
        },
        console: { callLog: log },
      });
      await app.registry.activate({ workflowId: 'reset', nodes: [{ name: 'Webhook', parameters: { path: 'reset/:token', httpMethod: 'POST', responseMode: 'lastNode' } }] });
      await app.registry.activate({ workflowId: 'order', nodes: [{ name: 'Webhook', parameters: { path: 'order/:orderId/:resetToken', httpMethod: 'POST', responseMode: 'lastNode' } }] });
      // Header auth without a credential resolver: every call is answered 500 AUTH_NOT_CONFIGURED, and logged.
      await app.registry.activate({ workflowId: 'unset', nodes: [{ name: 'Webhook', parameters: { path: 'unset/:token', httpMethod: 'POST', authentication: 'headerAuth' } }] });
      page = await consoleSession(app);
    });
    after(() => closeAll(() => app?.close(), () => log?.close(), () => redis?.destroy(), () => server?.stop()));

    it('shows [redacted] for :token in the received event, GET /api/calls, the call event and the RedisCallLog, and a plain :orderId as sent', async () => {
      const stream = await page.events();
      try {
        expect((await fetch(`${app.origin}${WEBHOOK_BASE}/webhook/reset/${TOKEN}`, { method: 'POST' })).status).to.equal(200);
        const event = await stream.next<{ call: CallRecord }>('call', (one) => one.call.route === '/webhook/reset/:token');
        expect(event.call.path).to.equal('/webhook/reset/[redacted]');
        expect((await fetch(`${app.origin}${WEBHOOK_BASE}/webhook/order/A-17/${TOKEN}`, { method: 'POST' })).status).to.equal(200);
        const second = await stream.next<{ call: CallRecord }>('call', (one) => one.call.route === '/webhook/order/:orderId/:resetToken');
        expect(second.call.path).to.equal('/webhook/order/A-17/[redacted]');
      } finally {
        stream.close();
      }
      expect(received).to.include.members(['reset/[redacted]', 'order/A-17/[redacted]']);
      const listed = await page.get<CallListing>('/api/calls');
      expect(listed.calls.map((call) => call.path)).to.include.members(['/webhook/reset/[redacted]', '/webhook/order/A-17/[redacted]']);
      const stored = await redis.lRange(`${KEY_PREFIX}calls`, 0, -1);
      expect(stored).to.have.length(2);
      expect(stored.join('\n')).to.include('/webhook/reset/[redacted]');
      for (const text of [JSON.stringify(received), JSON.stringify(listed), stored.join('\n')]) expect(text).to.not.include(TOKEN);
    });

    it('writes [redacted] for the credential parameter in the logger\'s line about a call answered 500', async () => {
      expect((await fetch(`${app.origin}${WEBHOOK_BASE}/webhook/unset/${TOKEN}`, { method: 'POST' })).status).to.equal(500);
      expect(errors.filter((one) => one.includes('AUTH_NOT_CONFIGURED')).map((one) => (JSON.parse(one) as { path: string }).path)).to.deep.equal(['unset/[redacted]']);
      expect(errors.join('\n')).to.not.include(TOKEN);
    });
  });
}
