/**
 * The schema's migrations run ahead of time, for teams whose application user may not create tables: run `migrate()`
 * once per deployment as a user that may (the registries then start with `migrate: false`), e.g.
 * `node -e "import('workflow-webhooks/postgres').then((m) => m.migrate({ connectionString: process.env.DATABASE_URL }))"`.
 */
import { checkConnection, positive } from './options.js';
import { checkSchemaName, openPool, PostgresLink } from './pool.js';
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
}

/** Creates the schema or brings it to this library's version; resolves the versions before and after. */
export async function migrate(options: PostgresMigrateOptions): Promise<{ from: number; to: number }> {
  const { pool, connectionString } = checkConnection(options, 'migrate');
  const schema = checkSchemaName(options.schema);
  const own = pool === undefined ? await openPool(connectionString as string) : undefined;
  const link = new PostgresLink(() => Promise.resolve((pool ?? own) as NonNullable<typeof pool>), positive('timeoutMs', options.timeoutMs, 30_000));
  try {
    return { from: await migrateSchema(link, schema), to: SCHEMA_VERSION };
  } finally {
    await own?.end();
  }
}
