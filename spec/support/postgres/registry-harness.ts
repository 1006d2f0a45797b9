/**
 * The registry contract's harness for a PostgresWebhookRegistry: one schema per registry (its peer shares it), the
 * registry closed after each test, and the rate-limit clock moved the way PostgreSQL keeps its windows. Shared by the
 * specs that run the contract directly and through poolers, so every way of reaching the database keeps one contract.
 */
import type { WebhookRegistry } from 'workflow-webhooks';
import { PostgresWebhookRegistry, type PostgresWebhookRegistryOptions } from 'workflow-webhooks/postgres';
import type { RegistryHarness } from '../registry-contract/index.js';

interface Queryable {
  query(sql: string, values?: unknown[]): Promise<unknown>;
}

/**
 * `connection()` gives each registry its pool (and `directUrl`, through a pooler); `admin()` a pool that reaches the
 * registries' tables, for moving the clock.
 */
export function postgresRegistryHarness(connection: () => Pick<PostgresWebhookRegistryOptions, 'pool' | 'connectionString' | 'directUrl'>,
  admin: () => Queryable, freshSchema: () => string): RegistryHarness {
  const schemas = new Map<WebhookRegistry, string>();
  async function open(schema: string, maxWaiting?: number): Promise<PostgresWebhookRegistry> {
    const registry = new PostgresWebhookRegistry({ ...connection(), schema, onEvent: () => undefined, ...(maxWaiting === undefined ? {} : { maxWaiting }) });
    await registry.ready();
    schemas.set(registry, schema);
    return registry;
  }
  return {
    create: () => open(freshSchema()),
    peer: (registry) => open(schemas.get(registry) as string),
    dispose: async (registry) => {
      await (registry as PostgresWebhookRegistry).close();
      schemas.delete(registry);
    },
    remembersMessageIds: true,
    listsTestWebhooks: true,
    listsWaits: true,
    keepsWaits: { withMaxWaiting: (maxWaiting) => open(freshSchema(), maxWaiting) },
    countsRateLimits: true,
    addsRateLimitCalls: true,
    keepsDigestKey: true,
    // PostgreSQL measures a budget's window by its stored end against the database's clock: moving every end
    // sooner moves that clock on for the registry's schema.
    rateLimitClock: (registry, work) => work(async (ms) => {
      await admin().query(`UPDATE ${schemas.get(registry) as string}.rate_budgets SET window_ends = window_ends - $1`, [Math.ceil(ms)]);
    }),
  };
}
