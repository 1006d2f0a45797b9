/**
 * A registry over a shared store (Redis, PostgreSQL) created while its store is down keeps trying to load, on both
 * stores alike: `ready({ timeoutMs })` says in time why it has not loaded, changes and calls are refused 503 with the
 * truth (nothing is served from memory, since nothing was loaded), the outage is told once however many tries it
 * takes, and once the store accepts connections the registry loads by itself and serves.
 */
import { expect } from 'chai';
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { createClient } from 'redis';
import { createWebhookMiddleware, type WebhookError, type WorkflowWebhooks } from 'workflow-webhooks';
import { PostgresWebhookRegistry } from 'workflow-webhooks/postgres';
import { RedisWebhookRegistry } from 'workflow-webhooks/redis';
import { findService, markNotRun } from '../../../support/services.js';
import { STORES_DOWN, type DownStore } from '../../../support/stores-down.js';

type Registry = RedisWebhookRegistry | PostgresWebhookRegistry;
type Event = Parameters<NonNullable<ConstructorParameters<typeof RedisWebhookRegistry>[0]['onEvent']>>[0];

/** Each store's registry, on a store that is down (a fresh prefix or schema per run). */
function registryOn(name: 'Redis' | 'PostgreSQL', url: string, onEvent: (event: Event) => void): Registry {
  if (name === 'PostgreSQL') return new PostgresWebhookRegistry({ connectionString: url, commandTimeoutMs: 500, onEvent });
  const client = createClient({ url });
  client.on('error', () => undefined);
  return new RedisWebhookRegistry({ client, prefix: `down-${process.pid}:`, commandTimeoutMs: 500, onEvent });
}

const WORKFLOW: WorkflowWebhooks = { workflowId: 'wf-down', nodes: [{ name: 'Webhook', parameters: { path: 'orders', httpMethod: 'POST', responseMode: 'onReceived' } }] };

async function rejection(promise: Promise<unknown>): Promise<WebhookError> {
  return promise.then(() => { throw new Error('resolved, but a rejection was expected'); }, (error: WebhookError) => error);
}

async function post(server: Server): Promise<{ status: number; code?: string }> {
  const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook/orders`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
  const body = await response.json() as { code?: string };
  return { status: response.status, code: body.code };
}

for (const store of STORES_DOWN) {
  if (findService(store.service) === undefined) {
    markNotRun(`the ${store.name} registry started while its store is down`, store.service);
    continue;
  }
  describe(`the ${store.name} registry started while ${store.name} is down`, function () {
    this.timeout(60_000);
    let down: DownStore;
    let registry: Registry;
    /** A second instance whose host never awaits ready(): only the calls it is asked start its loading. */
    let lazy: Registry;
    let server: Server;
    const events: Event[] = [];

    before(async function () {
      this.timeout(60_000);
      down = await store.open();
      registry = registryOn(store.name, down.url, (event) => events.push(event));
      lazy = registryOn(store.name, down.url, () => undefined);
      const middleware = createWebhookMiddleware(registry, async (run) => ({ items: run.items }), { logger: { warn: () => undefined, error: () => undefined } });
      server = createServer((req, res) => middleware(req, res, () => { res.statusCode = 404; res.end(); }));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    });
    after(async () => {
      server?.closeAllConnections();
      await new Promise((resolve) => server?.close(resolve));
      await registry?.close();
      await lazy?.close();
      await down?.stop();
    });

    it('says why it has not loaded within ready({ timeoutMs }), refuses changes and calls with the truth, and tells the outage once', async () => {
      // Past the first try (a connection refused, or one that did not open within commandTimeoutMs), with its cause.
      const late = await rejection(registry.ready({ timeoutMs: 1000 }));
      expect([late.code, late.status]).to.deep.equal(['REGISTRY_UNAVAILABLE', 503]);
      expect(late.message).to.match(new RegExp(`^The webhook registry could not load from ${store.name} within 1000 ms: .+\\.$`));
      expect(late.hint).to.match(/^No webhook is served until the registry has loaded once; it keeps trying/);
      expect((await rejection(registry.activate(WORKFLOW))).code).to.equal('REGISTRY_UNAVAILABLE');
      expect(await post(server)).to.deep.equal({ status: 503, code: 'REGISTRY_UNAVAILABLE' });
      expect(registry.health().status).to.equal('starting');
      expect((await rejection(lazy.lookup('production', 'POST', 'orders'))).message).to.equal(`The webhook registry has not loaded from ${store.name} yet.`);
      // The whole streak's count is known once it loads (the next test): told once however many tries, checked there.
      expect(events.map((event) => event.type)).to.deep.equal(['unreachable']);
    });

    it('loads by itself once the store accepts connections, and serves', async () => {
      const waiting = registry.ready();
      await down.up();
      const upAt = Date.now();
      await waiting;
      const loadedAt = Date.now();
      const ready = events.find((event) => event.type === 'ready') as Extract<Event, { type: 'ready' }>;
      // Its tries counted once the streak ended: more than one, and one 'unreachable' event for them all (below).
      expect(ready.tries).to.be.greaterThan(1);
      await registry.activate(WORKFLOW);
      expect(await post(server)).to.deep.equal({ status: 200, code: undefined });
      expect(events.map((event) => event.type)).to.deep.equal(['unreachable', 'ready']);
      // Never told to get ready, the other instance loaded all the same, because a call came.
      const until = Date.now() + 10_000;
      let found = false;
      while (!found && Date.now() < until) {
        found = await lazy.lookup('production', 'POST', 'orders').then((lookup) => lookup.found, () => false);
        if (!found) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(found, 'the instance never awaited ready() serves once the store answers').to.equal(true);
      process.stdout.write(`      loaded ${loadedAt - upAt} ms after ${store.name} accepted connections, after ${ready.tries} tries\n`);
    });
  });
}
