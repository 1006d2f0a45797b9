/**
 * What a registry over a shared store (Redis, PostgreSQL) does the same way whatever the store: starting once and
 * answering calls from its in-memory mirrors (routes, test listens), handing waits to the store's waits, its health,
 * closing, and applying the change log's entries. The store's registry extends it with only what talks to its
 * database: how it connects and loads, how a change is written, and how its log is followed.
 */
import { randomUUID } from 'node:crypto';
import { WebhookError } from '../../../core/errors.js';
import { checkReadyTimeout, StartRetries } from '../../../core/start-retries.js';
import type { WebhookKind, WorkflowWebhooks } from '../../../core/types.js';
import type { WaitClaim, WaitEntry, WaitExpiredListener, WaitStatus } from '../../../core/waits.js';
import type { ListedTestWebhook, RegisteredWebhook, TestCallClaim, TestListenHandle, TestListenOptions, WebhookLookup } from '../contract.js';
import { resolveWorkflowWebhooks } from '../resolve-workflow.js';
import { checkServing, isStoreBusy, isStoreOutage, notLoaded, StoreContact } from './contact.js';
import type { SharedStoreEvent, SharedStoreHealth } from './events.js';
import { ProductionMirror } from './production-mirror.js';
import { SharedTestListens, type ListenChange, type ListenStore } from './test-listens.js';
import type { ExpiringWaits } from './wait-expiry.js';

/** What the store's registry tells its base, from its resolved options. */
export interface StoreRegistrySettings {
  /** The store's name in messages: `Redis`, `PostgreSQL`. */
  store: string;
  onEvent: (event: SharedStoreEvent) => void;
  staleAfterMs: number;
  /** How long a change, or any other use of the store, waits for the registry to load before it is refused. */
  commandTimeoutMs: number;
  /** Whether the waits' statements need `ready()` first (the tables they use must exist). */
  waitsAfterReady: boolean;
}

/** Waiting webhooks' entries in the store, shared by every instance. */
export interface StoreWaits extends Pick<ExpiringWaits, 'onExpired' | 'start' | 'close'> {
  put(entry: WaitEntry, expect?: WaitStatus): Promise<boolean>;
  get(waitId: string): Promise<WaitEntry | undefined>;
  claim(waitId: string, resumedAt: number): Promise<WaitClaim>;
  listWaiting(options: { limit?: number } | undefined): Promise<WaitEntry[]>;
}

/** What `ready()` may be told. */
export interface RegistryReadyOptions {
  /**
   * Longest wait, in ms, for the registry to load: past it `ready()` rejects `REGISTRY_UNAVAILABLE` naming the last
   * cause, while the registry keeps trying in the background. Default: no deadline, it waits until the store answers.
   */
  timeoutMs?: number;
}

/**
 * The store connected and loaded: the log version it stands at, how to start following the log from there, and the
 * deployment's digest key the store keeps (deployment-key.ts).
 */
export interface StoreLoaded {
  version: number;
  follow: () => void;
  digestKey: Buffer;
}

/** One entry of the store's change log, as the base applies it. */
export interface LoggedChange {
  version: number;
  op: string | undefined;
  /** The workflow's id (activate, deactivate). */
  subject: string;
  /** The activated workflow as JSON. */
  workflow: unknown;
  /** A test listen's change, read from the entry. */
  listen: () => ListenChange;
}

export abstract class StoreRegistry {
  /** @internal */
  protected readonly production = new ProductionMirror();
  /** @internal */
  protected readonly contact: StoreContact;
  /** @internal */
  protected abstract readonly tests: SharedTestListens;
  /** @internal */
  protected abstract readonly waits: StoreWaits;
  /** The store's clock minus this machine's, measured at each load. @internal */
  protected clockOffset = 0;
  readonly #settings: StoreRegistrySettings;
  #state: 'new' | 'starting' | 'ready' | 'closed' = 'new';
  readonly #start: StartRetries<void>;
  #loading: Promise<void> | undefined;
  #digestKey: Buffer | undefined;

  constructor(settings: StoreRegistrySettings) {
    this.#settings = settings;
    this.contact = new StoreContact(settings.store, settings.onEvent);
    this.#start = new StartRetries({
      attempt: () => (this.#loading = this.#load()),
      // Only the store being away or busy is waited out; a wrong schema version or a missing privilege is told at once.
      retryable: (error) => (isStoreOutage(error) || isStoreBusy(error)) && this.#state !== 'closed',
      onUnreachable: (error) => { settings.onEvent({ type: 'unreachable', error }); },
    });
  }

  /**
   * Prepares the store, loads every route and follows the change log. While the store is unreachable, restarting or
   * refusing connections, it keeps trying (a pause of at most a second between tries, the first failure told once
   * as event `unreachable`) and resolves once loaded; calls are answered 503 `REGISTRY_UNAVAILABLE` until then.
   * With `timeoutMs`, rejects `REGISTRY_UNAVAILABLE` past it, naming the last cause, and the tries go on: calling
   * `ready()` again waits again. A failure that waiting cannot mend (a schema of another version with
   * `migrate: false`, a missing privilege) rejects at once; calling again tries again.
   */
  ready(options?: RegistryReadyOptions): Promise<void> {
    const timeoutMs = checkReadyTimeout(options, 'registry');
    if (this.#state === 'closed') return Promise.reject(this.#closedError());
    return this.#start.wait(timeoutMs, (cause) => notLoaded(this.#settings.store, cause, timeoutMs));
  }

  lookup(kind: WebhookKind, method: string, path: string): Promise<WebhookLookup> {
    return new Promise((resolve) => { resolve(this.lookupNow(kind, method, path)); });
  }

  /** From memory: the store is never asked on a call's path. */
  lookupNow(kind: WebhookKind, method: string, path: string): WebhookLookup {
    // A host that never awaited ready() is served all the same once the store answers.
    if (this.#state === 'new') this.#start.begin();
    checkServing(this.#state === 'ready', this.contact, this.#settings.staleAfterMs);
    return kind === 'production' ? this.production.routes.lookup(method, path) : this.tests.lookup(method, path);
  }

  async listenForTest(workflow: WorkflowWebhooks, options?: TestListenOptions): Promise<TestListenHandle> {
    await this.loaded();
    return this.tests.listen(workflow, options);
  }

  async claimTestCall(webhook: RegisteredWebhook): Promise<TestCallClaim | undefined> {
    await this.loaded();
    return this.tests.claim(webhook);
  }

  /** Every instance's listening test webhooks, from this instance's mirror of the listens. */
  listTestWebhooks(): Promise<ListedTestWebhook[]> { return this.loaded().then(() => this.tests.list()); }

  /** The production webhooks this instance serves (of one workflow, given its id), from its mirror: another's changes within milliseconds. */
  async list(workflowId?: string): Promise<RegisteredWebhook[]> {
    await this.loaded();
    return this.production.list(workflowId);
  }

  /** Waiting webhooks' entries, shared by every instance: any of them resumes a suspended run, and one call only. */
  putWait(entry: WaitEntry, expect?: WaitStatus): Promise<boolean> { return this.#withWaits((waits) => waits.put(entry, expect)); }

  getWait(waitId: string): Promise<WaitEntry | undefined> { return this.#withWaits((waits) => waits.get(waitId)); }

  claimWait(waitId: string, resumedAt: number): Promise<WaitClaim> { return this.#withWaits((waits) => waits.claim(waitId, resumedAt)); }

  /** The runs waiting for a call on any instance, soonest expiry first. */
  listWaits(options?: { limit?: number }): Promise<WaitEntry[]> { return this.#withWaits((waits) => waits.listWaiting(options)); }

  onWaitExpired(listener: WaitExpiredListener): () => void {
    return this.waits.onExpired(listener, (error) => this.report(error, 'removing expired waits'));
  }

  /**
   * The deployment's rate-limit digest key, the same on every instance over this store, once loaded (undefined
   * before); the first key loaded is kept, so that this instance's digests never change under its middleware.
   */
  digestKey(): Buffer | undefined {
    return this.#digestKey;
  }

  health(): SharedStoreHealth {
    const sinceContactMs = this.contact.sinceMs;
    const status = this.#state === 'ready' ? (this.contact.connected ? 'ready' : 'degraded') : this.#state === 'closed' ? 'closed' : 'starting';
    return {
      status,
      sinceContactMs,
      serving: this.#state === 'ready' && (this.contact.connected || sinceContactMs <= this.#settings.staleAfterMs),
      version: this.followedVersion,
      workflows: this.production.size,
      testListens: this.tests.size,
    };
  }

  /** Stops following the log and gives back the registry's own connections; this instance's test listens are cancelled. */
  async close(): Promise<void> {
    if (this.#state === 'closed') return;
    const wasStarting = this.#state === 'starting';
    this.#state = 'closed';
    this.#start.stop(this.#closedError());
    // A load under way finishes (or fails) before its connections are given back.
    if (wasStarting) await this.#loading?.catch(() => undefined);
    await this.tests.close();
    this.waits.close();
    await this.disconnect();
  }

  /** Connects, prepares and loads the store: what `ready()` waits for before the registry serves. @internal */
  protected abstract connect(): Promise<StoreLoaded>;

  /** Stops following the log and gives back the connections, once the mirrors are closed. @internal */
  protected abstract disconnect(): Promise<void>;

  /** The number of the last log entry this instance applied. @internal */
  protected abstract get followedVersion(): number;

  /** The store's clock, estimated here. @internal */
  protected storeNow(): number {
    return Date.now() + this.clockOffset;
  }

  /** Test listens kept in `store`, told to every instance through the change log. @internal */
  protected listensIn(store: ListenStore): SharedTestListens {
    return new SharedTestListens({ store, instanceId: randomUUID(), storeNow: () => this.storeNow(), report: (error, during) => this.report(error, during) });
  }

  /** A failure in the background, told to the host with what was being done. @internal */
  protected report(error: unknown, during: string): void {
    this.#settings.onEvent({ type: 'error', error: error instanceof Error ? error : new Error(String(error)), during });
  }

  /** Applies this instance's own change at once, unless the log reader has applied it (or later ones) already. @internal */
  protected applyOwn(workflowId: string, change: Parameters<ProductionMirror['apply']>[1], version: number): void {
    if (version > this.followedVersion) this.production.apply(workflowId, change, version);
  }

  /** Applies one entry of the change log; only the store being unavailable stops the reader (it retries). @internal */
  protected async applyChange({ version, op, subject, workflow, listen }: LoggedChange): Promise<void> {
    try {
      if (op === 'activate') {
        // This instance's own activations were applied when the store answered: no need to resolve them again.
        if (this.production.isNewer(subject, version)) {
          const parsed = JSON.parse(workflow as string) as WorkflowWebhooks;
          this.production.apply(subject, { workflow: parsed, webhooks: resolveWorkflowWebhooks(parsed) }, version);
        }
      } else if (op === 'deactivate') {
        this.production.apply(subject, undefined, version);
      } else {
        await this.tests.apply(listen());
      }
    } catch (error) {
      if (error instanceof WebhookError && error.code === 'REGISTRY_UNAVAILABLE') throw error;
      this.report(error, `applying change ${version} (${String(op)})`);
    }
    this.production.settle(version);
  }

  /**
   * Waits for the registry to load, for at most `commandTimeoutMs`: what every change and read of the store does,
   * so that none waits longer for a store that is away. @internal
   */
  protected loaded(): Promise<void> {
    if (this.#state === 'ready') return Promise.resolve();
    return this.ready({ timeoutMs: this.#settings.commandTimeoutMs });
  }

  async #load(): Promise<void> {
    if (this.#state === 'closed') throw this.#closedError();
    this.#state = 'starting';
    const { version, follow, digestKey } = await this.connect();
    // close() may have come while loading.
    if ((this.#state as string) === 'closed') return;
    this.#digestKey ??= digestKey;
    this.#state = 'ready';
    this.contact.record();
    follow();
    this.waits.start();
    this.#settings.onEvent({ type: 'ready', version, workflows: this.production.size, tries: this.#start.tries });
  }

  #closedError(): WebhookError {
    return new WebhookError('REGISTRY_UNAVAILABLE', `The ${this.#settings.store} webhook registry was closed.`);
  }

  #withWaits<T>(use: (waits: StoreWaits) => Promise<T>): Promise<T> {
    return this.#settings.waitsAfterReady ? this.loaded().then(() => use(this.waits)) : use(this.waits);
  }
}
