/**
 * The change log under a flood of notifications: an instance reads the log a few times for a burst of hundreds of
 * changes, not once per notification, and still applies every change of the burst.
 */
import { expect } from 'chai';
import pg from 'pg';
import { PostgresWebhookRegistry, type PostgresPoolLike } from 'workflow-webhooks/postgres';
import { workflowOf } from '../support/registry-contract/fixture.js';
import { withFakeTimers } from '../support/fake-clock.js';
import { eventually } from '../support/registry-contract/instances.js';
import { POSTGRES, sharedPostgres, type PostgresServer } from '../support/postgres-server.js';
import { findService, markNotRun } from '../support/services.js';

/** Changes in the burst. */
const BURST = 400;

/**
 * A pool whose connections count the statements that read the change log (`… FROM <schema>.changes WHERE version >= …`),
 * each answer held `slowMs`, so that changes committed after its statement are notified while the read is under way.
 */
function countingPool(url: string, schema: string, slowMs = 0): { pool: pg.Pool; reads: () => number } {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  pool.on('error', () => undefined);
  let reads = 0;
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      if (typeof args[0] !== 'string' || !args[0].includes(`FROM ${schema}.changes WHERE version >=`)) return query(...args);
      reads += 1;
      const answer = query(...args);
      return slowMs === 0 ? answer : Promise.resolve(answer).then((rows) => new Promise((resolve) => { setTimeout(() => resolve(rows), slowMs); }));
    };
  });
  return { pool, reads: () => reads };
}

if (findService(POSTGRES) === undefined) {
  markNotRun('the change log under a flood of notifications', POSTGRES);
} else {
  describe('the change log under a flood of notifications', function () {
    this.timeout(60_000);
    let server: PostgresServer;
    const closers: Array<() => Promise<unknown>> = [];

    before(async () => { server = await sharedPostgres() as PostgresServer; });
    afterEach(async () => {
      for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
    });

    it('reads the log a few times for a burst of 400 changes made on another instance, and applies every one of them', async () => {
      const schema = `flood_${process.pid}`;
      const writer = new PostgresWebhookRegistry({ connectionString: server.url, schema, onEvent: () => undefined });
      closers.push(() => writer.close());
      await writer.ready();
      const counted = countingPool(server.url, schema);
      closers.push(() => counted.pool.end());
      const reader = new PostgresWebhookRegistry({ pool: counted.pool as unknown as PostgresPoolLike, schema, onEvent: () => undefined });
      closers.push(() => reader.close());
      await reader.ready();
      const before = counted.reads();

      // 400 changes at once from the writer: each commits and notifies on its own.
      await Promise.all(Array.from({ length: BURST }, (_, index) => writer.activate(workflowOf(`wf-${index}`, { path: `flood-${index}`, httpMethod: 'POST' }, `wf-${index}`))));
      await eventually(async () => (await reader.list()).length === BURST, 10_000);

      const reads = counted.reads() - before;
      expect(reads, `reads of the change log for ${BURST} notified changes`).to.be.at.most(BURST / 4);
      expect((await reader.lookup('production', 'POST', `flood-${BURST - 1}`)).found).to.equal(true);
    });

    it('applies every change of the burst by notifications alone, with the one-second read stopped and each read slow', async () => {
      const schema = `flood_notified_${process.pid}`;
      const writer = new PostgresWebhookRegistry({ connectionString: server.url, schema, onEvent: () => undefined });
      closers.push(() => writer.close());
      await writer.ready();
      // Its poll never fires: a notification that came while a read was under way is read only if it was kept.
      await withFakeTimers(async () => {
        const counted = countingPool(server.url, schema, 100);
        closers.push(() => counted.pool.end());
        const reader = new PostgresWebhookRegistry({ pool: counted.pool as unknown as PostgresPoolLike, schema, onEvent: () => undefined });
        closers.push(() => reader.close());
        await reader.ready();
        await Promise.all(Array.from({ length: BURST }, (_, index) => writer.activate(workflowOf(`wf-${index}`, { path: `flood-${index}`, httpMethod: 'POST' }, `wf-${index}`))));
        await eventually(async () => (await reader.list()).length === BURST, 10_000);
        expect((await reader.lookup('production', 'POST', `flood-${BURST - 1}`)).found).to.equal(true);
      }, ['setInterval', 'clearInterval']);
    });
  });
}
