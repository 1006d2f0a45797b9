/**
 * The PostgreSQL registry: several instances of a backend share one set of webhooks through the database teams
 * already run. Changes are transactions that append to a change log (LISTEN/NOTIFY for speed, the log's numbers to
 * catch up after a gap); every instance keeps the routes in memory and serves look-ups from there, so PostgreSQL is
 * never on a call's path. Without the database, calls keep being served from memory and changes are refused 503.
 */
import { randomUUID } from 'node:crypto';
import { WebhookError } from '../core/errors.js';
import type { WebhookKind, WorkflowWebhooks } from '../core/types.js';
import type { RateLimitCharge, RateLimitResult } from '../core/rate-limits.js';
import type { WaitClaim, WaitEntry, WaitExpiredListener, WaitStatus } from '../core/waits.js';
import { resolveWorkflowWebhooks } from '../webhooks/registry/resolve-workflow.js';
import { routeKey } from '../webhooks/registry/route-table.js';
import type {
  ListedTestWebhook, RegisteredWebhook, TestCallClaim, TestListenHandle, TestListenOptions, WebhookLookup, WebhookRegistry,
} from '../webhooks/registry/contract.js';
import { conflictFrom } from '../webhooks/registry/shared/conflicts.js';
import { checkServing, StoreContact } from '../webhooks/registry/shared/contact.js';
import { ProductionMirror } from '../webhooks/registry/shared/production-mirror.js';
import { SharedTestListens } from '../webhooks/registry/shared/test-listens.js';
import { ChangeLog, type ChangeEntry } from './change-log.js';
import { chargeRateLimits, rememberMessageId } from './counters.js';
import { listenChange, postgresListenStore, routeColumns } from './listen-store.js';
import { LogReader } from './log-follower.js';
import { resolvePostgresOptions, type PostgresRegistryHealth, type PostgresWebhookRegistryOptions, type ResolvedPostgresOptions } from './options.js';
import { openPool, PostgresLink, type PostgresPoolLike } from './pool.js';
import { checkSchema, migrateSchema } from './schema.js';
import { loadSnapshot } from './snapshot.js';
import { Sweeper } from './sweeper.js';
import { PostgresWaits } from './waits.js';

const MISSING_ERROR_LISTENER = {
  type: 'warning', code: 'missingErrorListener',
  message: 'PostgresWebhookRegistry: the pg Pool has no \'error\' listener, so node-postgres crashes the process when an idle connection drops (a database restart); add pool.on(\'error\', …).',
} as const;

function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}

export class PostgresWebhookRegistry implements WebhookRegistry {
  readonly #options: ResolvedPostgresOptions;
  readonly #link: PostgresLink;
  readonly #log: ChangeLog;
  readonly #production = new ProductionMirror();
  readonly #tests: SharedTestListens;
  readonly #contact: StoreContact;
  readonly #waits: PostgresWaits;
  readonly #sweeper: Sweeper;
  #pool: Promise<PostgresPoolLike> | undefined;
  #reader: LogReader | undefined;
  /** PostgreSQL's clock minus this machine's, measured at each load. */
  #clockOffset = 0;
  #state: 'new' | 'starting' | 'ready' | 'closed' = 'new';
  #starting: Promise<void> | undefined;

  constructor(options: PostgresWebhookRegistryOptions) {
    this.#options = resolvePostgresOptions(options);
    const { schema } = this.#options;
    this.#link = new PostgresLink(() => this.#openPool(), this.#options.commandTimeoutMs);
    this.#log = new ChangeLog(this.#link, schema, this.#options.changeLogLength);
    this.#contact = new StoreContact('PostgreSQL', this.#options.onEvent);
    this.#waits = new PostgresWaits(this.#link, schema, this.#options.maxWaiting, () => Date.now() + this.#clockOffset);
    this.#sweeper = new Sweeper(this.#link, schema, (error) => this.#report(error, 'removing expired rows'));
    this.#tests = new SharedTestListens({
      store: postgresListenStore(this.#link, this.#log, schema, () => this.ready()),
      instanceId: randomUUID(),
      storeNow: () => Date.now() + this.#clockOffset,
      report: (error, during) => this.#report(error, during),
    });
  }

  /** Migrates (or checks) the schema, loads every route and follows the change log; rejects REGISTRY_UNAVAILABLE without the database (call again to retry). */
  ready(): Promise<void> {
    if (this.#state === 'closed') return Promise.reject(new WebhookError('REGISTRY_UNAVAILABLE', 'The PostgreSQL webhook registry was closed.'));
    this.#starting ??= this.#start().catch((error: unknown) => {
      this.#starting = undefined;
      this.#state = 'new';
      throw error;
    });
    return this.#starting;
  }

  async activate(workflow: WorkflowWebhooks): Promise<RegisteredWebhook[]> {
    resolveWorkflowWebhooks(workflow);
    // What other instances will resolve: the workflow as JSON carries it.
    const json = JSON.stringify(workflow);
    const plain = JSON.parse(json) as WorkflowWebhooks;
    const webhooks = resolveWorkflowWebhooks(plain);
    const [methods, paths] = routeColumns([...new Set(webhooks.map(routeKey))]);
    await this.ready();
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
    this.#applyOwn(plain.workflowId, { workflow: plain, webhooks }, version);
    return [...webhooks];
  }

  async deactivate(workflowId: string): Promise<boolean> {
    await this.ready();
    const served = this.#production.has(workflowId);
    // Logged even when the database had nothing, so an instance serving it from an older table drops it.
    const { result: stored, version } = await this.#log.change(async (sql) => {
      const gone = await sql(`DELETE FROM ${this.#options.schema}.workflows WHERE workflow_id = $1 RETURNING workflow_id`, [workflowId]);
      return { result: gone.rows.length > 0, log: { op: 'deactivate', subject: workflowId } };
    }, `deactivating workflow "${workflowId}"`);
    this.#applyOwn(workflowId, undefined, version);
    return stored || served;
  }

  lookup(kind: WebhookKind, method: string, path: string): Promise<WebhookLookup> {
    return new Promise((resolve) => { resolve(this.lookupNow(kind, method, path)); });
  }

  /** From memory: no statement on a call's path. */
  lookupNow(kind: WebhookKind, method: string, path: string): WebhookLookup {
    checkServing(this.#state === 'ready', this.#contact, this.#options.staleAfterMs);
    return kind === 'production' ? this.#production.routes.lookup(method, path) : this.#tests.lookup(method, path);
  }

  async listenForTest(workflow: WorkflowWebhooks, options?: TestListenOptions): Promise<TestListenHandle> {
    await this.ready();
    return this.#tests.listen(workflow, options);
  }

  async claimTestCall(webhook: RegisteredWebhook): Promise<TestCallClaim | undefined> {
    await this.ready();
    return this.#tests.claim(webhook);
  }

  /** Every instance's listening test webhooks, from this instance's mirror of the listens. */
  listTestWebhooks(): Promise<ListedTestWebhook[]> { return this.ready().then(() => this.#tests.list()); }

  /** Signed message ids, shared by every instance, so a replay is refused wherever it lands. */
  async rememberMessageId(key: string, ttlMs: number): Promise<boolean> {
    await this.ready();
    return rememberMessageId(this.#link, this.#options.schema, key, ttlMs);
  }

  /** Rate limit budgets, shared by every instance: one statement per call, windows measured by the database's clock. */
  async chargeRateLimits(charges: readonly RateLimitCharge[]): Promise<RateLimitResult> {
    await this.ready();
    return chargeRateLimits(this.#link, this.#options.schema, charges);
  }

  /** The production webhooks this instance serves (of one workflow, given its id), from its mirror. */
  async list(workflowId?: string): Promise<RegisteredWebhook[]> {
    await this.ready();
    return this.#production.list(workflowId);
  }

  /** Waiting webhooks' entries, shared by every instance: any of them resumes a suspended run, and one call only. */
  async putWait(entry: WaitEntry, expect?: WaitStatus): Promise<boolean> {
    await this.ready();
    return this.#waits.put(entry, expect);
  }

  async getWait(waitId: string): Promise<WaitEntry | undefined> {
    await this.ready();
    return this.#waits.get(waitId);
  }

  async claimWait(waitId: string, resumedAt: number): Promise<WaitClaim> {
    await this.ready();
    return this.#waits.claim(waitId, resumedAt);
  }

  /** The runs waiting for a call on any instance, soonest expiry first. */
  async listWaits(options?: { limit?: number }): Promise<WaitEntry[]> {
    await this.ready();
    return this.#waits.listWaiting(options);
  }

  onWaitExpired(listener: WaitExpiredListener): () => void {
    return this.#waits.onExpired(listener, (error) => this.#report(error, 'removing expired waits'));
  }

  health(): PostgresRegistryHealth {
    const sinceContactMs = this.#contact.sinceMs;
    const status = this.#state === 'ready' ? (this.#contact.connected ? 'ready' : 'degraded') : this.#state === 'closed' ? 'closed' : 'starting';
    return {
      status,
      sinceContactMs,
      serving: this.#state === 'ready' && (this.#contact.connected || sinceContactMs <= this.#options.staleAfterMs),
      version: this.#reader?.version ?? 0,
      workflows: this.#production.size,
      testListens: this.#tests.size,
    };
  }

  /** Stops following the log and gives back the registry's connections (ends its own pool); this instance's test listens are cancelled. */
  async close(): Promise<void> {
    if (this.#state === 'closed') return;
    await this.#starting?.catch(() => undefined);
    await this.#tests.close();
    this.#waits.close();
    this.#sweeper.stop();
    this.#state = 'closed';
    await this.#reader?.stop();
    this.#link.close();
    if (this.#options.pool === undefined && this.#pool !== undefined) await (await this.#pool).end();
  }

  #report(error: unknown, during: string): void {
    this.#options.onEvent({ type: 'error', error: asError(error), during });
  }

  #openPool(): Promise<PostgresPoolLike> {
    const { pool, connectionString } = this.#options;
    this.#pool ??= pool !== undefined ? Promise.resolve(pool) : openPool(connectionString as string);
    return this.#pool;
  }

  async #start(): Promise<void> {
    this.#state = 'starting';
    const pool = await this.#openPool();
    if (this.#options.pool !== undefined && pool.listenerCount?.('error') === 0) this.#options.onEvent(MISSING_ERROR_LISTENER);
    if (this.#options.migrate) await migrateSchema(this.#link, this.#options.schema);
    else await checkSchema(this.#link, this.#options.schema);
    const version = await this.#load();
    // close() may have come while loading.
    if ((this.#state as string) === 'closed') return;
    this.#reader = new LogReader(() => this.#openPool(), this.#log, this.#options.schema, this.#options.commandTimeoutMs, {
      apply: (entry) => this.#apply(entry),
      reload: () => this.#reload(),
      contact: (error) => this.#contact.record(error),
    }, version);
    this.#state = 'ready';
    this.#contact.record();
    this.#reader.start();
    this.#waits.start();
    this.#sweeper.start();
    this.#options.onEvent({ type: 'ready', version, workflows: this.#production.size });
  }

  /** Rebuilds every table from one consistent snapshot; resolves the log version it stands at. */
  async #load(): Promise<number> {
    const snapshot = await loadSnapshot(this.#link, this.#options.schema, (error, during) => this.#report(error, during));
    this.#clockOffset = snapshot.now - Date.now();
    this.#production.replace(snapshot.workflows, snapshot.version, false);
    this.#tests.replace(snapshot.listens);
    return snapshot.version;
  }

  async #reload(): Promise<number> {
    const version = await this.#load();
    this.#options.onEvent({ type: 'resynced', reason: 'gap', version, workflows: this.#production.size });
    return version;
  }

  /** Applies this instance's own change at once, unless the log reader has applied it (or later ones) already. */
  #applyOwn(workflowId: string, change: Parameters<ProductionMirror['apply']>[1], version: number): void {
    if (version > (this.#reader?.version ?? 0)) this.#production.apply(workflowId, change, version);
  }

  async #apply(entry: ChangeEntry): Promise<void> {
    try {
      if (entry.op === 'activate') {
        // This instance's own activations were applied when their transaction answered: no need to resolve them again.
        if (this.#production.isNewer(entry.subject, entry.version)) {
          const workflow = JSON.parse(entry.data ?? '') as WorkflowWebhooks;
          this.#production.apply(entry.subject, { workflow, webhooks: resolveWorkflowWebhooks(workflow) }, entry.version);
        }
      } else if (entry.op === 'deactivate') {
        this.#production.apply(entry.subject, undefined, entry.version);
      } else {
        await this.#tests.apply(listenChange(entry));
      }
    } catch (error) {
      if (error instanceof WebhookError && error.code === 'REGISTRY_UNAVAILABLE') throw error;
      this.#report(error, `applying change ${entry.version} (${entry.op})`);
    }
    this.#production.settle(entry.version);
  }
}
