/**
 * The history store contract's harness for PostgresHistoryStore: one schema per store (its second store shares it),
 * the table read directly through another pool, and the server stopped and started for the outage cases. Shared by
 * the specs that keep calls in PostgreSQL (the store's own, through a pooler, the secrets specs).
 */
import type pg from 'pg';
import { PostgresHistoryStore, type PostgresHistoryStoreOptions } from 'workflow-webhooks/postgres';
import type { HistoryStore } from '../../../lib/core/history.js';
import type { HistoryStoreHarness } from '../history-contract/index.js';
import type { PostgresServer } from '../postgres-server.js';

/**
 * `connection()` gives each store its pool (and `directUrl`, through a pooler); `reader()` a pool that reaches the
 * tables directly; `server()`, when given, the server the outage cases stop (a spec's own, never the shared one).
 */
export function postgresHistoryHarness(connection: () => Pick<PostgresHistoryStoreOptions, 'pool' | 'directUrl'>, reader: () => pg.Pool,
  prefix: string, server?: () => PostgresServer): HistoryStoreHarness {
  const schemas = new WeakMap<HistoryStore, string>();
  let next = 0;
  const made = (schema: string, retention: Partial<HistoryStore['retention']>): HistoryStore => {
    const store = new PostgresHistoryStore({ ...connection(), schema, ...retention });
    schemas.set(store, schema);
    return store;
  };
  /** The rows of a SELECT on the store's table (`{T}`); none before the store made it. */
  const rows = async (store: HistoryStore, select: string): Promise<Array<Record<string, unknown>>> => {
    const table = `${schemas.get(store) as string}.history_calls`;
    const exists = await reader().query('SELECT to_regclass($1) IS NOT NULL AS present', [table]);
    return exists.rows[0]?.present === true ? (await reader().query(select.replace('{T}', table))).rows : [];
  };
  return {
    open: (retention = {}) => Promise.resolve(made(`${prefix}_${process.pid}_${(next += 1)}`, retention)),
    rawIds: async (store) => (await rows(store, 'SELECT id FROM {T}')).map((row) => row.id as string),
    // Each column's value as the database holds it (text as is, jsonb as its text), not quoted as a row literal.
    rawText: async (store) => (await rows(store, 'SELECT value FROM {T} AS t, json_each_text(row_to_json(t))')).map((row) => row.value as string).join('\n'),
    second: (store) => Promise.resolve(made(schemas.get(store) as string, store.retention)),
    ...(server === undefined ? {} : { outage: { stop: () => server().stopImmediately(), start: () => server().startAgain() } }),
  };
}
