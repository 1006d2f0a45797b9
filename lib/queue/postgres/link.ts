/**
 * Queue mode's store on PostgreSQL: BullMQ on its PostgreSQL backend for the jobs, and beside it, on a pool of the
 * library's (the host's own `pg.Pool` when it gave one), the functions of admission and concurrency slots, the marks
 * of refused calls, the reply channel (LISTEN/NOTIFY) and the binary store's table, in the library's schema. Loaded
 * only for a PostgreSQL connection, so `pg` never reaches a Redis user.
 */
import { assertSchemaCompatibility, createPostgresBackend, quoteSchemaName, runMigrations, withBackend, type Queue, type Worker } from 'bullmq';
import { checkSchema, migrateSchema } from '../../postgres/schema.js';
import type { LockedSweep } from '../../postgres/sweeper.js';
import { mayHaveCommitted } from '../../postgres/unsure-writes.js';
import { explainFailure, failureHint, reportEachFixOnce } from '../../postgres/failure-hints.js';
import { connectWithin, isOutage, openPool, PostgresLink, type PostgresClientLike, type PostgresPoolLike, type QueryResultLike } from '../../postgres/pool.js';
import { checkSession } from '../../postgres/session-check.js';
import { withDeadline } from '../../webhooks/registry/shared/contact.js';
import { errorFields } from '../../core/logger.js';
import { OutageLog } from '../store/outage-log.js';
import type { QueuePostgresConfig, QueuePostgresPool } from '../connection-forms.js';
import type { WebhookJobData, WebhookJobResult } from '../job-data.js';
import type { ResolvedShared } from '../options.js';
import { replyModeOf, type Admission, type OpeningLink, type QueueStoreLink } from '../store/contract.js';
import { publishReply, ReplyListener, replyChannelOf } from './replies.js';
import { RefusalMarks } from './refusals.js';
import { queueSweep } from './sweeper.js';

/** Every statement of an admission, a slot or a reply answers within this, or the call is refused in time. */
export const STATEMENT_DEADLINE_MS = 5000;
const MIGRATION_DEADLINE_MS = 30_000;
/** BullMQ's own options in a pool config, which node-postgres does not take. */
const BULLMQ_KEYS = ['schema', 'migrate', 'skipMigrations', 'skipVersionCheck'];
const ADMISSIONS = new Set<Admission>(['duplicate', 'retake', 'mismatch', 'pending', 'full', 'ok']);

type Given = string | QueuePostgresPool | QueuePostgresConfig;

function isPool(given: Given): given is QueuePostgresPool {
  return typeof given === 'object' && typeof (given as { connect?: unknown }).connect === 'function';
}

/**
 * BullMQ's pool for a URL or a pool config: one of ours, with BullMQ's schema on its search path (its statements name
 * none), so that every connection in it hears its 'error' events from the moment it is made. A pool BullMQ made
 * itself would lend connections with no listener, and one the server ends in the moment it is lent (a restart while
 * BullMQ checks its schema) would end the process. The path is set by a statement as each connection is made, not by
 * the `options` start-up parameter, which PgBouncer refuses: in node-postgres' `onConnect`, awaited before the
 * connection is lent; where the pool predates that hook, in its 'connect' listener, which comes before the connection
 * is lent too, so the statement is queued ahead of any of BullMQ's.
 */
async function bullPool(config: string | Record<string, unknown>, bullSchema: string): Promise<PostgresPoolLike> {
  const path = `SET search_path TO ${quoteSchemaName(bullSchema)}`;
  const onPath = new WeakSet<PostgresClientLike>();
  const onConnect = async (client: PostgresClientLike): Promise<void> => {
    await client.query(path);
    onPath.add(client);
  };
  const pool = await openPool({ ...(typeof config === 'string' ? { connectionString: config } : config), onConnect });
  // A failed SET means a failed connection: BullMQ's statement after it fails the same way and says so.
  pool.on('connect', (client) => { if (!onPath.has(client)) client.query(path).catch(() => undefined); });
  return pool;
}

/** The directUrl's pool config: the URL, with a pool config's other settings (ssl, max, …) when one was given. */
function directConfig(given: Given, directUrl: string): string | Record<string, unknown> {
  return typeof given === 'object' && !isPool(given) ? { ...ownPoolConfig(given) as Record<string, unknown>, connectionString: directUrl } : directUrl;
}

/** Our pool's config: the URL, or the config without BullMQ's options. */
function ownPoolConfig(given: string | QueuePostgresConfig): string | Record<string, unknown> {
  if (typeof given === 'string') return given;
  return Object.fromEntries(Object.entries(given).filter(([key]) => !BULLMQ_KEYS.includes(key)));
}

/** BullMQ's schema: a pool config's `schema`, else BullMQ's default. */
function bullSchemaOf(given: Given): string {
  return typeof given === 'object' && !isPool(given) && typeof given.schema === 'string' ? given.schema : 'bullmq';
}

/** A failure of ours reads as the queue's, not the registry's: its message and cause, without the registry's code. */
function asQueueError(error: unknown): Error {
  explainFailure(error);
  const cause = (error as { cause?: unknown } | null)?.cause ?? error;
  return new Error(error instanceof Error ? error.message : String(error), { cause });
}

/**
 * Opens the web side's (`web` true) or a worker's link to PostgreSQL. `clock` gives the times the limits are kept by
 * (the callers' clocks, as on Redis).
 */
export function openPostgresLink(options: ResolvedShared, web: boolean, clock: () => number = Date.now): OpeningLink {
  const given = (options.connection as { postgres: Given }).postgres;
  let closed = false;
  let pool: Promise<PostgresPoolLike> | undefined;
  /** BullMQ's: the host's pool, or one of ours with BullMQ's schema on its search path (of the directUrl, when given). */
  let bullmqPool: Promise<PostgresPoolLike> | undefined;
  const direct = options.directUrl === undefined ? undefined : directConfig(given, options.directUrl);
  let directPool: Promise<PostgresPoolLike> | undefined;
  let listener: ReplyListener | undefined;
  let sweeper: LockedSweep | undefined;
  let marks: RefusalMarks | undefined;
  const ownsPool = !isPool(given);
  let closing: Promise<void> | undefined;
  // No pool is opened once closing began: it would be left open behind the close.
  const poolOf = (): Promise<PostgresPoolLike> => (closing !== undefined && pool === undefined ? Promise.reject(new Error('closed'))
    : (pool ??= isPool(given) ? Promise.resolve(given as unknown as PostgresPoolLike) : openPool(ownPoolConfig(given))));
  const statements = new PostgresLink(poolOf, STATEMENT_DEADLINE_MS, options.schema);
  /** What needs a session (LISTEN, migrations): the directUrl's pool when given, else the statements' one. */
  const sessionPoolOf = (): Promise<PostgresPoolLike> => (direct === undefined ? poolOf()
    : closing !== undefined && directPool === undefined ? Promise.reject(new Error('closed'))
      // One connection LISTENs for good (the refusal marks use it too); the others serve the start and the migrations.
      : (directPool ??= openPool({ ...(typeof direct === 'string' ? { connectionString: direct } : direct), max: 3 })));
  const sessionStatements = direct === undefined ? statements : new PostgresLink(sessionPoolOf, STATEMENT_DEADLINE_MS, options.schema);
  const schema = options.schema;
  const replies = replyModeOf(options.keyring);
  const bullSchema = bullSchemaOf(given);
  const scope = `${bullSchema}:${options.name}`;
  const who = web ? 'createWebhookQueue' : 'createWebhookWorker';
  // A worker tells an outage once, with its end (outage-log.ts); what is no outage is told as it comes.
  const outage = web ? undefined : new OutageLog({
    logger: options.logger, who: 'queue worker', store: 'PostgreSQL', probe: () => statements.query('SELECT 1', [], 'checking that PostgreSQL answers'),
    isOutage: (error) => isOutage((error as { cause?: unknown } | null)?.cause ?? error),
  });
  const report = (doing: string) => (error: unknown): void => {
    if (outage?.covers(error) === true) outage.failed(error);
    else options.logger.warn({ err: errorFields(error) }, `${who}: PostgreSQL failed while ${doing}`);
  };
  // A stored reply that cannot be read (a grant missing) is told once, with the GRANT; any other
  // failure of the listener as it comes.
  const readGrantMissing = reportEachFixOnce(schema, (error, hint) => { options.logger.error({ err: errorFields(error) }, `${who}: a reply to a waiting call could not be read; until this is fixed each such call is answered by its job poll, up to a second later. ${hint}`); });
  const listenerTrouble = (error: unknown): void => {
    if (failureHint(error, schema) === undefined) report('listening for replies')(error);
    else readGrantMissing(error);
  };
  const grantMissing = reportEachFixOnce(schema, (error, hint) => { options.logger.error({ err: errorFields(error) }, `${who}: a reply to a waiting call could not be sent; until this is fixed each such call is answered by its job poll, up to a second later. ${hint}`); });
  const run = (sql: string, values: unknown[], doing: string): Promise<QueryResultLike> =>
    statements.query(sql, values, doing).catch((error: unknown) => { throw asQueueError(error); });
  // Once only, however many ways it is asked for (the opening closed, then the link): a pool ended twice throws.
  const closeAll = (): Promise<void> => (closing ??= (async () => {
    outage?.close();
    sweeper?.stop();
    marks?.stop();
    await listener?.stop();
    statements.close();
    sessionStatements.close();
    if (ownsPool && pool !== undefined) await pool.then((opened) => opened.end(), () => undefined);
    if ((ownsPool || direct !== undefined) && bullmqPool !== undefined) await bullmqPool.then((opened) => opened.end(), () => undefined);
    if (directPool !== undefined) await directPool.then((opened) => opened.end(), () => undefined);
  })());

  const link = (async (): Promise<QueueStoreLink> => {
    // A LISTEN that would hear nothing (a pooler in transaction mode) is refused before anything else: the replies'
    // notifications are sent through the statements' pool, BullMQ's through its own, which is the session pool's URL.
    await checkSession({ listen: await sessionPoolOf(), notify: await poolOf(), timeoutMs: STATEMENT_DEADLINE_MS, who, direct: direct !== undefined });
    if (options.migrate) await migrateSchema(sessionStatements, schema);
    else await checkSchema(statements, schema);
    await bullSchemaReady(await sessionPoolOf(), bullSchema, options.migrate, direct === undefined && !ownsPool);
    if (closed) throw new Error('closed');
    listener = new ReplyListener(sessionPoolOf, (sql, values) => run(sql, values, 'reading a reply'), schema, STATEMENT_DEADLINE_MS, listenerTrouble, replies);
    sweeper = queueSweep(statements, schema, clock, report('removing expired rows'));
    marks = new RefusalMarks(run, () => listener?.warm(), schema, scope, clock, report('marking a refused call'));
    sweeper.start();
    const { Queue: PostgresQueue, Worker: PostgresWorker } = withBackend(createPostgresBackend);
    bullmqPool = direct !== undefined ? bullPool(direct, bullSchema)
      : isPool(given) ? Promise.resolve(given as unknown as PostgresPoolLike) : bullPool(ownPoolConfig(given), bullSchema);
    const connection = await bullmqPool as never;
    if (closed) throw new Error('closed');
    return {
      kind: 'postgres',
      newQueue: () => new PostgresQueue<WebhookJobData, WebhookJobResult>(options.name, { connection }) as unknown as Queue<WebhookJobData, WebhookJobResult>,
      newWorker: (processor, settings) => new PostgresWorker<WebhookJobData, WebhookJobResult>(options.name, processor, {
        connection, ...settings,
      }) as unknown as Worker<WebhookJobData, WebhookJobResult>,
      async admit(request) {
        const maxQueued = request.maxQueued === undefined ? -1 : Math.min(request.maxQueued, Number.MAX_SAFE_INTEGER);
        const found = await run(`SELECT ${schema}.queue_admit($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) AS admission`, [
          bullSchema, scope, options.name, request.jobId, request.workflowId, clock(), maxQueued, request.track,
          request.staleMs, request.fingerprint ?? '', request.storeId, request.claimMs,
        ], 'admitting a call');
        const admission = found.rows[0]?.admission as Admission;
        if (!ADMISSIONS.has(admission)) throw new Error(`PostgreSQL answered the admission with ${String(admission)}`);
        return admission;
      },
      unclaim: (jobId, storeId) => run(`DELETE FROM ${schema}.queue_claims WHERE scope = $1 AND job_id = $2 AND store_id = $3`,
        [scope, jobId, storeId], 'giving up a claim').then(() => undefined, report('giving up a claim')),
      async acquireSlot(workflowId, jobId, limit, leaseMs) {
        const now = clock();
        const found = await run(`SELECT ${schema}.queue_acquire($1, $2, $3, $4, $5, $6) AS taken`,
          [scope, workflowId, jobId, now, now + leaseMs, Math.min(limit, Number.MAX_SAFE_INTEGER)], 'taking a concurrency slot');
        return found.rows[0]?.taken === true;
      },
      releaseSlot: (workflowId, jobId, ended) => run(`WITH running AS (DELETE FROM ${schema}.queue_running WHERE scope = $1 AND workflow_id = $2 AND job_id = $3)
        DELETE FROM ${schema}.queue_unfinished WHERE $4 AND scope = $1 AND workflow_id = $2 AND job_id = $3`,
      [scope, workflowId, jobId, ended], 'freeing a concurrency slot').then(() => undefined),
      markRefused: (storeId, ttlMs) => { (marks as RefusalMarks).mark(storeId, ttlMs); },
      wasRefused: (storeId) => (marks as RefusalMarks).claim(storeId),
      mayHaveStored: mayHaveCommitted,
      replyChannel: (instanceId) => replyChannelOf(scope, instanceId),
      listen: (channel, message, resumed) => (listener as ReplyListener).listen(channel, message, resumed),
      // A reply that cannot be stored for want of a grant would reach its caller only by the job poll, a second later,
      // on every call: the missing grant is told to the host once.
      publish: (channel, message) => publishReply((sql, values) => run(sql, values, 'sending a reply'), schema, channel, message, clock(), replies)
        .catch((error: unknown) => { grantMissing(error); throw error; }),
      binaryHost: { kind: 'postgres', query: (sql, values) => run(sql, values, 'storing a file'), schema, queue: scope },
      // The `replicas` option is refused on PostgreSQL at the factory: synchronous replication is the server's setting.
      confirmReplicas: undefined,
      outage,
      close: closeAll,
    };
  })();
  link.catch(() => void closeAll());
  // An opening failure (the schema's migration included) reads as the queue's, like every statement's.
  // A setting to change (a TypeError: no session for LISTEN, no schema on a host pool's path) is told as it is.
  const opened = link.catch((error: unknown) => { throw error instanceof TypeError ? error : asQueueError(error); });
  return {
    link: opened,
    close: () => {
      closed = true;
      void closeAll();
    },
  };
}

/**
 * BullMQ's tables exist before the first admission reads its job table: migrated here when asked, else checked. A
 * host's pool, which BullMQ uses as it is, must find BullMQ's schema on its search_path (BullMQ's statements name no
 * schema): without it every call would be refused, so the queue refuses to open and says how to make the pool.
 */
async function bullSchemaReady(pool: PostgresPoolLike, bullSchema: string, migrate: boolean, hostPool: boolean): Promise<void> {
  // Its 'error' events are heard from the moment it is lent (connectWithin): the failing statement says the same.
  const client = await connectWithin(pool, STATEMENT_DEADLINE_MS);
  let path: QueryResultLike | undefined;
  try {
    // A migration may wait for another process's: it gets the migrations' longer deadline.
    const work = migrate ? runMigrations(client as never, bullSchema) : assertSchemaCompatibility(client as never, bullSchema);
    await withDeadline(work, MIGRATION_DEADLINE_MS, () => new Error(`BullMQ's schema "${bullSchema}" was not ready within ${MIGRATION_DEADLINE_MS} ms`));
    path = hostPool ? await client.query('SELECT $1 = ANY (current_schemas(false)) AS found', [bullSchema]) : undefined;
    client.release();
  } catch (error) {
    // Destroyed, not handed back: it may be mid-statement, or gone.
    client.release(error instanceof Error ? error : true);
    throw error;
  }
  if (path !== undefined && path.rows[0]?.found !== true) {
    throw new TypeError(`createWebhookQueue/createWebhookWorker: the pg.Pool given as connection does not have BullMQ's schema "${bullSchema}" on its search_path, and BullMQ's statements name no schema. Create the pool with options: '-c search_path=${bullSchema},public' (through PgBouncer, which refuses that start-up parameter, run SET search_path TO ${bullSchema}, public in the pool's 'connect' listener instead), or give a URL or a pool config, for a pool of the queue's own.`);
  }
}
