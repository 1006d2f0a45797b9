/**
 * The stores' way to PostgreSQL: the host's node-postgres pool (or one of its own, from a connection string, with
 * `pg` loaded only then, and the directUrl's for what needs a session), every statement and transaction bounded by a
 * deadline, and a failure for want of the database turned into REGISTRY_UNAVAILABLE. A connection that missed its
 * deadline is destroyed, never handed back. A wait for a connection that outlasts the deadline while the database
 * answers the pool's other statements is load, not an outage (`busy`): the pool is healthy, all its connections taken.
 * The types are structural, so no `pg` type reaches the published declarations.
 */
import { WebhookError } from '../core/errors.js';
import { busy, STORE_RETRY_AFTER_S, unavailable, withDeadline } from '../webhooks/registry/shared/contact.js';
import { explainFailure, loginRefusal } from './failure-hints.js';

export interface QueryResultLike {
  rows: Array<Record<string, unknown>>;
  rowCount: number | null;
}

/** The part of a node-postgres `PoolClient` the registry uses. */
export interface PostgresClientLike {
  query(text: string, values?: unknown[]): Promise<QueryResultLike>;
  release(error?: Error | boolean): void;
  on(event: 'notification', listener: (message: { channel: string; payload?: string }) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  removeListener(event: 'notification' | 'error', listener: () => void): unknown;
}

/** The part of a node-postgres `Pool` (8 or later) the registry uses. */
export interface PostgresPoolLike {
  /** The callback form: called as the connection is lent, before any more of what the server sent is read. */
  connect(callback: (error: Error | undefined | null, client: PostgresClientLike | undefined) => void): void;
  end(): Promise<void>;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'connect', listener: (client: PostgresClientLike) => void): unknown;
  listenerCount?(event: 'error'): number;
}

export function checkPool(pool: unknown): PostgresPoolLike {
  const candidate = pool as Partial<PostgresPoolLike> | null;
  if (typeof candidate?.connect !== 'function' || typeof candidate.end !== 'function' || typeof candidate.on !== 'function') {
    throw new TypeError('workflow-webhooks/postgres: option pool must be a node-postgres Pool (new Pool() from the pg package, version 8 or later).');
  }
  return candidate as PostgresPoolLike;
}

const SCHEMA_NAME = /^[a-z][a-z0-9_]{0,62}$/;

/** The schema's name, used in SQL as an identifier: lower-case letters, digits and `_`, so it never needs quoting. */
export function checkSchemaName(value: unknown): string {
  if (value === undefined) return 'workflow_webhooks';
  if (typeof value !== 'string' || !SCHEMA_NAME.test(value)) {
    throw new TypeError(`workflow-webhooks/postgres: option schema must be lower-case letters, digits and _, starting with a letter, at most 63; got ${JSON.stringify(value) ?? String(value)}.`);
  }
  return value;
}

/**
 * A pool of the library's own, from a connection string (or a pool config): `pg` is loaded here, on first use, never
 * by the entry itself.
 */
export async function openPool(connection: string | Record<string, unknown>): Promise<PostgresPoolLike> {
  const pg = await import('pg');
  const Pool = (pg.default ?? pg).Pool;
  const pool = new Pool(typeof connection === 'string' ? { connectionString: connection } : connection) as unknown as PostgresPoolLike;
  // An idle connection that drops (a restart) is replaced by the next statement; the registry reports the outage itself.
  pool.on('error', () => undefined);
  // Every connection of ours hears its 'error' events from the moment it is made, whoever takes it (BullMQ too):
  // 'connect' comes as the pool makes it, before it is lent and before more of what the server sent is read.
  pool.on('connect', hearErrors);
  return pool;
}

/**
 * The pools one store talks through: the host's pool or one of its own from a connection string, and the directUrl's
 * for what needs a session. Its own are opened at first use, so a store starts while the database is away, and
 * ended by end(); the host's never.
 */
export class StorePools {
  readonly #given: PostgresPoolLike | undefined;
  readonly #connectionString: string | undefined;
  readonly #directUrl: string | undefined;
  /** Connections of the directUrl's pool: what needs a session takes few. */
  readonly #directMax: number;
  #own: Promise<PostgresPoolLike> | undefined;
  #direct: Promise<PostgresPoolLike> | undefined;

  /** `connection` as checkConnection() gives it, with the directUrl option (checked by the caller). */
  constructor(connection: { pool?: PostgresPoolLike; connectionString?: string; directUrl?: string }, directMax: number) {
    this.#given = connection.pool;
    this.#connectionString = connection.connectionString;
    this.#directUrl = connection.directUrl;
    this.#directMax = directMax;
  }

  /** Whether what needs a session has a pool of its own (option directUrl). */
  get direct(): boolean {
    return this.#directUrl !== undefined;
  }

  /** The pool every statement goes through. */
  main(): Promise<PostgresPoolLike> {
    return this.#given !== undefined ? Promise.resolve(this.#given) : (this.#own ??= openPool(this.#connectionString as string));
  }

  /** The pool for what needs a session (LISTEN, the migration): the directUrl's, else the main one. */
  session(): Promise<PostgresPoolLike> {
    if (this.#directUrl === undefined) return this.main();
    this.#direct ??= openPool({ connectionString: this.#directUrl, max: this.#directMax });
    return this.#direct;
  }

  /** Ends the pools opened here, each even when another fails to end, then rejects with the first failure. */
  async end(): Promise<void> {
    const ended = await Promise.allSettled([this.#own, this.#direct].map(async (pool) => (await pool)?.end()));
    const failed = ended.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
  }
}

/** Node's codes for a server certificate refused (OpenSSL's verify results, a name that does not match). */
const CERTIFICATE_REFUSED = /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ALTNAME/;

/**
 * SQLSTATE classes that mean "no database now", not "this statement is wrong": connection, shutdown, resources; and
 * a connection that failed before any SQLSTATE (refused, reset, timed out). A refused certificate and our own
 * TypeErrors are settings to fix: waiting does not mend them.
 */
export function isOutage(error: unknown): boolean {
  if (error instanceof WebhookError || error instanceof TypeError) return false;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && CERTIFICATE_REFUSED.test(code)) return false;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return true;
  return code.startsWith('08') || code.startsWith('57P') || code.startsWith('53') || code === '57014';
}

class DeadlineError extends Error {
  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
    this.name = 'DeadlineError';
  }
}

/**
 * A connection of the pool within `timeoutMs`; one that comes after the deadline goes straight back. It hears its
 * 'error' events from the moment it is lent, for good: the server's message that ends a connection (a terminated
 * backend, a restart) may be read in the same chunk as the one that readied it, before a promise's continuation could
 * listen, and unheard it would end the process. The statement that fails on it says the same, and that is reported.
 */
export function connectWithin(pool: PostgresPoolLike, timeoutMs: number): Promise<PostgresClientLike> {
  const connecting = new Promise<PostgresClientLike>((resolve, reject) => {
    pool.connect((error, client) => {
      if (client === undefined || (error !== undefined && error !== null)) {
        // A refused certificate or TLS setting says what to change, whichever part of the library connected; a refused
        // login has the shape of a server that cannot be reached.
        const failure = error ?? new Error('the pool lent no connection');
        reject(refusedLogin(failure) ?? explainFailure(failure));
        return;
      }
      hearErrors(client);
      resolve(client);
    });
  });
  return withDeadline(connecting, timeoutMs, () => {
    connecting.then((late) => late.release(), () => undefined);
    return new DeadlineError(timeoutMs);
  });
}

export type Transaction = (sql: string, values?: unknown[]) => Promise<QueryResultLike>;

export class PostgresLink {
  readonly #pool: () => Promise<PostgresPoolLike>;
  readonly #timeoutMs: number;
  readonly #schema: string | undefined;
  #closed = false;
  /** When (performance.now()) a statement of this link was last answered: tells a busy pool from a silent database. */
  #answeredAt = Number.NEGATIVE_INFINITY;

  /** `schema`: the library's schema its statements use, so that a missing grant is named on the qualified object. */
  constructor(pool: () => Promise<PostgresPoolLike>, timeoutMs: number, schema?: string) {
    this.#pool = pool;
    this.#timeoutMs = timeoutMs;
    this.#schema = schema;
  }

  get timeoutMs(): number {
    return this.#timeoutMs;
  }

  /** One statement; `doing` completes the error message ("… while activating a workflow"). */
  query(sql: string, values: unknown[], doing: string): Promise<QueryResultLike> {
    return this.#with((client) => client.query(sql, values), doing, this.#timeoutMs);
  }

  /**
   * Runs `work` in one transaction, committed when it resolves and rolled back when it throws: a failed change never
   * leaves half of itself behind. `work` may answer without committing what it did (`rollback`).
   */
  transaction<T>(work: (sql: Transaction) => Promise<{ result: T; rollback?: boolean }>, doing: string, timeoutMs = this.#timeoutMs): Promise<T> {
    return this.#with(async (client) => {
      await client.query('BEGIN');
      try {
        const { result, rollback } = await work((sql, values) => client.query(sql, values));
        await client.query(rollback === true ? 'ROLLBACK' : 'COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    }, doing, timeoutMs);
  }

  close(): void {
    this.#closed = true;
  }

  async #with<T>(work: (client: PostgresClientLike) => Promise<T>, doing: string, timeoutMs: number): Promise<T> {
    if (this.#closed) throw new WebhookError('REGISTRY_UNAVAILABLE', 'The PostgreSQL webhook registry was closed.');
    let client: PostgresClientLike;
    const asked = performance.now();
    try {
      client = await connectWithin(await this.#pool(), timeoutMs);
    } catch (error) {
      // Every connection was lent the whole time, yet the database answered them: load, not an outage.
      if (error instanceof DeadlineError && this.#answeredAt > asked) throw busy('PostgreSQL', doing, timeoutMs);
      // A setting to fix (TLS trust, a grant) is named in the message: the raw one says what broke, not what to change.
      throw isOutage(error) ? unavailable('PostgreSQL', explainFailure(error, this.#schema), doing) : explainFailure(error, this.#schema);
    }
    try {
      const result = await withDeadline(work(client), timeoutMs, () => new DeadlineError(timeoutMs));
      this.#answeredAt = performance.now();
      client.release();
      return result;
    } catch (error) {
      const outage = isOutage(error);
      // A connection that failed or missed its deadline may be mid-statement: destroy it (the server rolls back).
      client.release(outage ? asError(error) : undefined);
      throw outage ? unavailable('PostgreSQL', error, doing) : explainFailure(error, this.#schema);
    }
  }
}

/**
 * A connection refused for its user, password or database, in the shape of one refused for want of the server (a
 * wrong port): REGISTRY_UNAVAILABLE with the server's words, the raw error as cause, and what to change. Not an
 * outage: nothing retries it.
 */
function refusedLogin(error: unknown): WebhookError | undefined {
  const hint = loginRefusal(error);
  if (hint === undefined) return undefined;
  const reason = error instanceof Error && error.message !== '' ? `: ${error.message}` : '';
  return new WebhookError('REGISTRY_UNAVAILABLE', `PostgreSQL refused the connection${reason}.`, {
    cause: error, hint, headers: { 'retry-after': String(STORE_RETRY_AFTER_S) },
  });
}

const guarded = new WeakSet<PostgresClientLike>();

/** Gives a connection one listener for its 'error' events, for good: the statement that fails on it says the same. */
function hearErrors(client: PostgresClientLike): void {
  if (guarded.has(client)) return;
  guarded.add(client);
  client.on('error', ignore);
}

function ignore(): void {
  // Heard through the statement's own rejection.
}

function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}
