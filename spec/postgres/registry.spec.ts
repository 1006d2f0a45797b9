import pg from 'pg';
import { describeRegistryContract } from '../support/registry-contract/index.js';
import { postgresRegistryHarness } from '../support/postgres/registry-harness.js';
import { POSTGRES, sharedPostgres, type PostgresServer } from '../support/postgres-server.js';
import { findService, markNotRun } from '../support/services.js';

if (findService(POSTGRES) === undefined) {
  markNotRun('PostgresWebhookRegistry keeps the registry contract', POSTGRES);
} else {
  describe('PostgresWebhookRegistry on a real PostgreSQL server', function () {
    this.timeout(30_000);
    let server: PostgresServer;
    let pool: pg.Pool;
    let next = 0;
    before(async () => {
      server = await sharedPostgres() as PostgresServer;
      pool = new pg.Pool({ connectionString: server.url, max: 40 });
      pool.on('error', () => undefined);
    });
    after(async () => {
      await pool?.end();
    });

    describeRegistryContract('PostgresWebhookRegistry', postgresRegistryHarness(() => ({ pool }), () => pool, () => `spec_${process.pid}_${(next += 1)}`));
  });
}
