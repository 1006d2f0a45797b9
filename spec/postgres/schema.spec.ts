import { expect } from 'chai';
import pg from 'pg';
import { migrate, PostgresWebhookRegistry, SCHEMA_VERSION } from 'workflow-webhooks/postgres';
import { workflowOf } from '../support/registry-contract/fixture.js';
import { POSTGRES, sharedPostgres, type PostgresServer } from '../support/postgres-server.js';
import { findService, markNotRun } from '../support/services.js';

if (findService(POSTGRES) === undefined) {
  markNotRun('the PostgreSQL registry\'s schema and migrations', POSTGRES);
} else {
  describe('the PostgreSQL registry\'s schema and migrations', function () {
    this.timeout(60_000);
    let server: PostgresServer;
    let pool: pg.Pool;
    let next = 0;
    const fresh = (): string => `schema_${process.pid}_${(next += 1)}`;
    const open = (schema: string, migrateOnStart = true): PostgresWebhookRegistry =>
      new PostgresWebhookRegistry({ pool, schema, migrate: migrateOnStart, commandTimeoutMs: 10_000, onEvent: () => undefined });

    before(async () => {
      server = await sharedPostgres() as PostgresServer;
      pool = new pg.Pool({ connectionString: server.url, max: 20 });
      pool.on('error', () => undefined);
    });
    after(async () => { await pool.end(); });

    it('creates the schema once when five instances start at the same moment, and they share it', async () => {
      const schema = fresh();
      const instances = Array.from({ length: 5 }, () => open(schema));
      // Closed whatever the outcome: an open registry keeps its pool's connections, and mocha, from ending.
      try {
        await Promise.all(instances.map((instance) => instance.ready()));
        const versions = await pool.query(`SELECT version FROM ${schema}.schema_version ORDER BY version`);
        expect(versions.rows.map((row: { version: number }) => row.version)).to.deep.equal(Array.from({ length: SCHEMA_VERSION }, (_, index) => index + 1));
        await instances[0]?.activate(workflowOf('wf', { path: 'shared' }));
        expect((await instances[4]?.activate(workflowOf('other', { path: 'shared' }))?.then(() => 'activated', (error: { code?: string }) => error.code))).to.equal('WEBHOOK_CONFLICT');
      } finally {
        for (const instance of instances) await instance.close();
      }
    });

    it('migrates ahead of time with migrate(), after which a registry started with migrate: false runs', async () => {
      const schema = fresh();
      const refused = await open(schema, false).ready().then(() => undefined, (error: Error & { code?: string }) => [error.code, error.message]);
      expect(refused).to.deep.equal(['REGISTRY_UNAVAILABLE', `The PostgreSQL schema "${schema}" is at version 0; this version of workflow-webhooks needs ${SCHEMA_VERSION}.`]);
      expect(await migrate({ connectionString: server.url, schema })).to.deep.equal({ from: 0, to: SCHEMA_VERSION });
      expect(await migrate({ pool, schema })).to.deep.equal({ from: SCHEMA_VERSION, to: SCHEMA_VERSION });
      const registry = open(schema, false);
      try {
        await registry.ready();
        expect(await registry.activate(workflowOf('wf', { path: 'ahead' }))).to.have.length(1);
      } finally {
        await registry.close();
      }
    });

    it('refuses a schema that a newer version of the library migrated, saying so, and changes nothing in it', async () => {
      const schema = fresh();
      await migrate({ pool, schema });
      await pool.query(`INSERT INTO ${schema}.schema_version (version) VALUES ($1)`, [SCHEMA_VERSION + 1]);
      for (const registry of [open(schema), open(schema, false)]) {
        const error = await registry.ready().then(() => undefined, (failure: Error & { code?: string; hint?: string }) => failure);
        expect([error?.code, error?.message]).to.deep.equal(['REGISTRY_UNAVAILABLE',
          `The PostgreSQL schema "${schema}" is at version ${SCHEMA_VERSION + 1}, newer than this version of workflow-webhooks knows (${SCHEMA_VERSION}).`]);
        expect(error?.hint).to.match(/upgrade workflow-webhooks on every instance/);
      }
      const versions = await pool.query(`SELECT max(version) AS version FROM ${schema}.schema_version`);
      expect(Number(versions.rows[0]?.version)).to.equal(SCHEMA_VERSION + 1);
    });

    it('refuses a schema name it would have to quote, before touching the database', () => {
      for (const schema of ['Public', 'a-b', 'x; DROP TABLE y', '1abc', '']) {
        expect(() => new PostgresWebhookRegistry({ pool, schema }), schema).to.throw(TypeError, /option schema must be lower-case letters/);
      }
      expect(() => new PostgresWebhookRegistry({} as never)).to.throw(TypeError, /option pool or connectionString is required/);
    });
  });
}
