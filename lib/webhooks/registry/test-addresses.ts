/**
 * The test addresses one process serves: where listens are listening now, and, for a bounded number of recently
 * ended addresses, why they stopped, so a late call can be told *why* nothing listens. It holds no listen and no
 * policy: the registry decides who may listen where, this only remembers the addresses.
 */
import { RouteTable } from './route-table.js';
import type { NotListeningReason, RegisteredWebhook, WebhookLookup } from './contract.js';

/** Ended addresses remembered for "why" answers; the oldest are forgotten first. */
const REMEMBERED_ENDINGS = 1000;

export class TestAddresses {
  readonly #routes = new RouteTable();
  readonly #ended = new RouteTable();
  readonly #endings = new Map<RegisteredWebhook, NotListeningReason>();

  /** The listening webhook on the same method and path (shape), if any. */
  owner(webhook: RegisteredWebhook): RegisteredWebhook | undefined {
    return this.#routes.owner(webhook);
  }

  /** Starts serving these webhooks; their addresses' remembered endings are dropped. */
  open(webhooks: readonly RegisteredWebhook[]): void {
    const compiled = RouteTable.compile(webhooks);
    for (const webhook of webhooks) {
      this.#forget(webhook);
      this.#routes.add(webhook, compiled);
    }
  }

  /** Stops serving exactly these webhooks and remembers why. */
  close(webhooks: readonly RegisteredWebhook[], reason: NotListeningReason): void {
    for (const webhook of webhooks) {
      if (this.#routes.owner(webhook) !== webhook) continue;
      this.#routes.remove(webhook);
      this.#forget(webhook);
      this.#ended.add(webhook);
      this.#endings.set(webhook, reason);
    }
    while (this.#endings.size > REMEMBERED_ENDINGS) {
      const oldest = this.#endings.keys().next().value as RegisteredWebhook;
      this.#ended.remove(oldest);
      this.#endings.delete(oldest);
    }
  }

  /** A listening webhook, the path's other listening methods, or why nothing listens there. */
  lookup(method: string, path: string): WebhookLookup {
    const hit = this.#routes.lookup(method, path);
    if (hit.found || hit.methods.length > 0) return hit;
    const ended = this.#ended.lookup(method, path);
    if (!ended.found) return { found: false, methods: [], reason: 'neverListened' };
    return { found: false, methods: [], reason: this.#endings.get(ended.webhook) ?? 'neverListened' };
  }

  /** Drops the remembered ending of the same address, so a new listen or ending replaces it. */
  #forget(webhook: RegisteredWebhook): void {
    const previous = this.#ended.owner(webhook);
    if (previous === undefined) return;
    this.#ended.remove(previous);
    this.#endings.delete(previous);
  }
}
