/**
 * Each shared store (Redis, PostgreSQL) as a spec needs it to start something while the store is away: a real server
 * started once for a free port and its data, then stopped, to be brought up again on the same address.
 */
import { POSTGRES, PostgresServer } from './postgres-server.js';
import { REDIS, RedisServer } from './redis-server.js';
import type { Service } from './services.js';

export interface DownStore {
  /** Where it will be: a redis:// or a postgres:// URL. */
  url: string;
  /** Starts it on the same address; resolves once it accepts connections. */
  up(): Promise<void>;
  /** PostgreSQL only: a restart as a crash would make it (`pg_ctl restart -m immediate`), its data kept. */
  restart?(): Promise<void>;
  stop(): Promise<void>;
}

export const STORES_DOWN: ReadonlyArray<{ name: 'Redis' | 'PostgreSQL'; service: Service; open(): Promise<DownStore> }> = [
  {
    name: 'Redis',
    service: REDIS,
    async open() {
      const server = await RedisServer.start() as RedisServer;
      await server.kill();
      return { url: server.url, up: () => server.restart(), stop: () => server.stop() };
    },
  },
  {
    name: 'PostgreSQL',
    service: POSTGRES,
    async open() {
      const server = await PostgresServer.start() as PostgresServer;
      await server.stopImmediately();
      return { url: server.url, up: () => server.startAgain(), restart: () => server.restartImmediately(), stop: () => server.stop() };
    },
  },
];
