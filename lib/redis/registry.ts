/**
 * The Redis registry: several instances of a backend share one set of webhooks. Changes go through atomic scripts
 * and a change log; every instance keeps the routes in memory and serves look-ups from there, so Redis is never
 * on the request path. Without Redis, calls keep being served from memory and changes are refused.
 */
import { randomUUID } from 'node:crypto';
import { resolveWorkflowWebhooks } from '../webhooks/registry/resolve-workflow.js';
import { routeKey } from '../webhooks/registry/route-table.js';
import type { RegisteredWebhook, WebhookRegistry } from '../webhooks/registry/contract.js';
import type { WorkflowWebhooks } from '../core/types.js';
import { warnIfNoErrorListener } from './client.js';
import { conflictFrom } from '../webhooks/registry/shared/conflicts.js';
import { registryKeys, type RegistryKeys } from './keys.js';
import { RedisLink, unavailable } from './link.js';
import { rememberMessageId } from './message-ids.js';
import { LogReader, parseEntry, type LogEntry, type LogPosition } from './log-reader.js';
import { resolveRedisOptions, type RedisWebhookRegistryOptions, type ResolvedRedisOptions } from './options.js';
import { ACTIVATE, DEACTIVATE, ENSURE_EPOCH_AND_KEY, type Script } from './scripts.js';
import { loadSnapshot } from './snapshot.js';
import type { SharedTestListens } from '../webhooks/registry/shared/test-listens.js';
import { StoreRegistry, type StoreLoaded } from '../webhooks/registry/shared/store-registry.js';
import { offeredKey, storedKey } from '../webhooks/registry/shared/deployment-key.js';
import { listenChange, redisListenStore } from './listen-store.js';
import { RegistryReplicas } from './registry-replicas.js';
import { RedisWaits } from './waits.js';
import type { RateLimitCharge, RateLimitResult } from '../core/rate-limits.js';
import { RedisRateLimits } from './rate-limits.js';

export class RedisWebhookRegistry extends StoreRegistry implements WebhookRegistry {
  readonly #options: ResolvedRedisOptions;
  readonly #keys: RegistryKeys;
  readonly #link: RedisLink;
  /** @internal */
  protected override readonly tests: SharedTestListens;
  /** @internal */
  protected override readonly waits: RedisWaits;
  #reader: LogReader | undefined;
  #warned = false;
  #epoch = '';
  #resetting: Promise<LogPosition> | undefined;
  readonly #replicas: RegistryReplicas;
  readonly #rateLimits: RedisRateLimits;

  constructor(options: RedisWebhookRegistryOptions) {
    const resolved = resolveRedisOptions(options);
    super({ store: 'Redis', onEvent: resolved.onEvent, staleAfterMs: resolved.staleAfterMs, commandTimeoutMs: resolved.commandTimeoutMs, waitsAfterReady: false });
    this.#options = resolved;
    this.#keys = registryKeys(this.#options.prefix);
    this.#link = new RedisLink(this.#options.client, this.#options.commandTimeoutMs, () => undefined, { topology: this.#options.topology, key: this.#keys.epoch });
    this.#replicas = new RegistryReplicas(this.#options, this.#keys.acks);
    this.#rateLimits = new RedisRateLimits(this.#options, this.#keys);
    this.waits = new RedisWaits(this.#link, this.#keys, this.#options.maxWaiting, () => this.storeNow(), this.#replicas);
    this.tests = this.listensIn(redisListenStore({
      keys: this.#keys,
      change: (script, keys, args, doing) => this.#change(script, keys, args, doing),
      command: (args, doing) => this.#link.command(args, doing),
    }));
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
    this.applyOwn(plain.workflowId, { workflow: plain, webhooks }, Number(reply[1]));
    await this.#replicas.confirmWorkflow(plain.workflowId, 'activate');
    return [...webhooks];
  }

  async deactivate(workflowId: string): Promise<boolean> {
    const keys = this.#keys;
    const served = this.production.has(workflowId);
    const reply = await this.#change(DEACTIVATE, [keys.workflows, keys.routes, keys.workflowRoutes], [workflowId],
      `deactivating workflow "${workflowId}"`);
    this.applyOwn(workflowId, undefined, Number(reply[1]));
    await this.#replicas.confirmWorkflow(workflowId, 'deactivate');
    return reply[0] === 'OK' || served;
  }

  /** Signed message ids, shared by every instance, so a replay is refused wherever it lands. */
  rememberMessageId(key: string, ttlMs: number): Promise<boolean> {
    return rememberMessageId(this.#link, this.#keys, key, ttlMs);
  }

  /** Rate limit budgets, shared by every instance: one atomic script per call, windows measured by Redis' clock. */
  chargeRateLimits(charges: readonly RateLimitCharge[]): Promise<RateLimitResult> { return this.#rateLimits.charge(charges); }

  /** Calls let through while Redis could not count them, added to their budgets once it can. */
  addRateLimitCalls(charges: readonly RateLimitCharge[], calls: readonly number[]): Promise<void> { return this.#rateLimits.add(charges, calls); }

  /** Adopts the store's epoch and loads every route; the log is followed from there. @internal */
  protected override async connect(): Promise<StoreLoaded> {
    // Once, however many tries loading takes.
    if (!this.#warned) warnIfNoErrorListener(this.#options.client, 'RedisWebhookRegistry', (message) => this.#options.onEvent({ type: 'warning', code: 'missingErrorListener', message }));
    this.#warned = true;
    const digestKey = await this.#ensure('starting the webhook registry');
    const position = await this.#load(false);
    const shortfall = await this.#replicas.shortfall();
    if (shortfall !== undefined) this.#options.onEvent({ type: 'warning', code: 'tooFewReplicas', message: `RedisWebhookRegistry: ${shortfall}` });
    return {
      version: position.version,
      digestKey,
      follow: () => {
        this.#reader = new LogReader(this.#options.client, { topology: this.#options.topology, key: this.#keys.log }, this.#options.commandTimeoutMs, {
          apply: (entry) => this.#apply(entry),
          reload: () => this.#reload(),
          idle: () => this.#checkEpoch(),
          contact: (error) => this.contact.record(error),
        }, position);
        this.#reader.start();
      },
    };
  }

  /** Stops following the log and closes the registry's own connections. @internal */
  protected override async disconnect(): Promise<void> {
    await this.#reader?.stop();
    this.#link.close();
    this.#rateLimits.close();
    this.#replicas.close();
  }

  /** @internal */
  protected override get followedVersion(): number {
    return this.#reader?.position.version ?? 0;
  }

  /** Rebuilds every table from one atomic snapshot; a snapshot of another epoch means the store was reset. */
  async #load(reset: boolean): Promise<LogPosition> {
    const snapshot = await loadSnapshot(this.#link, this.#keys, (error, during) => this.report(error, during));
    if (snapshot.epoch !== this.#epoch) return this.#reset();
    this.clockOffset = snapshot.redisNow - Date.now();
    this.production.replace(snapshot.workflows, snapshot.position.version, reset);
    this.tests.replace(snapshot.listens.filter((record) => record.expiresAt > snapshot.redisNow));
    return snapshot.position;
  }

  async #reload(): Promise<LogPosition> {
    const position = await this.#load(false);
    this.#options.onEvent({ type: 'resynced', reason: 'gap', version: position.version, workflows: this.production.size });
    return position;
  }

  /** Redis came back empty, or another instance found so first: adopt the new epoch and reload, keeping what is served. */
  #reset(): Promise<LogPosition> {
    this.#resetting ??= (async () => {
      this.#options.onEvent({ type: 'storeReset', workflows: this.production.workflows() });
      await this.#ensure('adopting a new store');
      const position = await this.#load(true);
      await this.#replayForKept(position);
      this.#options.onEvent({ type: 'resynced', reason: 'reset', version: position.version, workflows: this.production.size });
      return position;
    })().finally(() => { this.#resetting = undefined; });
    return this.#resetting;
  }

  /** A kept workflow the new store changed before this instance noticed the reset: its log says so, the snapshot cannot. */
  async #replayForKept(position: LogPosition): Promise<void> {
    if (this.production.kept === 0 || position.version === 0) return;
    const reply = await this.#link.command(['XRANGE', this.#keys.log, '-', position.id], 'reading the changes since the reset');
    for (const [id, flat] of (Array.isArray(reply) ? reply : []) as [string, string[]][]) {
      const entry = parseEntry(id, flat);
      if (entry.fields.op === 'activate' || entry.fields.op === 'deactivate') await this.#apply(entry);
    }
  }

  /**
   * Adopts the store's epoch, and resolves the deployment's digest key: both written by the first instance to ask. A
   * store that came back empty is offered the key this instance holds, so the deployment keeps it.
   */
  async #ensure(doing: string): Promise<Buffer> {
    const reply = await this.#link.script(ENSURE_EPOCH_AND_KEY, [this.#keys.epoch, this.#keys.digestKey],
      [randomUUID(), offeredKey(this.digestKey()).toString('base64')], doing) as unknown[];
    this.#epoch = String(reply[0]);
    return storedKey(Buffer.from(String(reply[1] ?? ''), 'base64'), 'Redis', `the key ${this.#keys.digestKey}`);
  }

  async #checkEpoch(): Promise<LogPosition | undefined> {
    const epoch = await this.#link.command(['GET', this.#keys.epoch], 'checking the store');
    return epoch === this.#epoch ? undefined : this.#reset();
  }

  /** Runs a guarded script: retried once after a reset, dropped by Redis if it arrives after our deadline. */
  async #change(script: Script, keys: string[], args: string[], doing: string): Promise<unknown[]> {
    await this.loaded();
    const { epoch, version, log } = this.#keys;
    for (let attempt = 0; ; attempt += 1) {
      const deadline = Date.now() + this.clockOffset + this.#options.commandTimeoutMs;
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

  #apply(entry: LogEntry): Promise<void> {
    const { op, id = '', workflow } = entry.fields;
    return this.applyChange({ version: entry.version, op, subject: id, workflow, listen: () => listenChange(entry) });
  }
}
