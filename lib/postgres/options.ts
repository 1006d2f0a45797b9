/**
 * Options of the PostgreSQL registry, checked and defaulted once, in the constructor; nothing deeper reads raw
 * options. The events and the health report are those of every shared store (Redis tells the same).
 */
import { safeLogger, type WebhookLogger } from '../core/logger.js';
import { loggedEvents, stderrEvents, type SharedStoreEvent, type SharedStoreHealth } from '../webhooks/registry/shared/events.js';
import { checkMaxWaiting } from '../webhooks/registry/waits.js';
import { checkPool, checkSchemaName, type PostgresPoolLike } from './pool.js';

/** What the registry reports about its link to PostgreSQL and the state it mirrors. */
export type PostgresRegistryEvent =
  | SharedStoreEvent
  /**
   * A setup that will fail later, said once at `ready()`: `missingErrorListener` when the pool it was given has no
   * 'error' listener (node-postgres then crashes the process when an idle connection drops, as in a database restart).
   */
  | { type: 'warning'; code: 'missingErrorListener'; message: string };

export type PostgresRegistryHealth = SharedStoreHealth;

export interface PostgresWebhookRegistryOptions {
  /**
   * The host's `pg.Pool` (node-postgres 8 or later). The registry borrows one connection of it for good, to LISTEN for
   * changes, and others for each change; it never ends the pool. Give this or `connectionString`.
   */
  pool?: PostgresPoolLike;
  /** A connection string, for a pool of the registry's own (closed by `close()`). Give this or `pool`. */
  connectionString?: string;
  /**
   * A connection string that reaches the same database directly (or through a pooler in session mode), for what needs
   * a session: the connection kept for LISTEN, and the schema's migration. Give it when `pool` or `connectionString`
   * goes through a pooler in transaction mode (PgBouncer `pool_mode = transaction`, a Supabase or Neon pooled URL),
   * as Prisma's `directUrl`; every other statement still goes through the pooled one. The registry opens a small pool
   * of its own from it (closed by `close()`). Without it, `ready()` finds out whether the connection keeps a session
   * (a LISTEN that must hear a notification) and, when it does not, rejects with a TypeError that says so.
   */
  directUrl?: string;
  /** The PostgreSQL schema that holds the registry's tables: letters, digits and `_`, starting with a letter. Default `workflow_webhooks`. */
  schema?: string;
  /**
   * `true` (default): `ready()` creates the schema or brings it to this version, under an advisory lock, so several
   * instances may start at once. `false`: the schema must be migrated ahead of time (`migrate()` of this entry);
   * `ready()` checks its version and refuses an older or newer one.
   */
  migrate?: boolean;
  /** Longest wait for any statement before it counts as unavailable. Default 2000 ms. */
  commandTimeoutMs?: number;
  /**
   * Once cut off from PostgreSQL for longer than this, calls are answered 503 `REGISTRY_UNAVAILABLE` instead of from a
   * table that may be out of date. Default: none, calls are served from memory however long the database is away.
   */
  staleAfterMs?: number;
  /** Entries the change log keeps; an instance cut off for longer reloads everything. Default 10 000. */
  changeLogLength?: number;
  /** Hears every PostgresRegistryEvent. Default: disconnections, returns, warnings and errors go to `logger`. */
  onEvent?: (event: PostgresRegistryEvent) => void;
  /** Where the default `onEvent` writes (pino, console, the middleware's logger). Default: stderr. */
  logger?: WebhookLogger;
  /** At most this many runs waiting for a call (waiting webhooks) across all instances; one more is refused `TOO_MANY_WAITING`. Default 100 000. */
  maxWaiting?: number;
}

export interface ResolvedPostgresOptions extends PostgresConnection {
  schema: string;
  migrate: boolean;
  commandTimeoutMs: number;
  staleAfterMs: number;
  changeLogLength: number;
  maxWaiting: number;
  onEvent: (event: PostgresRegistryEvent) => void;
}

export function fail(name: string, rule: string): never {
  throw new TypeError(`workflow-webhooks/postgres: option ${name} ${rule}.`);
}

export function positive(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) fail(name, 'must be a positive number');
  return value;
}

const VOICE = { component: 'workflow-webhooks/postgres', store: 'PostgreSQL' };

/** What a part connects through: the host's pool or a connection string, and the directUrl of the parts that take one. */
export interface PostgresConnection {
  /** The host's pool, or undefined when the part opens its own from `connectionString`. */
  pool: PostgresPoolLike | undefined;
  connectionString: string | undefined;
  /** For what needs a session (LISTEN, migrations), when the other connection goes through a pooler in transaction mode. */
  directUrl: string | undefined;
}

/** The pool or connection string every PostgreSQL part takes, and its directUrl, checked alike. */
export function checkConnection(options: { pool?: unknown; connectionString?: unknown; directUrl?: unknown }, what: string): PostgresConnection {
  const { pool, connectionString, directUrl } = options;
  if ((pool === undefined) === (connectionString === undefined)) fail('pool', `or connectionString is required, not both: new ${what}({ pool })`);
  if (directUrl !== undefined && (typeof directUrl !== 'string' || directUrl === '')) {
    fail('directUrl', 'must be a non-empty connection string that reaches the database directly');
  }
  if (pool !== undefined) return { pool: checkPool(pool), connectionString: undefined, directUrl };
  if (typeof connectionString !== 'string' || connectionString === '') fail('connectionString', 'must be a non-empty string');
  return { pool: undefined, connectionString, directUrl };
}

export function resolvePostgresOptions(options: PostgresWebhookRegistryOptions): ResolvedPostgresOptions {
  if (typeof options !== 'object' || options === null) fail('object', 'is required: new PostgresWebhookRegistry({ pool })');
  const connection = checkConnection(options, 'PostgresWebhookRegistry');
  const changeLogLength = positive('changeLogLength', options.changeLogLength, 10_000);
  if (!Number.isInteger(changeLogLength) || changeLogLength < 100) fail('changeLogLength', 'must be an integer of at least 100');
  if (options.migrate !== undefined && typeof options.migrate !== 'boolean') fail('migrate', 'must be true or false');
  if (options.onEvent !== undefined && typeof options.onEvent !== 'function') fail('onEvent', 'must be a function');
  if (options.logger !== undefined && (typeof options.logger?.warn !== 'function' || typeof options.logger.error !== 'function')) {
    fail('logger', 'must have warn(fields, message) and error(fields, message)');
  }
  const listener = options.onEvent ?? (options.logger === undefined ? stderrEvents(VOICE) : loggedEvents(safeLogger(options.logger), VOICE));
  return {
    ...connection,
    schema: checkSchemaName(options.schema),
    migrate: options.migrate ?? true,
    commandTimeoutMs: positive('commandTimeoutMs', options.commandTimeoutMs, 2000),
    staleAfterMs: positive('staleAfterMs', options.staleAfterMs, Number.POSITIVE_INFINITY),
    changeLogLength,
    maxWaiting: checkMaxWaiting(options.maxWaiting),
    onEvent: (event) => {
      try {
        listener(event);
      } catch {
        // A host's listener must not break the registry.
      }
    },
  };
}
