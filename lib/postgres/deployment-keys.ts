/**
 * The deployment's keys in PostgreSQL (table `deployment_keys`): each offered by every instance as it loads, the first
 * one written kept, and read back in the same statement.
 */
import type { PostgresLink } from './pool.js';

/** The row of the rate limits' digest key. */
export const DIGEST_KEY_NAME = 'rate-limit digest';

/** The key stored under `name`, after offering `offered` in case there is none yet. */
export async function keptKey(link: PostgresLink, schema: string, name: string, offered: Buffer): Promise<Buffer> {
  // DO UPDATE to the row's own key rather than DO NOTHING: it returns the row another instance wrote, also one it
  // commits while this statement waits (DO NOTHING returns no row then, and a SELECT in the statement sees none).
  const kept = await link.query(`INSERT INTO ${schema}.deployment_keys AS k (name, key) VALUES ($1, $2)
    ON CONFLICT (name) DO UPDATE SET key = k.key RETURNING key`, [name, offered], 'reading the deployment\'s digest key');
  const key = kept.rows[0]?.key;
  return Buffer.isBuffer(key) ? key : Buffer.alloc(0);
}
