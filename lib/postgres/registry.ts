/**
 * The PostgreSQL registry: several instances of a backend share one set of webhooks through the database teams
 * already run. Changes are transactions that append to a change log (LISTEN/NOTIFY for speed, the log's numbers to
 * catch up after a gap); every instance keeps the routes in memory and serves look-ups from there, so PostgreSQL is
 * never on a call's path. Without the database, calls keep being served from memory and changes are refused 503.
 */
import type { WorkflowWebhooks } from '../core/types.js';
import type { RateLimitCharge, RateLimitResult } from '../core/rate-limits.js';
import { resolveWorkflowWebhooks } from '../webhooks/registry/resolve-workflow.js';
import { routeKey } from '../webhooks/registry/route-table.js';
import type { RegisteredWebhook, WebhookRegistry } from '../webhooks/registry/contract.js';
import { conflictFrom } from '../webhooks/registry/shared/conflicts.js';
import { StoreRegistry, type StoreLoaded } from '../webhooks/registry/shared/store-registry.js';
import type { SharedTestListens } from '../webhooks/registry/shared/test-listens.js';
import { ChangeLog, type ChangeEntry } from './change-log.js';
import { addRateLimitCalls, chargeRateLimits, rememberMessageId } from './counters.js';
import { listenChange, postgresListenStore, routeColumns } from './listen-store.js';
import { LogReader } from './log-follower.js';
import { resolvePostgresOptions, type PostgresWebhookRegistryOptions, type ResolvedPostgresOptions } from './options.js';
import { PostgresLink, StorePools, type PostgresPoolLike } from './pool.js';
import { checkSchema, migrateSchema } from './schema.js';
import { DIGEST_KEY_NAME, keptKey } from './deployment-keys.js';
import { offeredKey, storedKey } from '../webhooks/registry/shared/deployment-key.js';
import { checkSession } from './session-check.js';
import { loadSnapshot } from './snapshot.js';
import { registrySweep, type LockedSweep } from './sweeper.js';
import { PostgresWaits } from './waits.js';

const MISSING_ERROR_LISTENER = {
  type: 'warning', code: 'missingErrorListener',
  message: 'PostgresWebhookRegistry: the pg Pool has no \'error\' listener, so node-postgres crashes the process when an idle connection drops (a database restart); add pool.on(\'error\', …).',
} as const;

export class PostgresWebhookRegistry extends StoreRegistry implements WebhookRegistry {
  readonly #options: ResolvedPostgresOptions;
  readonly #link: PostgresLink;
  readonly #log: ChangeLog;
  /** @internal */
  protected override readonly tests: SharedTestListens;
  /** @internal */
  protected override readonly waits: PostgresWaits;
  readonly #sweeper: LockedSweep;
  /** The statements' pool, and the directUrl's for LISTEN and migrations (without it, those use the first too). */
  readonly #pools: StorePools;
  /** Statements that need a session (the migration): on the directUrl's pool when there is one. */
  readonly #sessionLink: PostgresLink;
  #reader: LogReader | undefined;
  #warned = false;

  constructor(options: PostgresWebhookRegistryOptions) {
    const resolved = resolvePostgresOptions(options);
    super({ store: 'PostgreSQL', onEvent: resolved.onEvent, staleAfterMs: resolved.staleAfterMs, commandTimeoutMs: resolved.commandTimeoutMs, waitsAfterReady: true });
    this.#options = resolved;
    const { schema } = this.#options;
    // One connection LISTENs for good; the others only for the start's check and the migration.
    this.#pools = new StorePools(resolved, 3);
    this.#link = new PostgresLink(() => this.#pools.main(), this.#options.commandTimeoutMs, schema);
    this.#sessionLink = this.#pools.direct ? new PostgresLink(() => this.#pools.session(), this.#options.commandTimeoutMs, schema) : this.#link;
    this.#log = new ChangeLog(this.#link, schema, this.#options.changeLogLength);
    this.waits = new PostgresWaits(this.#link, schema, this.#options.maxWaiting, () => this.storeNow());
    this.#sweeper = registrySweep(this.#link, schema, (error) => this.report(error, 'removing expired rows'));
    this.tests = this.listensIn(postgresListenStore(this.#link, this.#log, schema, () => this.loaded()));
  }

  async activate(workflow: WorkflowWebhooks): Promise<RegisteredWebhook[]> {
    resolveWorkflowWebhooks(workflow);
    // What other instances will resolve: the workflow as JSON carries it.
    const json = JSON.stringify(workflow);
    const plain = JSON.parse(json) as WorkflowWebhooks;
    const webhooks = resolveWorkflowWebhooks(plain);
    const [methods, paths] = routeColumns([...new Set(webhooks.map(routeKey))]);
    await this.loaded();
    const s = this.#options.schema;
    const { result: holder, version } = await this.#log.change(async (sql) => {
      await sql(`INSERT INTO ${s}.workflows (workflow_id, workflow) VALUES ($1, $2) ON CONFLICT (workflow_id) DO UPDATE SET workflow = EXCLUDED.workflow`, [plain.workflowId, json]);
      await sql(`DELETE FROM ${s}.routes WHERE workflow_id = $1`, [plain.workflowId]);
      // The primary key on (method, path) decides: a route another workflow holds is not inserted, and all is rolled back.
      // In one order, so two activations sharing addresses wait for each other instead of deadlocking.
      const taken = await sql(`INSERT INTO ${s}.routes (method, path, workflow_id) SELECT m, p, $3 FROM unnest($1::text[], $2::text[]) AS t(m, p)
        ORDER BY m, p ON CONFLICT DO NOTHING RETURNING method`, [methods, paths, plain.workflowId]);
      if (taken.rows.length === methods.length) return { result: undefined, log: { op: 'activate', subject: plain.workflowId, data: json } };
      const held = await sql(`SELECT r.method, r.path, r.workflow_id, w.workflow FROM ${s}.routes r JOIN ${s}.workflows w USING (workflow_id)
        WHERE r.workflow_id <> $3 AND (r.method, r.path) IN (SELECT * FROM unnest($1::text[], $2::text[])) LIMIT 1`, [methods, paths, plain.workflowId]);
      return { result: held.rows[0] ?? {} };
    }, `activating workflow "${plain.workflowId}"`);
    if (holder !== undefined) {
      throw conflictFrom(`${String(holder.method)} ${String(holder.path)}`, String(holder.workflow_id), String(holder.workflow ?? '{}'), 'production');
    }
    this.applyOwn(plain.workflowId, { workflow: plain, webhooks }, version);
    return [...webhooks];
  }

  async deactivate(workflowId: string): Promise<boolean> {
    await this.loaded();
    const served = this.production.has(workflowId);
    // Logged even when the database had nothing, so an instance serving it from an older table drops it.
    const { result: stored, version } = await this.#log.change(async (sql) => {
      const gone = await sql(`DELETE FROM ${this.#options.schema}.workflows WHERE workflow_id = $1 RETURNING workflow_id`, [workflowId]);
      return { result: gone.rows.length > 0, log: { op: 'deactivate', subject: workflowId } };
    }, `deactivating workflow "${workflowId}"`);
    this.applyOwn(workflowId, undefined, version);
    return stored || served;
  }

  /** Signed message ids, shared by every instance, so a replay is refused wherever it lands. */
  async rememberMessageId(key: string, ttlMs: number): Promise<boolean> {
    await this.loaded();
    return rememberMessageId(this.#link, this.#options.schema, key, ttlMs);
  }

  /** Rate limit budgets, shared by every instance: one statement per call, windows measured by the database's clock. */
  async chargeRateLimits(charges: readonly RateLimitCharge[]): Promise<RateLimitResult> {
    await this.loaded();
    return chargeRateLimits(this.#link, this.#options.schema, charges);
  }

  /** Calls let through while the database could not count them, added to their budgets once it can. */
  async addRateLimitCalls(charges: readonly RateLimitCharge[], calls: readonly number[]): Promise<void> {
    await this.loaded();
    await addRateLimitCalls(this.#link, this.#options.schema, charges, calls);
  }

  /** Migrates (or checks) the schema and loads every route; the log is followed from there. @internal */
  protected override async connect(): Promise<StoreLoaded> {
    const pool = await this.#pools.main();
    // Once, however many tries loading takes.
    if (this.#options.pool !== undefined && pool.listenerCount?.('error') === 0 && !this.#warned) this.#options.onEvent(MISSING_ERROR_LISTENER);
    this.#warned = true;
    await this.#checkSession(pool);
    if (this.#options.migrate) await migrateSchema(this.#sessionLink, this.#options.schema);
    else await checkSchema(this.#link, this.#options.schema);
    const { schema } = this.#options;
    const digestKey = storedKey(await keptKey(this.#link, schema, DIGEST_KEY_NAME, offeredKey(this.digestKey())), 'PostgreSQL',
      `the row '${DIGEST_KEY_NAME}' of ${schema}.deployment_keys`);
    const version = await this.#load();
    return {
      version,
      digestKey,
      follow: () => {
        this.#reader = new LogReader(() => this.#pools.session(), this.#log, this.#options.schema, this.#options.commandTimeoutMs, {
          apply: (entry) => this.#apply(entry),
          reload: () => this.#reload(),
          contact: (error) => this.contact.record(error),
        }, version);
        this.#reader.start();
        this.#sweeper.start();
      },
    };
  }

  /** Stops following the log and removing expired rows, and ends the registry's own pool (never the host's). @internal */
  protected override async disconnect(): Promise<void> {
    this.#sweeper.stop();
    await this.#reader?.stop();
    this.#link.close();
    this.#sessionLink.close();
    await this.#pools.end();
  }

  /** @internal */
  protected override get followedVersion(): number {
    return this.#reader?.version ?? 0;
  }

  /**
   * Refuses at start a LISTEN that would hear nothing (a pooler in transaction mode): its notification is sent through
   * the pool that sends the changes' notifications, so a directUrl that reaches another database is refused too.
   */
  async #checkSession(pool: PostgresPoolLike): Promise<void> {
    await checkSession({ listen: await this.#pools.session(), notify: pool, timeoutMs: this.#options.commandTimeoutMs, who: 'PostgresWebhookRegistry', direct: this.#pools.direct });
  }

  /** Rebuilds every table from one consistent snapshot; resolves the log version it stands at. */
  async #load(): Promise<number> {
    const snapshot = await loadSnapshot(this.#link, this.#options.schema, (error, during) => this.report(error, during));
    this.clockOffset = snapshot.now - Date.now();
    this.production.replace(snapshot.workflows, snapshot.version, false);
    this.tests.replace(snapshot.listens);
    return snapshot.version;
  }

  async #reload(): Promise<number> {
    const version = await this.#load();
    this.#options.onEvent({ type: 'resynced', reason: 'gap', version, workflows: this.production.size });
    return version;
  }

  #apply(entry: ChangeEntry): Promise<void> {
    return this.applyChange({ version: entry.version, op: entry.op, subject: entry.subject, workflow: entry.data ?? '', listen: () => listenChange(entry) });
  }
}
