/**
 * A PostgresWebhookRegistry for a bench server, in a schema of its own, loaded and following the change log: pg and
 * the PostgreSQL entry point imported only when a scenario asks for PostgreSQL (BENCH_POSTGRES_URL, set by the bench
 * that started the server). `close()` closes the registry, then its pool.
 */
import type { WebhookRegistry } from '../../lib/index.js';

export async function openBenchPostgresRegistry(schema: string): Promise<{ registry: WebhookRegistry; close(): Promise<void> }> {
  const url = process.env.BENCH_POSTGRES_URL;
  if (url === undefined) throw new Error('a PostgreSQL scenario needs BENCH_POSTGRES_URL');
  const [{ default: pg }, { PostgresWebhookRegistry }] = await Promise.all([import('pg'), import('../../lib/postgres/index.js')]);
  const pool = new pg.Pool({ connectionString: url });
  pool.on('error', (error: unknown) => console.error('bench postgres pool:', error));
  const registry = new PostgresWebhookRegistry({ pool, schema });
  await registry.ready();
  return {
    registry,
    close: async () => {
      await registry.close();
      await pool.end();
    },
  };
}
