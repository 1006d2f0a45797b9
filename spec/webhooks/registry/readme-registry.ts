/**
 * The "Write your own registry" example of docs/workflows.md, verbatim below this comment: readme-registry.spec.ts checks that the guide
 * still shows exactly this code, and runs the registry conformance suite on it.
 */
import {
  resolveWorkflowWebhooks, routeKey, RouteTable, TestListens, WebhookConflictError,
  type RegisteredWebhook, type TestCallClaim, type TestListenHandle, type TestListenOptions,
  type WebhookKind, type WebhookLookup, type WebhookRegistry, type WorkflowWebhooks,
} from 'workflow-webhooks';

export class KeyValueRegistry implements WebhookRegistry {
  readonly #owners = new Map<string, RegisteredWebhook>(); // your store: route key → holder
  readonly #active = new Map<string, RegisteredWebhook[]>();
  readonly #routes = new RouteTable();
  readonly #tests = new TestListens();

  async activate(workflow: WorkflowWebhooks): Promise<RegisteredWebhook[]> {
    const webhooks = resolveWorkflowWebhooks(workflow);
    // Check everything first: a workflow is activated whole or not at all.
    for (const webhook of webhooks) {
      const holder = this.#owners.get(routeKey(webhook));
      if (holder !== undefined && holder.workflowId !== workflow.workflowId) throw new WebhookConflictError(holder);
    }
    await this.deactivate(workflow.workflowId);
    for (const webhook of webhooks) {
      this.#owners.set(routeKey(webhook), webhook);
      this.#routes.add(webhook);
    }
    this.#active.set(workflow.workflowId, webhooks);
    return webhooks;
  }

  async deactivate(workflowId: string): Promise<boolean> {
    const webhooks = this.#active.get(workflowId) ?? [];
    for (const webhook of webhooks) {
      this.#owners.delete(routeKey(webhook));
      this.#routes.remove(webhook);
    }
    return this.#active.delete(workflowId);
  }

  async lookup(kind: WebhookKind, method: string, path: string): Promise<WebhookLookup> {
    return this.lookupNow(kind, method, path);
  }

  // Optional: routes kept in memory answer at once, and the middleware matches a call without a promise.
  lookupNow(kind: WebhookKind, method: string, path: string): WebhookLookup {
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
