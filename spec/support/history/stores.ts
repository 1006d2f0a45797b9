/**
 * The history stores an HTTP spec of history runs on: memory, Redis (a redis-server of the describe's own) and
 * PostgreSQL (the run's shared server, a schema per store). Each store a test opens is closed after it; a store whose
 * server this machine lacks is listed NOT RUN.
 */
import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { RedisHistoryStore } from 'workflow-webhooks/redis';
import { PostgresHistoryStore } from 'workflow-webhooks/postgres';
import { MemoryHistoryStore, type HistoryStore } from '../../../lib/index.js';
import { POSTGRES, sharedPostgres } from '../postgres-server.js';
import { REDIS, RedisServer } from '../redis-server.js';
import { findService, markNotRun, type Service } from '../services.js';

/** Enough room for every call of a spec: the memory store's default of 1 000 would drop the oldest. */
const ROOM = 10_000;

export interface HistoryStoreKind {
  readonly name: 'memory' | 'Redis' | 'PostgreSQL';
  /** Call first inside the describe: starts the store's server before its tests; `open()` makes an empty store. */
  setup(): { open(): Promise<HistoryStore> };
}

/** Registers closing every store opened in the describe's tests, after each. */
function opener(make: () => HistoryStore | Promise<HistoryStore>): { open(): Promise<HistoryStore> } {
  const opened: HistoryStore[] = [];
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close?.().catch(() => undefined);
  });
  return {
    async open() {
      const store = await make();
      opened.push(store);
      return store;
    },
  };
}

const MEMORY: HistoryStoreKind = { name: 'memory', setup: () => opener(() => new MemoryHistoryStore({ maxEntries: ROOM })) };

const ON_REDIS: HistoryStoreKind = {
  name: 'Redis',
  setup() {
    let server: RedisServer | undefined;
    let client: ReturnType<typeof createClient> | undefined;
    before(async () => {
      server = await RedisServer.start();
      client = createClient({ url: (server as RedisServer).url });
      client.on('error', () => undefined);
      await client.connect();
    });
    after(async () => {
      client?.destroy();
      await server?.stop();
    });
    // Each store its own prefix: a test sees only its calls.
    return opener(() => new RedisHistoryStore({ client: client as ReturnType<typeof createClient>, prefix: `recover-${randomUUID().slice(0, 8)}:`, maxEntries: ROOM }));
  },
};

let schemas = 0;

const ON_POSTGRES: HistoryStoreKind = {
  name: 'PostgreSQL',
  setup() {
    let url = '';
    before(async function () {
      // initdb and the first start of the shared server take seconds on a loaded machine.
      this.timeout(120_000);
      url = (await sharedPostgres())?.url as string;
    });
    return opener(() => new PostgresHistoryStore({ connectionString: url, schema: `recover_${process.pid}_${(schemas += 1)}`, maxEntries: ROOM }));
  },
};

const SERVICES = new Map<HistoryStoreKind, Service>([[ON_REDIS, REDIS], [ON_POSTGRES, POSTGRES]]);

/** Memory always; Redis and PostgreSQL where their servers are. */
export function historyStoreKinds(what: string): HistoryStoreKind[] {
  return [MEMORY, ON_REDIS, ON_POSTGRES].filter((kind) => {
    const service = SERVICES.get(kind);
    if (service === undefined || findService(service) !== undefined) return true;
    markNotRun(`${what} on ${kind.name}`, service);
    return false;
  });
}
