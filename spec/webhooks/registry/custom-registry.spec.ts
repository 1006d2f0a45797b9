/**
 * A registry written the way a host would write its own: against the published package only (nothing from lib/),
 * over a store that keeps strings, as a key-value database would. It must pass the same conformance suite as the
 * registries the package ships, which shows that the exported building blocks suffice.
 */
import {
  resolveWorkflowWebhooks,
  routeKey,
  RouteTable,
  TestListens,
  WebhookConflictError,
  type RegisteredWebhook,
  type TestCallClaim,
  type TestListenHandle,
  type TestListenOptions,
  type WebhookKind,
  type WebhookLookup,
  type WebhookRegistry,
  type WorkflowWebhooks,
} from 'workflow-webhooks';
import { describeRegistryContract } from '../../support/registry-contract/index.js';

/** The host's store: workflows as JSON strings, and which workflow owns each route key. */
class StringStore {
  readonly workflows = new Map<string, string>();
  readonly owners = new Map<string, string>();
}

class KeyValueWebhookRegistry implements WebhookRegistry {
  readonly #store = new StringStore();
  /** Look-ups are served in process; the store is the truth the table is rebuilt from. */
  readonly #routes = new RouteTable();
  readonly #active = new Map<string, RegisteredWebhook[]>();
  readonly #tests = new TestListens();

  async activate(workflow: WorkflowWebhooks): Promise<RegisteredWebhook[]> {
    const webhooks = resolveWorkflowWebhooks(workflow);
    const keys = new Map<string, RegisteredWebhook>();
    for (const webhook of webhooks) {
      const key = routeKey(webhook);
      keys.set(key, webhook);
      const owner = this.#store.owners.get(key);
      if (owner !== undefined && owner !== workflow.workflowId) {
        const holder = this.#active.get(owner)?.find((candidate) => routeKey(candidate) === key);
        if (holder !== undefined) throw new WebhookConflictError(holder);
      }
    }
    await this.deactivate(workflow.workflowId);
    for (const key of keys.keys()) this.#store.owners.set(key, workflow.workflowId);
    this.#store.workflows.set(workflow.workflowId, JSON.stringify(workflow));
    // What an instance does when it hears of the change: resolve the stored workflow again and serve it.
    const stored = JSON.parse(this.#store.workflows.get(workflow.workflowId) as string) as WorkflowWebhooks;
    const served = resolveWorkflowWebhooks(stored);
    for (const webhook of served) this.#routes.add(webhook);
    this.#active.set(workflow.workflowId, served);
    return served;
  }

  async deactivate(workflowId: string): Promise<boolean> {
    const webhooks = this.#active.get(workflowId);
    if (webhooks === undefined) return false;
    for (const webhook of webhooks) {
      this.#routes.remove(webhook);
      this.#store.owners.delete(routeKey(webhook));
    }
    this.#store.workflows.delete(workflowId);
    this.#active.delete(workflowId);
    return true;
  }

  async lookup(kind: WebhookKind, method: string, path: string): Promise<WebhookLookup> {
    return kind === 'production' ? this.#routes.lookup(method, path) : this.#tests.lookup(method, path);
  }

  async list(): Promise<RegisteredWebhook[]> {
    return [...this.#active.values()].flat();
  }

  async listenForTest(workflow: WorkflowWebhooks, options?: TestListenOptions): Promise<TestListenHandle> {
    return this.#tests.listen(workflow, options);
  }

  async claimTestCall(webhook: RegisteredWebhook): Promise<TestCallClaim | undefined> {
    return this.#tests.claim(webhook);
  }
}

describeRegistryContract('a registry written against the published package', { create: () => new KeyValueWebhookRegistry() });
