import pg from 'pg';
import type { WebhookRegistry } from 'workflow-webhooks';
import { PostgresWebhookRegistry } from 'workflow-webhooks/postgres';
import { describeRegistryContract } from '../support/registry-contract/index.js';
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
    const schemas = new Map<WebhookRegistry, string>();

    async function open(schema: string): Promise<PostgresWebhookRegistry> {
      const registry = new PostgresWebhookRegistry({ pool, schema, onEvent: () => undefined });
      await registry.ready();
      schemas.set(registry, schema);
      return registry;
    }

    before(async () => {
      server = await sharedPostgres() as PostgresServer;
      pool = new pg.Pool({ connectionString: server.url, max: 40 });
      pool.on('error', () => undefined);
    });
    after(async () => {
      await pool.end();
    });

    describeRegistryContract('PostgresWebhookRegistry', {
      create: () => open(`spec_${process.pid}_${(next += 1)}`),
      peer: (registry) => open(schemas.get(registry) as string),
      dispose: async (registry) => {
        await (registry as PostgresWebhookRegistry).close();
        schemas.delete(registry);
      },
      remembersMessageIds: true,
      listsTestWebhooks: true,
      listsWaits: true,
      countsRateLimits: true,
      // PostgreSQL measures a budget's window by its stored end against the database's clock: moving every end
      // sooner moves that clock on for the registry's schema.
      rateLimitClock: (registry, work) => work(async (ms) => {
        await pool.query(`UPDATE ${schemas.get(registry) as string}.rate_budgets SET window_ends = window_ends - $1`, [Math.ceil(ms)]);
      }),
    });
  });
}
