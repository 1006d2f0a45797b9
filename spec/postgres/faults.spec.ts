import { expect } from 'chai';
import pg from 'pg';
import { WebhookError } from 'workflow-webhooks';
import { PostgresWebhookRegistry } from 'workflow-webhooks/postgres';
import { workflowOf } from '../support/registry-contract/fixture.js';
import { eventually } from '../support/registry-contract/instances.js';
import { POSTGRES, PostgresServer } from '../support/postgres-server.js';
import { call, postgresInstances, type PostgresInstances } from '../support/postgres/instances.js';
import { findService, markNotRun } from '../support/services.js';

const hook = (workflowId: string, path: string): ReturnType<typeof workflowOf> =>
  workflowOf(workflowId, { path, httpMethod: 'POST', responseMode: 'lastNode' }, workflowId);

/** Calls every instance's `orders` address in turn until stopped; counts the answers by status. */
function callsUnderLoad(cluster: PostgresInstances): { stop(): Promise<Record<number, number>> } {
  const seen: Record<number, number> = {};
  let running = true;
  const loop = (async () => {
    for (let index = 0; running; index += 1) {
      const { status } = await call(`${cluster.all[index % 3]?.url}/webhook/orders`);
      seen[status] = (seen[status] ?? 0) + 1;
    }
  })();
  return { stop: async () => { running = false; await loop; return seen; } };
}

/** Activates `fault-<n>` on instance A over and over until stopped: which were acknowledged, and how the rest were refused. */
function changesUnderLoad(cluster: PostgresInstances): { stop(): Promise<{ acknowledged: string[]; refused: string[] }> } {
  const acknowledged: string[] = [];
  const refused: string[] = [];
  let running = true;
  const loop = (async () => {
    for (let index = 0; running; index += 1) {
      const id = `fault-${index}`;
      try {
        await cluster.all[0]?.registry.activate(hook(id, id));
        acknowledged.push(id);
      } catch (error) {
        const { code, status, headers } = error as WebhookError;
        refused.push(`${code} ${status} retry-after=${headers['retry-after'] ?? '-'}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  })();
  return { stop: async () => { running = false; await loop; return { acknowledged, refused }; } };
}

if (findService(POSTGRES) === undefined) {
  markNotRun('the PostgreSQL registry when the database fails', POSTGRES);
} else {
  describe('the PostgreSQL registry when the database fails', function () {
    this.timeout(120_000);
    let server: PostgresServer;
    let cluster: PostgresInstances;
    let run = 0;

    before(async () => { server = await PostgresServer.start() as PostgresServer; });
    after(async () => { await server?.stop(); });
    beforeEach(async () => {
      cluster = await postgresInstances(server.url, `faults_${(run += 1)}`);
      await cluster.all[0]?.registry.activate(hook('orders', 'orders'));
      for (const instance of cluster.all) await eventually(async () => (await call(`${instance.url}/webhook/orders`)).status === 200, 5000);
    });
    afterEach(async () => { await cluster?.stop(); });

    /** Every acknowledged change is in the database (a fresh instance loads it) and served by every instance. */
    async function expectKept(acknowledged: string[], schema: string): Promise<void> {
      const pool = new pg.Pool({ connectionString: server.url });
      pool.on('error', () => undefined);
      const fresh = new PostgresWebhookRegistry({ pool, schema, onEvent: () => undefined });
      await fresh.ready();
      const stored = new Set((await fresh.list()).map((webhook) => webhook.workflowId));
      await fresh.close();
      await pool.end();
      expect(acknowledged.filter((id) => !stored.has(id)), 'acknowledged but lost').to.deep.equal([]);
      for (const instance of cluster.all) {
        await eventually(async () => {
          const served = new Set((await instance.registry.list()).map((webhook) => webhook.workflowId));
          return acknowledged.every((id) => served.has(id));
        }, 10_000);
      }
    }

    it('keeps serving calls through pg_ctl restart -m immediate under load, loses no acknowledged change, and converges without a restart', async () => {
      const calls = callsUnderLoad(cluster);
      const changes = changesUnderLoad(cluster);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await server.restartImmediately();
      await new Promise((resolve) => setTimeout(resolve, 300));
      const { acknowledged, refused } = await changes.stop();
      const seen = await calls.stop();
      process.stdout.write(`      restart -m immediate: calls answered ${JSON.stringify(seen)}; changes acknowledged ${acknowledged.length}, refused ${refused.length} (${[...new Set(refused)].join(', ')})\n`);
      expect(Object.keys(seen)).to.deep.equal(['200']);
      expect([...new Set(refused)].filter((reason) => reason !== 'REGISTRY_UNAVAILABLE 503 retry-after=2')).to.deep.equal([]);
      await expectKept(acknowledged, `faults_${run}`);
      await cluster.all[2]?.registry.activate(hook('after', 'after'));
      for (const instance of cluster.all) await eventually(async () => (await call(`${instance.url}/webhook/after`)).status === 200, 5000);
    });

    it('refuses changes 503 REGISTRY_UNAVAILABLE with Retry-After while the database is down, serves calls from memory, and converges once it is back', async () => {
      await server.stopImmediately();
      try {
        const error = await cluster.all[1]?.registry.activate(hook('while-down', 'while-down')).then(() => undefined, (failure: unknown) => failure as WebhookError);
        expect([error?.code, error?.status, error?.headers['retry-after']]).to.deep.equal(['REGISTRY_UNAVAILABLE', 503, '2']);
        expect(error?.message).to.match(/^PostgreSQL could not be reached while activating workflow "while-down"/);
        for (const instance of cluster.all) expect((await call(`${instance.url}/webhook/orders`)).status).to.equal(200);
        await eventually(async () => cluster.all.every((instance) => instance.registry.health().status === 'degraded'), 5000);
      } finally {
        await server.startAgain();
      }
      await eventually(async () => cluster.all[1]?.registry.activate(hook('back', 'back')).then(() => true, () => false) ?? false, 10_000);
      for (const instance of cluster.all) {
        await eventually(async () => (await call(`${instance.url}/webhook/back`)).status === 200, 5000);
        await eventually(async () => instance.registry.health().status === 'ready', 5000);
      }
      const events = cluster.all.map((instance) => instance.events.map((event) => event.type).filter((type) => type === 'disconnected' || type === 'reconnected'));
      process.stdout.write(`      stopped and started: link events per instance ${JSON.stringify(events)}\n`);
      for (const seen of events) expect(seen.slice(0, 2)).to.deep.equal(['disconnected', 'reconnected']);
    });

    it('keeps serving calls when pg_terminate_backend kills every registry connection under load, and follows changes again', async () => {
      const calls = callsUnderLoad(cluster);
      const changes = changesUnderLoad(cluster);
      const admin = new pg.Client({ connectionString: server.url });
      // A failed expectation below leaves it to the server's stop: that must not read as another failure.
      admin.on('error', () => undefined);
      await admin.connect();
      let killed = 0;
      for (let round = 0; round < 3; round += 1) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        const result = await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE backend_type = \'client backend\' AND pid <> pg_backend_pid()');
        killed += result.rowCount ?? 0;
      }
      await admin.end();
      const { acknowledged, refused } = await changes.stop();
      const seen = await calls.stop();
      process.stdout.write(`      pg_terminate_backend: ${killed} connections killed; calls answered ${JSON.stringify(seen)}; changes acknowledged ${acknowledged.length}, refused ${refused.length} (${[...new Set(refused)].join(', ')})\n`);
      expect(killed).to.be.greaterThan(0);
      expect(Object.keys(seen)).to.deep.equal(['200']);
      expect([...new Set(refused)].filter((reason) => reason !== 'REGISTRY_UNAVAILABLE 503 retry-after=2')).to.deep.equal([]);
      await expectKept(acknowledged, `faults_${run}`);
      // The LISTEN connections were killed too: a change made now still reaches every instance.
      await cluster.all[1]?.registry.activate(hook('after-kill', 'after-kill'));
      for (const instance of cluster.all) await eventually(async () => (await call(`${instance.url}/webhook/after-kill`)).status === 200, 5000);
    });
  });
}
