/**
 * The Redis registry: several instances of a backend share one set of webhooks. Changes go through atomic scripts
 * and a change log; every instance keeps the routes in memory and serves look-ups from there, so Redis is never
 * on the request path. Without Redis, calls keep being served from memory and changes are refused.
 */
import { randomUUID } from 'node:crypto';
import { WebhookError } from '../core/errors.js';
import { resolveWorkflowWebhooks } from '../webhooks/registry/resolve-workflow.js';
import { routeKey } from '../webhooks/registry/route-table.js';
import type {
  ListedTestWebhook, RegisteredWebhook, TestCallClaim, TestListenHandle, TestListenOptions, WebhookLookup, WebhookRegistry,
} from '../webhooks/registry/contract.js';
import type { WebhookKind, WorkflowWebhooks } from '../core/types.js';
import { asError, warnIfNoErrorListener } from './client.js';
import { conflictFrom } from '../webhooks/registry/shared/conflicts.js';
import { registryKeys, type RegistryKeys } from './keys.js';
import { RedisLink, unavailable } from './link.js';
import { rememberMessageId } from './message-ids.js';
import { LogReader, parseEntry, type LogEntry, type LogPosition } from './log-reader.js';
import { resolveRedisOptions, type RedisRegistryHealth, type RedisWebhookRegistryOptions, type ResolvedRedisOptions } from './options.js';
import { ProductionMirror } from '../webhooks/registry/shared/production-mirror.js';
import { ACTIVATE, DEACTIVATE, ENSURE_EPOCH, type Script } from './scripts.js';
import { loadSnapshot } from './snapshot.js';
import { SharedTestListens } from '../webhooks/registry/shared/test-listens.js';
import { checkServing, StoreContact } from '../webhooks/registry/shared/contact.js';
import { listenChange, redisListenStore } from './listen-store.js';
import { RegistryReplicas } from './registry-replicas.js';
import { RedisWaits } from './waits.js';
import type { WaitClaim, WaitEntry, WaitExpiredListener, WaitStatus } from '../core/waits.js';
import type { RateLimitCharge, RateLimitResult } from '../core/rate-limits.js';
import { RedisRateLimits } from './rate-limits.js';

export class RedisWebhookRegistry implements WebhookRegistry {
  readonly #options: ResolvedRedisOptions;
  readonly #keys: RegistryKeys;
  readonly #link: RedisLink;
  readonly #production = new ProductionMirror();
  readonly #tests: SharedTestListens;
  #reader: LogReader | undefined;
  #epoch = '';
  /** Redis' clock minus this machine's, measured at each load. */
  #clockOffset = 0;
  #state: 'new' | 'starting' | 'ready' | 'closed' = 'new';
  #starting: Promise<void> | undefined;
  #resetting: Promise<LogPosition> | undefined;
  readonly #contact: StoreContact;
  readonly #waits: RedisWaits;
  readonly #replicas: RegistryReplicas;
  readonly #rateLimits: RedisRateLimits;

  constructor(options: RedisWebhookRegistryOptions) {
    this.#options = resolveRedisOptions(options);
    this.#keys = registryKeys(this.#options.prefix);
    this.#link = new RedisLink(this.#options.client, this.#options.commandTimeoutMs, () => undefined, { topology: this.#options.topology, key: this.#keys.epoch });
    this.#contact = new StoreContact('Redis', this.#options.onEvent);
    this.#replicas = new RegistryReplicas(this.#options, this.#keys.acks);
    this.#rateLimits = new RedisRateLimits(this.#options, this.#keys);
    this.#waits = new RedisWaits(this.#link, this.#keys, this.#options.maxWaiting, () => Date.now() + this.#clockOffset, this.#replicas);
    this.#tests = new SharedTestListens({
      store: redisListenStore({
        keys: this.#keys,
        change: (script, keys, args, doing) => this.#change(script, keys, args, doing),
        command: (args, doing) => this.#link.command(args, doing),
      }),
      instanceId: randomUUID(),
      storeNow: () => Date.now() + this.#clockOffset,
      report: (error, during) => this.#options.onEvent({ type: 'error', error: asError(error), during }),
    });
  }

  /** Loads every route and follows the change log; rejects REGISTRY_UNAVAILABLE without Redis (call again to retry). Every method waits for it. */
  ready(): Promise<void> {
    if (this.#state === 'closed') return Promise.reject(new WebhookError('REGISTRY_UNAVAILABLE', 'The Redis webhook registry was closed.'));
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
    const plain = JSON.parse(JSON.stringify(workflow)) as WorkflowWebhooks;
    const webhooks = resolveWorkflowWebhooks(plain);
    const keys = this.#keys;
    const reply = await this.#change(ACTIVATE, [keys.workflows, keys.routes, keys.workflowRoutes],
      [plain.workflowId, JSON.stringify(plain), ...new Set(webhooks.map(routeKey))], `activating workflow "${plain.workflowId}"`);
    if (reply[0] === 'CONFLICT') throw conflictFrom(String(reply[1]), String(reply[2]), String(reply[3] || '{}'), 'production');
    this.#applyOwn(plain.workflowId, { workflow: plain, webhooks }, Number(reply[1]));
    await this.#replicas.confirmWorkflow(plain.workflowId, 'activate');
    return [...webhooks];
  }

  async deactivate(workflowId: string): Promise<boolean> {
    const keys = this.#keys;
    const served = this.#production.has(workflowId);
    const reply = await this.#change(DEACTIVATE, [keys.workflows, keys.routes, keys.workflowRoutes], [workflowId],
      `deactivating workflow "${workflowId}"`);
    this.#applyOwn(workflowId, undefined, Number(reply[1]));
    await this.#replicas.confirmWorkflow(workflowId, 'deactivate');
    return reply[0] === 'OK' || served;
  }

  lookup(kind: WebhookKind, method: string, path: string): Promise<WebhookLookup> {
    return new Promise((resolve) => { resolve(this.lookupNow(kind, method, path)); });
  }

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
  rememberMessageId(key: string, ttlMs: number): Promise<boolean> {
    return rememberMessageId(this.#link, this.#keys, key, ttlMs);
  }

  /** Rate limit budgets, shared by every instance: one atomic script per call, windows measured by Redis' clock. */
  chargeRateLimits(charges: readonly RateLimitCharge[]): Promise<RateLimitResult> { return this.#rateLimits.charge(charges); }

  /** The production webhooks this instance serves (of one workflow, given its id), from its mirror: another's changes within milliseconds. */
  async list(workflowId?: string): Promise<RegisteredWebhook[]> {
    await this.ready();
    return this.#production.list(workflowId);
  }

  /** Waiting webhooks' entries, shared by every instance: any of them resumes a suspended run, and one call only. */
  putWait(entry: WaitEntry, expect?: WaitStatus): Promise<boolean> {
    return this.#waits.put(entry, expect);
  }

  getWait(waitId: string): Promise<WaitEntry | undefined> { return this.#waits.get(waitId); }

  claimWait(waitId: string, resumedAt: number): Promise<WaitClaim> { return this.#waits.claim(waitId, resumedAt); }

  /** The runs waiting for a call on any instance, soonest expiry first. */
  listWaits(options?: { limit?: number }): Promise<WaitEntry[]> { return this.#waits.listWaiting(options); }

  onWaitExpired(listener: WaitExpiredListener): () => void {
    return this.#waits.onExpired(listener, (error) => this.#options.onEvent({ type: 'error', error: asError(error), during: 'removing expired waits' }));
  }

  health(): RedisRegistryHealth {
    const sinceContactMs = this.#contact.sinceMs;
    const status = this.#state === 'ready' ? (this.#contact.connected ? 'ready' : 'degraded') : this.#state === 'closed' ? 'closed' : 'starting';
    return {
      status,
      sinceContactMs,
      serving: this.#state === 'ready' && (this.#contact.connected || sinceContactMs <= this.#options.staleAfterMs),
      version: this.#reader?.position.version ?? 0,
      workflows: this.#production.size,
      testListens: this.#tests.size,
    };
  }

  /** Stops following the log and closes the registry's own connections; this instance's test listens are cancelled. */
  async close(): Promise<void> {
    if (this.#state === 'closed') return;
    await this.#starting?.catch(() => undefined);
    await this.#tests.close();
    this.#waits.close();
    this.#state = 'closed';
    await this.#reader?.stop();
    this.#link.close();
    this.#rateLimits.close();
    this.#replicas.close();
  }

  async #start(): Promise<void> {
    this.#state = 'starting';
    warnIfNoErrorListener(this.#options.client, 'RedisWebhookRegistry', (message) => this.#options.onEvent({ type: 'warning', code: 'missingErrorListener', message }));
    this.#epoch = String(await this.#link.script(ENSURE_EPOCH, [this.#keys.epoch], [randomUUID()], 'starting the webhook registry'));
    const position = await this.#load(false);
    const shortfall = await this.#replicas.shortfall();
    if (shortfall !== undefined) this.#options.onEvent({ type: 'warning', code: 'tooFewReplicas', message: `RedisWebhookRegistry: ${shortfall}` });
    // close() may have come while loading.
    if ((this.#state as string) === 'closed') return;
    this.#reader = new LogReader(this.#options.client, { topology: this.#options.topology, key: this.#keys.log }, this.#options.commandTimeoutMs, {
      apply: (entry) => this.#apply(entry),
      reload: () => this.#reload(),
      idle: () => this.#checkEpoch(),
      contact: (error) => this.#contact.record(error),
    }, position);
    this.#state = 'ready';
    this.#contact.record();
    this.#reader.start();
    this.#waits.start();
    this.#options.onEvent({ type: 'ready', version: position.version, workflows: this.#production.size });
  }

  /** Rebuilds every table from one atomic snapshot; a snapshot of another epoch means the store was reset. */
  async #load(reset: boolean): Promise<LogPosition> {
    const snapshot = await loadSnapshot(this.#link, this.#keys, (error, during) => this.#options.onEvent({ type: 'error', error, during }));
    if (snapshot.epoch !== this.#epoch) return this.#reset();
    this.#clockOffset = snapshot.redisNow - Date.now();
    this.#production.replace(snapshot.workflows, snapshot.position.version, reset);
    this.#tests.replace(snapshot.listens.filter((record) => record.expiresAt > snapshot.redisNow));
    return snapshot.position;
  }

  async #reload(): Promise<LogPosition> {
    const position = await this.#load(false);
    this.#options.onEvent({ type: 'resynced', reason: 'gap', version: position.version, workflows: this.#production.size });
    return position;
  }

  /** Redis came back empty, or another instance found so first: adopt the new epoch and reload, keeping what is served. */
  #reset(): Promise<LogPosition> {
    this.#resetting ??= (async () => {
      this.#options.onEvent({ type: 'storeReset', workflows: this.#production.workflows() });
      this.#epoch = String(await this.#link.script(ENSURE_EPOCH, [this.#keys.epoch], [randomUUID()], 'adopting a new store'));
      const position = await this.#load(true);
      await this.#replayForKept(position);
      this.#options.onEvent({ type: 'resynced', reason: 'reset', version: position.version, workflows: this.#production.size });
      return position;
    })().finally(() => { this.#resetting = undefined; });
    return this.#resetting;
  }

  /** A kept workflow the new store changed before this instance noticed the reset: its log says so, the snapshot cannot. */
  async #replayForKept(position: LogPosition): Promise<void> {
    if (this.#production.kept === 0 || position.version === 0) return;
    const reply = await this.#link.command(['XRANGE', this.#keys.log, '-', position.id], 'reading the changes since the reset');
    for (const [id, flat] of (Array.isArray(reply) ? reply : []) as [string, string[]][]) {
      const entry = parseEntry(id, flat);
      if (entry.fields.op === 'activate' || entry.fields.op === 'deactivate') await this.#apply(entry);
    }
  }

  async #checkEpoch(): Promise<LogPosition | undefined> {
    const epoch = await this.#link.command(['GET', this.#keys.epoch], 'checking the store');
    return epoch === this.#epoch ? undefined : this.#reset();
  }

  /** Runs a guarded script: retried once after a reset, dropped by Redis if it arrives after our deadline. */
  async #change(script: Script, keys: string[], args: string[], doing: string): Promise<unknown[]> {
    await this.ready();
    const { epoch, version, log } = this.#keys;
    for (let attempt = 0; ; attempt += 1) {
      const deadline = Date.now() + this.#clockOffset + this.#options.commandTimeoutMs;
      const reply = await this.#link.script(script, [epoch, version, log, ...keys],
        [this.#epoch, String(Math.round(deadline)), String(this.#options.changeLogLength), ...args], doing) as unknown[];
      if (reply[0] === 'EPOCH' && attempt === 0) {
        await this.#reset();
        continue;
      }
      if (reply[0] === 'EPOCH' || reply[0] === 'LATE') {
        throw unavailable(new Error(reply[0] === 'LATE' ? 'the change reached Redis after its deadline and was dropped' : 'the store changed meanwhile'), doing);
      }
      return reply;
    }
  }

  /** Applies this instance's own change at once, unless the log reader has applied it (or later ones) already. */
  #applyOwn(workflowId: string, change: Parameters<ProductionMirror['apply']>[1], version: number): void {
    if (version > (this.#reader?.position.version ?? 0)) this.#production.apply(workflowId, change, version);
  }

  async #apply(entry: LogEntry): Promise<void> {
    const { op, id = '' } = entry.fields;
    try {
      if (op === 'activate') {
        // This instance's own activations were applied when their script answered: no need to resolve them again.
        if (this.#production.isNewer(id, entry.version)) {
          const workflow = JSON.parse(entry.fields.workflow as string) as WorkflowWebhooks;
          this.#production.apply(id, { workflow, webhooks: resolveWorkflowWebhooks(workflow) }, entry.version);
        }
      } else if (op === 'deactivate') {
        this.#production.apply(id, undefined, entry.version);
      } else {
        await this.#tests.apply(listenChange(entry));
      }
    } catch (error) {
      if (error instanceof WebhookError && error.code === 'REGISTRY_UNAVAILABLE') throw error;
      this.#options.onEvent({ type: 'error', error: asError(error), during: `applying change ${entry.version} (${String(op)})` });
    }
    this.#production.settle(entry.version);
  }
}
