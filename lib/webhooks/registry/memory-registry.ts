/**
 * The embedded registry: production webhooks of active workflows in one route table, test listens in another
 * (`test-listens.ts` beside this file). Everything happens synchronously inside, so activation is atomic; the async interface is
 * what a remote store (Redis) implements too.
 */
import { WebhookConflictError } from '../../core/errors.js';
import { RouteTable } from './route-table.js';
import { TestListens } from './test-listens.js';
import { InProcessReplayMemory } from './message-ids.js';
import { InProcessRateLimits } from './rate-limits.js';
import type { RateLimitCharge, RateLimitResult } from '../../core/rate-limits.js';
import { resolveWorkflowWebhooks } from './resolve-workflow.js';
import { checkMaxWaiting, checkWaitListLimit, MemoryWaits } from './waits.js';
import type { WaitClaim, WaitEntry, WaitExpiredListener, WaitStatus } from '../../core/waits.js';
import type { WebhookKind, WorkflowWebhooks } from '../../core/types.js';
import type {
  ListedTestWebhook,
  RegisteredWebhook,
  TestCallClaim,
  TestListenHandle,
  TestListenOptions,
  WebhookLookup,
  WebhookRegistry,
} from './contract.js';

/** Runs `work` now and hands its result or its throw over as a promise. */
function settle<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(error as Error);
  }
}

export interface MemoryWebhookRegistryOptions {
  /** At most this many runs waiting for a call (waiting webhooks) at once; one more is refused `TOO_MANY_WAITING`. Default 100 000. */
  maxWaiting?: number;
  /**
   * At most this many rate limit budgets at once (each caller key of each limited address, per window); a new caller
   * past it shares its address's one overflow budget, existing budgets are kept. Default 100 000.
   */
  maxRateLimitBudgets?: number;
}

export class MemoryWebhookRegistry implements WebhookRegistry {
  readonly #production = new RouteTable();
  readonly #byWorkflow = new Map<string, RegisteredWebhook[]>();
  readonly #tests = new TestListens();
  readonly #messageIds = new InProcessReplayMemory();
  readonly #waits: MemoryWaits;
  readonly #rateLimits: InProcessRateLimits;

  constructor(options: MemoryWebhookRegistryOptions = {}) {
    this.#waits = new MemoryWaits(checkMaxWaiting(options.maxWaiting));
    const budgets = options.maxRateLimitBudgets;
    if (budgets !== undefined && (typeof budgets !== 'number' || !Number.isSafeInteger(budgets) || budgets < 1)) {
      throw new TypeError(`workflow-webhooks: option maxRateLimitBudgets must be a whole number of at least 1; got ${String(budgets)}.`);
    }
    this.#rateLimits = new InProcessRateLimits(budgets);
  }

  activate(workflow: WorkflowWebhooks): Promise<RegisteredWebhook[]> {
    return settle(() => this.#activate(workflow));
  }

  deactivate(workflowId: string): Promise<boolean> {
    return settle(() => this.#remove(workflowId));
  }

  lookup(kind: WebhookKind, method: string, path: string): Promise<WebhookLookup> {
    return new Promise((resolve) => { resolve(this.lookupNow(kind, method, path)); });
  }

  lookupNow(kind: WebhookKind, method: string, path: string): WebhookLookup {
    return kind === 'production' ? this.#production.lookup(method, path) : this.#tests.lookup(method, path);
  }

  listenForTest(workflow: WorkflowWebhooks, options?: TestListenOptions): Promise<TestListenHandle> {
    return settle(() => this.#tests.listen(workflow, options));
  }

  claimTestCall(webhook: RegisteredWebhook): Promise<TestCallClaim | undefined> {
    return settle(() => this.#tests.claim(webhook));
  }

  /** The test webhooks listening now, with their listen's id and end. */
  listTestWebhooks(): Promise<ListedTestWebhook[]> {
    return settle(() => this.#tests.list());
  }

  /** Signed message ids, for every middleware that shares this registry (bounded, in this process). */
  rememberMessageId(key: string, ttlMs: number): Promise<boolean> {
    return settle(() => this.#messageIds.remember(key, ttlMs));
  }

  /** Rate limit budgets, for every middleware that shares this registry (bounded, in this process). */
  chargeRateLimits(charges: readonly RateLimitCharge[]): Promise<RateLimitResult> {
    return settle(() => this.#rateLimits.charge(charges));
  }

  putWait(entry: WaitEntry, expect?: WaitStatus): Promise<boolean> {
    return settle(() => this.#waits.put(entry, expect));
  }

  getWait(waitId: string): Promise<WaitEntry | undefined> {
    return settle(() => this.#waits.get(waitId));
  }

  claimWait(waitId: string, resumedAt: number): Promise<WaitClaim> {
    return settle(() => this.#waits.claim(waitId, resumedAt));
  }

  onWaitExpired(listener: WaitExpiredListener): () => void {
    return this.#waits.onExpired(listener);
  }

  /** The runs waiting for a call, soonest expiry first. */
  listWaits(options?: { limit?: number }): Promise<WaitEntry[]> {
    return settle(() => this.#waits.listWaiting(checkWaitListLimit(options)));
  }

  /** How many wait entries it holds (waiting, running and finished runs' addresses not yet expired). */
  get waiting(): number {
    return this.#waits.size;
  }

  /** The active workflows' production webhooks (of one workflow, given its id), for introspection and describeWebhooks(). */
  list(workflowId?: string): Promise<RegisteredWebhook[]> {
    if (workflowId !== undefined) return Promise.resolve([...(this.#byWorkflow.get(workflowId) ?? [])]);
    return Promise.resolve([...this.#byWorkflow.values()].flat());
  }

  #activate(workflow: WorkflowWebhooks): RegisteredWebhook[] {
    const webhooks = resolveWorkflowWebhooks(workflow, 'production');
    const compiled = RouteTable.compile(webhooks);
    // Check everything before touching the table: activation is all or nothing.
    for (const webhook of webhooks) {
      const owner = this.#production.owner(webhook);
      if (owner !== undefined && owner.workflowId !== webhook.workflowId) throw new WebhookConflictError(owner);
    }
    this.#remove(workflow.workflowId);
    for (const webhook of webhooks) this.#production.add(webhook, compiled);
    this.#byWorkflow.set(workflow.workflowId, webhooks);
    return [...webhooks];
  }

  #remove(workflowId: string): boolean {
    const webhooks = this.#byWorkflow.get(workflowId);
    if (webhooks === undefined) return false;
    for (const webhook of webhooks) this.#production.remove(webhook);
    this.#byWorkflow.delete(workflowId);
    return true;
  }
}
