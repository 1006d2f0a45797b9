/**
 * Every instance's test listens, as this instance serves them: their addresses (with the reasons ended ones give),
 * opened and closed from the change log, and closed here too when their window ends, so an instance never serves a
 * listen past its window even if the instance that listens has gone away.
 */
import { resolveWorkflowWebhooks } from '../resolve-workflow.js';
import { TestAddresses } from '../test-addresses.js';
import type { ListedTestWebhook, NotListeningReason, RegisteredWebhook, WebhookLookup } from '../contract.js';
import type { WorkflowWebhooks } from '../../../core/types.js';

/** A listen as the store keeps it. */
export interface ListenRecord {
  expiresAt: number;
  listen: { listenId: string; workflowId: string; workflow: WorkflowWebhooks; routeKeys: string[]; timeoutMs: number; instance: string };
}

interface Mirrored {
  webhooks: RegisteredWebhook[];
  /** When this instance closes it, on its own clock. */
  expiresAt: number;
  timer: NodeJS.Timeout;
}

/** Ended listen ids remembered, so a late or repeated log entry cannot open them again. */
const REMEMBERED_ENDED = 10_000;

export class ListenMirror {
  readonly #addresses = new TestAddresses();
  readonly #open = new Map<string, Mirrored>();
  readonly #ended = new Set<string>();

  get size(): number {
    return this.#open.size;
  }

  has(listenId: string): boolean {
    return this.#open.has(listenId);
  }

  ids(): string[] {
    return [...this.#open.keys()];
  }

  lookup(method: string, path: string): WebhookLookup {
    return this.#addresses.lookup(method, path);
  }

  /** Serves the listen's addresses for `remainingMs`; returns them, or undefined if it is open or over already. */
  open(record: ListenRecord, remainingMs: number): RegisteredWebhook[] | undefined {
    const { listenId, workflow } = record.listen;
    if (this.#open.has(listenId) || this.#ended.has(listenId)) return undefined;
    const webhooks = resolveWorkflowWebhooks(workflow, 'test').map((webhook) => ({ ...webhook, listenId }));
    this.#addresses.open(webhooks);
    const timer = setTimeout(() => this.close(listenId, 'timedOut'), Math.max(0, remainingMs)).unref();
    this.#open.set(listenId, { webhooks, expiresAt: Date.now() + Math.max(0, remainingMs), timer });
    return webhooks;
  }

  /** Every open listen's webhooks, with its listen's id and end. */
  list(): ListedTestWebhook[] {
    return [...this.#open].flatMap(([listenId, { webhooks, expiresAt }]) => webhooks.map((webhook) => ({ ...webhook, listenId, expiresAt })));
  }

  close(listenId: string, reason: NotListeningReason): void {
    const mirrored = this.#open.get(listenId);
    this.#ended.add(listenId);
    if (this.#ended.size > REMEMBERED_ENDED) this.#ended.delete(this.#ended.values().next().value as string);
    if (mirrored === undefined) return;
    clearTimeout(mirrored.timer);
    this.#addresses.close(mirrored.webhooks, reason);
    this.#open.delete(listenId);
  }

  closeAll(): void {
    for (const listenId of [...this.#open.keys()]) this.close(listenId, 'cancelled');
  }
}
