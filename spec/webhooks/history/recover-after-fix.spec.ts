/**
 * Recovering after a fix, in process, over real HTTP in Express 5 and in Fastify (the `workflow-webhooks/fastify`
 * plugin), on each history store: 1 000 orders of which 200 fail, then a bulk replay of the failed calls once the
 * workflow is fixed (spec/support/history/recovery.ts); a bulk replay stopped mid-way; and a call kept after a bulk
 * replay began, which is not among its calls.
 */
import type { RequestListener } from 'node:http';
import { expect } from 'chai';
import { createWebhookMiddleware, MemoryWebhookRegistry, type HistoryStore, type WebhookHistory, type WebhookMiddleware } from '../../../lib/index.js';
import { BASE, HOSTS } from '../../support/apps.js';
import { closeAll } from '../../support/close-all.js';
import { until } from '../../support/history-contract/fixture.js';
import { holdingFinds } from '../../support/history/held-finds.js';
import { ORDER_WORKFLOW, ORDERS_PATH, orderWorkflow, sendOrders, type OrderWorkflow } from '../../support/history/orders.js';
import { clockPast, expectOrdersSent, expectRecoveredAfterFix, expectStoppedMidway, findAll, keptAll } from '../../support/history/recovery.js';
import { historyStoreKinds } from '../../support/history/stores.js';
import { PREFIX, startPluginHost } from '../../support/hosts/fastify-plugin-app.js';
import { listen } from '../../support/raw-http.js';

const SILENT = { error: (): void => undefined, warn: (): void => undefined };

interface RunningHost {
  /** The orders webhook's URL. */
  url: string;
  close(): Promise<void>;
}

interface HostUnderTest {
  name: string;
  start(middleware: WebhookMiddleware): Promise<RunningHost>;
}

const EXPRESS_5 = HOSTS.find((host) => host.name === 'Express 5') as (typeof HOSTS)[number];

const HOSTS_UNDER_TEST: HostUnderTest[] = [
  {
    name: 'Express 5',
    async start(middleware) {
      const server = await listen(EXPRESS_5.build(middleware) as RequestListener);
      return { url: `http://127.0.0.1:${server.port}${BASE}${ORDERS_PATH}`, close: () => server.close() };
    },
  },
  {
    name: 'Fastify',
    async start(middleware) {
      // The plugin closes the middleware with the app.
      const host = await startPluginHost(middleware);
      return { url: `${host.origin}${PREFIX}${ORDERS_PATH}`, close: () => host.close() };
    },
  },
];

interface Scene {
  history: WebhookHistory;
  workflow: OrderWorkflow;
  url: string;
}

for (const kind of historyStoreKinds('history: recovering after a fix over HTTP')) {
  for (const host of HOSTS_UNDER_TEST) {
    describe(`history: recovering after a fix, over HTTP in ${host.name}, on the ${kind.name} history store`, function () {
      this.timeout(60_000);
      const stores = kind.setup();
      const closers: Array<() => unknown> = [];
      afterEach(async () => { await closeAll(...closers.splice(0).reverse()); });

      async function start(store?: HistoryStore): Promise<Scene> {
        const registry = new MemoryWebhookRegistry();
        await registry.activate(ORDER_WORKFLOW);
        const workflow = orderWorkflow();
        const middleware = createWebhookMiddleware(registry, workflow.executor, {
          logger: SILENT,
          onWorkflowError: () => undefined,
          history: { store: store ?? await stores.open(), bodyBytes: 4096, flushMs: 20 },
        });
        closers.push(() => middleware.close({ timeoutMs: 1000 }));
        const running = await host.start(middleware);
        closers.push(() => running.close());
        return { history: middleware.history as WebhookHistory, workflow, url: running.url };
      }

      it('replays each of the 200 calls that failed exactly once when they are bulk replayed after the fix, with progress, each replay linked to its call', async () => {
        const { history, workflow, url } = await start();
        const sent = await expectOrdersSent(history, url);
        await expectRecoveredAfterFix(history, workflow, sent, { queued: false });
      });

      it('starts no more replays once a bulk replay is stopped, and has run exactly the calls it counted', async () => {
        const { history, workflow, url } = await start();
        const sent = await expectOrdersSent(history, url);
        await expectStoppedMidway(history, workflow, sent);
      });

      it('leaves out a call kept after the bulk replay began, though it matches the filter', async () => {
        const inner = await stores.open();
        const held = holdingFinds(inner);
        const { history, workflow, url } = await start(held.store);
        const from = Date.now();
        await sendOrders(url, [1, 5, 10]);
        const failed = await keptAll(history, { statusClass: 5, from }, 2);
        expect(failed.map((entry) => entry.data.body)).to.have.deep.members([{ n: 5 }, { n: 10 }]);
        await clockPast(Math.max(...failed.map((entry) => entry.at)));

        workflow.fixed = true;
        const first = held.hold();
        // The user's filter has no end: "every call that failed since the incident".
        const bulk = history.replayAll({ statusClass: 5, from }, { by: 'ops', perSecond: 1000, concurrency: 4 });
        await first.waiting;
        // A call that still fails arrives once the bulk replay has started (a millisecond later at least).
        await clockPast(bulk.progress().startedAt);
        workflow.fixed = false;
        expect([...(await sendOrders(url, [15]))]).to.deep.equal([[15, 500]]);
        workflow.fixed = true;
        // Kept before the bulk replay reads its first page: read from the store underneath, past the held finds.
        await until(async () => {
          await history.flush();
          return (await inner.find({ statusClass: 5, from, limit: 10 })).records.length === 3;
        }, 10_000, 'the late call kept');
        first.release();

        expect(await bulk.done).to.deep.include({ state: 'done', matched: 2, replayed: 2, skipped: 0 });
        expect(workflow.runsAfterFix.map(({ n }) => n)).to.have.members([5, 10]);
        const late = (await findAll(history, { statusClass: 5, from })).find((entry) => (entry.data.body as { n: number }).n === 15);
        expect(late?.replays, 'replays of the call kept after the start').to.equal(0);
      });
    });
  }
}
