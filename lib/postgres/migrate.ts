/**
 * The schema's migrations run ahead of time, for teams whose application user may not create tables: run `migrate()`
 * once per deployment as a user that may (the registries, queues and workers then start with `migrate: false`), e.g.
 * `node -e "import('workflow-webhooks/postgres').then((m) => m.migrate({ connectionString: process.env.DATABASE_URL }))"`.
 * With `bullmqSchema` it also runs BullMQ's own migrations, for queue mode on PostgreSQL (`bullmq` loaded only then).
 */
import { checkConnection, positive } from './options.js';
import { explainFailure } from './failure-hints.js';
import { checkSchemaName, connectWithin, openPool, PostgresLink, type PostgresPoolLike } from './pool.js';
import { migrateSchema, SCHEMA_VERSION } from './schema.js';

export interface PostgresMigrateOptions {
  /** A node-postgres Pool; it is not ended. Give this or `connectionString`. */
  pool?: import('./pool.js').PostgresPoolLike;
  /** A connection string, for a pool of its own, ended when done. */
  connectionString?: string;
  /** The schema, as the registries are given it. Default `workflow_webhooks`. */
  schema?: string;
  /** Longest wait for the migration, which waits for a concurrent one. Default 30 000 ms. */
  timeoutMs?: number;
  /**
   * Queue mode on PostgreSQL: BullMQ's schema (`bullmq` unless a pool config names another), created or upgraded too,
   * by BullMQ's own migrations. Default: none, only the library's schema.
   */
  bullmqSchema?: string;
}

/** Creates the schema or brings it to this library's version; resolves the versions before and after. */
export async function migrate(options: PostgresMigrateOptions): Promise<{ from: number; to: number }> {
  const { pool, connectionString } = checkConnection(options, 'migrate');
  const schema = checkSchemaName(options.schema);
  const bullmqSchema = options.bullmqSchema === undefined ? undefined : checkBullmqSchema(options.bullmqSchema);
  const own = pool === undefined ? await openPool(connectionString as string) : undefined;
  const link = new PostgresLink(() => Promise.resolve((pool ?? own) as NonNullable<typeof pool>), positive('timeoutMs', options.timeoutMs, 30_000));
  try {
    const from = await migrateSchema(link, schema);
    if (bullmqSchema !== undefined) await migrateBullmq((pool ?? own) as PostgresPoolLike, bullmqSchema);
    return { from, to: SCHEMA_VERSION };
  } finally {
    await own?.end();
  }
}

function checkBullmqSchema(value: unknown): string {
  if (typeof value !== 'string' || !/^[a-z_][a-z0-9_]{0,62}$/.test(value)) {
    throw new TypeError(`workflow-webhooks/postgres: option bullmqSchema must be lower-case letters, digits and _, at most 63; got ${JSON.stringify(value) ?? String(value)}.`);
  }
  return value;
}

/** BullMQ's migrations, on one connection of their own (they take a transaction-scoped lock on it). */
async function migrateBullmq(pool: PostgresPoolLike, bullmqSchema: string): Promise<void> {
  const { runMigrations } = await import('bullmq');
  const client = await connectWithin(pool, 30_000);
  try {
    await runMigrations(client as never, bullmqSchema);
    client.release();
  } catch (error) {
    client.release(error instanceof Error ? error : true);
    throw explainFailure(error);
  }
}
