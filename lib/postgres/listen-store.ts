/**
 * The test listens' atomic steps on PostgreSQL (`ListenStore`): each a change of the change log, so every instance
 * applies it. A listen's addresses are rows of `test_routes` under a primary key of (method, path): of two workflows
 * listening on one address, one gets it and the other is told who holds it. A relayed payload is one row of `relays`,
 * taken once with DELETE … RETURNING.
 */
import type { ListenRecord } from '../webhooks/registry/shared/listen-mirror.js';
import { RELAY_TTL_MS, type ListenChange, type ListenStore, type ListenStored, type RelayStep } from '../webhooks/registry/shared/test-listens.js';
import type { ChangeEntry, ChangeLog } from './change-log.js';
import type { PostgresLink } from './pool.js';

/** Route keys (`POST orders`) as the two columns of a route's primary key. */
export function routeColumns(routeKeys: readonly string[]): [string[], string[]] {
  const methods: string[] = [];
  const paths: string[] = [];
  for (const key of routeKeys) {
    const space = key.indexOf(' ');
    methods.push(key.slice(0, space));
    paths.push(key.slice(space + 1));
  }
  return [methods, paths];
}

export function postgresListenStore(link: PostgresLink, log: ChangeLog, schema: string, ready: () => Promise<void>): ListenStore {
  const s = schema;
  return {
    async listen(listen: ListenRecord['listen'], timeoutMs: number): Promise<ListenStored> {
      await ready();
      const [methods, paths] = routeColumns(listen.routeKeys);
      const { result } = await log.change<ListenStored>(async (sql, now) => {
        // The workflow's earlier listen ends (replaced), and listens whose window passed give up these addresses.
        const earlier = await sql(`DELETE FROM ${s}.listens WHERE workflow_id = $1 RETURNING listen_id`, [listen.workflowId]);
        await sql(`DELETE FROM ${s}.listens WHERE expires_at < $1 AND listen_id IN (SELECT listen_id FROM ${s}.test_routes
          WHERE (method, path) IN (SELECT * FROM unnest($2::text[], $3::text[])))`, [now, methods, paths]);
        const held = await sql(`SELECT t.method, t.path, l.record FROM ${s}.test_routes t JOIN ${s}.listens l USING (listen_id)
          WHERE (t.method, t.path) IN (SELECT * FROM unnest($1::text[], $2::text[])) LIMIT 1`, [methods, paths]);
        const holder = held.rows[0];
        if (holder !== undefined) return { result: { stored: false, key: `${String(holder.method)} ${String(holder.path)}`, holder: JSON.parse(String(holder.record)) as ListenRecord } };
        const expiresAt = now + timeoutMs;
        const record = JSON.stringify({ expiresAt, listen });
        await sql(`INSERT INTO ${s}.listens (listen_id, workflow_id, record, expires_at) VALUES ($1, $2, $3, $4)`, [listen.listenId, listen.workflowId, record, expiresAt]);
        await sql(`INSERT INTO ${s}.test_routes (method, path, listen_id) SELECT m, p, $3 FROM unnest($1::text[], $2::text[]) AS t(m, p)`, [methods, paths, listen.listenId]);
        const replaced = earlier.rows[0] === undefined ? undefined : String(earlier.rows[0].listen_id);
        return {
          result: { stored: true, expiresAt, replaced },
          before: replaced === undefined ? [] : [{ op: 'unlisten', subject: replaced, data: 'replaced' }],
          log: { op: 'listen', subject: listen.listenId, data: record },
        };
      }, 'starting a test listen', true);
      return result;
    },
    async claim(listenId: string): Promise<boolean> {
      await ready();
      const { result } = await log.change(async (sql, now) => {
        const taken = await sql(`DELETE FROM ${s}.listens WHERE listen_id = $1 AND expires_at >= $2 RETURNING listen_id`, [listenId, now]);
        return taken.rows.length === 0 ? { result: false } : { result: true, log: { op: 'unlisten', subject: listenId, data: 'received' } };
      }, 'claiming a test call', true);
      return result;
    },
    async end(listenId: string, reason: 'timedOut' | 'cancelled'): Promise<boolean> {
      await ready();
      const doing = reason === 'timedOut' ? 'ending a test listen whose window passed' : 'cancelling a test listen';
      const { result } = await log.change(async (sql) => {
        const ended = await sql(`DELETE FROM ${s}.listens WHERE listen_id = $1 RETURNING listen_id`, [listenId]);
        return ended.rows.length === 0 ? { result: false } : { result: true, log: { op: 'unlisten', subject: listenId, data: reason } };
      }, doing, true);
      return result;
    },
    async relay(listenId: string, step: RelayStep, payload: string): Promise<void> {
      await ready();
      await log.change(async (sql, now) => {
        await sql(`INSERT INTO ${s}.relays (listen_id, step, payload, expires_at) VALUES ($1, $2, $3, $4)
          ON CONFLICT (listen_id, step) DO UPDATE SET payload = EXCLUDED.payload, expires_at = EXCLUDED.expires_at`, [listenId, step, payload, now + RELAY_TTL_MS]);
        return { result: undefined, log: { op: step, subject: listenId } };
      }, 'relaying a test call to the instance that listens', true);
    },
    // Read once and gone: the relayed call holds the caller's headers and body.
    async take(listenId: string, step: RelayStep): Promise<string | null> {
      const taken = await link.query(`DELETE FROM ${s}.relays WHERE listen_id = $1 AND step = $2 RETURNING payload`, [listenId, step], 'reading a relayed test call');
      return taken.rows[0] === undefined ? null : String(taken.rows[0].payload);
    },
  };
}

/** A log entry about test listens, as the shared test listens read it. */
export function listenChange(entry: ChangeEntry): ListenChange {
  if (entry.op === 'listen') return { op: 'listen', record: JSON.parse(entry.data ?? '') as ListenRecord };
  if (entry.op === 'unlisten') return { op: 'unlisten', listenId: entry.subject, reason: entry.data ?? 'cancelled' };
  if (entry.op === 'arrived' || entry.op === 'settled') return { op: entry.op, listenId: entry.subject };
  throw new Error(`unknown change "${entry.op}"`);
}
