/**
 * The change log's notification, straight on PostgreSQL (no pooler): a change committed on one instance reaches
 * another by NOTIFY and its LISTEN, not by the one-second read of the log, which the spec stops (setInterval faked).
 */
import pg from 'pg';
import { PostgresWebhookRegistry } from 'workflow-webhooks/postgres';
import { withFakeTimers } from '../support/fake-clock.js';
import { workflowOf } from '../support/registry-contract/fixture.js';
import { POSTGRES, sharedPostgres, type PostgresServer } from '../support/postgres-server.js';
import { findService, markNotRun } from '../support/services.js';

/** Polls on setImmediate (timers are fake meanwhile) until `registry` serves POST `path` or not, for at most `ms` of real time. */
async function serving(registry: PostgresWebhookRegistry, path: string, wanted: boolean, ms = 5000): Promise<void> {
  const until = performance.now() + ms;
  while ((await registry.lookup('production', 'POST', path)).found !== wanted) {
    if (performance.now() > until) throw new Error(`the other instance did not ${wanted ? 'serve' : 'stop serving'} ${path} within ${ms} ms`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

if (findService(POSTGRES) === undefined) {
  markNotRun('the PostgreSQL change log notifies every instance', POSTGRES);
} else {
  describe('the PostgreSQL change log notifies every instance', function () {
    this.timeout(30_000);
    let server: PostgresServer;
    let pool: pg.Pool;
    let next = 0;
    const opened: PostgresWebhookRegistry[] = [];
    const open = (schema: string): PostgresWebhookRegistry => {
      const registry = new PostgresWebhookRegistry({ pool, schema, onEvent: () => undefined });
      opened.push(registry);
      return registry;
    };

    before(async () => {
      server = await sharedPostgres() as PostgresServer;
      pool = new pg.Pool({ connectionString: server.url, max: 10 });
      pool.on('error', () => undefined);
    });
    afterEach(async () => {
      for (const registry of opened.splice(0).reverse()) await registry.close();
    });
    after(async () => { await pool?.end(); });

    it('brings an activation and a deactivation on one instance to another by LISTEN, with its one-second read stopped', async () => {
      const schema = `notify_${process.pid}_${(next += 1)}`;
      const a = open(schema);
      await a.ready();
      await withFakeTimers(async () => {
        const b = open(schema);
        await b.ready();
        await a.activate(workflowOf('orders', { path: 'orders', httpMethod: 'POST' }));
        await serving(b, 'orders', true);
        await a.deactivate('orders');
        await serving(b, 'orders', false);
      }, ['setInterval', 'clearInterval']);
    });
  });
}
