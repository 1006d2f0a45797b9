/**
 * History stores as a reader (or writer) of their database sees them, for the specs of what history keeps of a
 * call's secrets: memory, Redis and PostgreSQL, each opened on a namespace of its own, its raw text read without
 * the store (every key and value under the Redis prefix, every column of every PostgreSQL row), and one call's
 * sealed data written over another's, as someone with write access to the database could.
 */
import pg from 'pg';
import { createClient } from 'redis';
import { RedisHistoryStore } from 'workflow-webhooks/redis';
import { PostgresHistoryStore } from 'workflow-webhooks/postgres';
import type { HistoryRecord, HistoryStore } from '../../../lib/core/history.js';
import { MemoryHistoryStore } from '../../../lib/webhooks/history/memory-store.js';
import { historyId } from '../../../lib/webhooks/history/ids.js';
import { closeAll } from '../close-all.js';
import { findAll } from '../history-contract/fixture.js';
import { POSTGRES, sharedPostgres, type PostgresServer } from '../postgres-server.js';
import { REDIS, RedisServer } from '../redis-server.js';
import type { Service } from '../services.js';

export interface RawStoreSetup {
  /** A new, empty store on a namespace of its own; closed after the describe. */
  open(): Promise<HistoryStore>;
  /** Everything the store holds, as its database holds it (memory: every record as the store keeps it, as JSON). */
  rawText(store: HistoryStore): Promise<string>;
  /**
   * Puts the data of the call `from` on another call, beside the store: over the call `to` in a database, as a new
   * record of `to`'s fields in memory. Resolves with the id of the call that now holds the moved data.
   */
  moveData(store: HistoryStore, from: string, to: string): Promise<string>;
}

export interface RawStore {
  readonly name: 'memory' | 'Redis' | 'PostgreSQL';
  /** The server it needs; none for memory. */
  readonly service: Service | undefined;
  /** Call first inside the describe: starts what the store needs before its tests, closes it all after them. */
  setup(): RawStoreSetup;
}

const MEMORY: RawStore = {
  name: 'memory',
  service: undefined,
  setup: () => ({
    open: () => Promise.resolve(new MemoryHistoryStore()),
    rawText: async (store) => JSON.stringify(await findAll(store, { limit: 500 })),
    async moveData(store, from, to) {
      const [source, target] = await Promise.all([store.get(from), store.get(to)]) as [HistoryRecord, HistoryRecord];
      const forged = { ...target, id: historyId(target.at), data: source.data };
      await store.append([forged]);
      return forged.id;
    },
  }),
};

const ON_REDIS: RawStore = {
  name: 'Redis',
  service: REDIS,
  setup() {
    let server: RedisServer | undefined;
    let client: ReturnType<typeof createClient> | undefined;
    const stores: HistoryStore[] = [];
    const prefixes = new WeakMap<HistoryStore, string>();
    before(async () => {
      server = await RedisServer.start() as RedisServer;
      client = createClient({ url: server.url });
      client.on('error', () => undefined);
      await client.connect();
    });
    after(() => closeAll(...stores.map((store) => () => store.close?.()), () => client?.destroy(), () => server?.stop()));
    const redis = (): ReturnType<typeof createClient> => client as ReturnType<typeof createClient>;
    const recordKey = (store: HistoryStore, id: string): string => `${prefixes.get(store) as string}history:${id}`;
    return {
      open() {
        const prefix = `secrets-${process.pid}-${stores.length + 1}:`;
        const store = new RedisHistoryStore({ client: redis(), prefix });
        stores.push(store);
        prefixes.set(store, prefix);
        return Promise.resolve(store);
      },
      async rawText(store) {
        const lines: string[] = [];
        for (const key of await redis().keys(`${prefixes.get(store) as string}*`)) {
          const kind = await redis().type(key);
          const value = kind === 'string' ? [await redis().get(key) ?? '']
            : kind === 'hash' ? Object.entries(await redis().hGetAll(key)).flat()
              : kind === 'zset' ? await redis().zRange(key, 0, -1) : [`(a ${kind} this reader does not read)`];
          lines.push(key, ...value);
        }
        return lines.join('\n');
      },
      async moveData(store, from, to) {
        // A call's hash keeps its record as JSON in the field `record` (lib/redis/history-scripts.ts).
        const [source, target] = await Promise.all([redis().hGet(recordKey(store, from), 'record'), redis().hGet(recordKey(store, to), 'record')]);
        const moved = { ...JSON.parse(target as string) as HistoryRecord, data: (JSON.parse(source as string) as HistoryRecord).data };
        await redis().hSet(recordKey(store, to), 'record', JSON.stringify(moved));
        return to;
      },
    };
  },
};

const ON_POSTGRES: RawStore = {
  name: 'PostgreSQL',
  service: POSTGRES,
  setup() {
    let pool: pg.Pool | undefined;
    const stores: HistoryStore[] = [];
    const tables = new WeakMap<HistoryStore, string>();
    before(async function () {
      this.timeout(120_000);
      const server = await sharedPostgres() as PostgresServer;
      pool = new pg.Pool({ connectionString: server.url, max: 4 });
      pool.on('error', () => undefined);
    });
    after(() => closeAll(...stores.map((store) => () => store.close?.()), () => pool?.end()));
    const reader = (): pg.Pool => pool as pg.Pool;
    return {
      open() {
        const schema = `history_secrets_${process.pid}_${stores.length + 1}`;
        const store = new PostgresHistoryStore({ pool: reader(), schema });
        stores.push(store);
        tables.set(store, `${schema}.history_calls`);
        return Promise.resolve(store);
      },
      async rawText(store) {
        // Each column's value as the database holds it (text as is, jsonb as its text).
        const found = await reader().query(`SELECT value FROM ${tables.get(store) as string} AS t, json_each_text(row_to_json(t))`);
        return found.rows.map((row: { value: string | null }) => row.value ?? '').join('\n');
      },
      async moveData(store, from, to) {
        // A row keeps its record as JSON text in the column `record` (lib/postgres/history-sql.ts).
        const table = tables.get(store) as string;
        await reader().query(`UPDATE ${table} SET record = jsonb_set(record::jsonb, '{data}', (SELECT record::jsonb -> 'data' FROM ${table} WHERE id = $1))::text
          WHERE id = $2`, [from, to]);
        return to;
      },
    };
  },
};

export const RAW_STORES: readonly RawStore[] = [MEMORY, ON_REDIS, ON_POSTGRES];
