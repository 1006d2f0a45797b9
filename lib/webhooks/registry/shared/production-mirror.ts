/**
 * The production webhooks one instance serves, in process: the same RouteTable the memory registry uses, kept
 * current from the change log. Each workflow remembers the log number of its last change, so applying a change
 * twice, or an older one after a newer one, does nothing: the local apply after a script and the log entry of
 * the same change may come in either order.
 */
import { RouteTable } from '../route-table.js';
import type { RegisteredWebhook } from '../contract.js';
import type { WorkflowWebhooks } from '../../../core/types.js';

interface Served {
  workflow: WorkflowWebhooks;
  webhooks: RegisteredWebhook[];
  version: number;
}

export class ProductionMirror {
  #routes = new RouteTable();
  #served = new Map<string, Served>();
  /** Deactivated workflows and the number of that change, until the log has passed it. */
  #gone = new Map<string, number>();
  /** Workflows served from before the store came back empty, until the new store activates or deactivates them. */
  #kept = new Set<string>();

  get routes(): RouteTable {
    return this.#routes;
  }

  get size(): number {
    return this.#served.size;
  }

  list(workflowId?: string): RegisteredWebhook[] {
    if (workflowId !== undefined) return [...(this.#served.get(workflowId)?.webhooks ?? [])];
    return [...this.#served.values()].flatMap((served) => served.webhooks);
  }

  workflows(): WorkflowWebhooks[] {
    return [...this.#served.values()].map((served) => served.workflow);
  }

  has(workflowId: string): boolean {
    return this.#served.has(workflowId);
  }

  /** Workflows served from before a reset that the new store has not changed yet. */
  get kept(): number {
    return this.#kept.size;
  }

  /** Whether change `version` of the workflow is newer than what is served (an older one is never applied). */
  isNewer(workflowId: string, version: number): boolean {
    return version > (this.#served.get(workflowId)?.version ?? this.#gone.get(workflowId) ?? 0);
  }

  /** Serves the workflow's webhooks (or none, for a deactivation) as of change `version`, unless newer is known. */
  apply(workflowId: string, change: { workflow: WorkflowWebhooks; webhooks: RegisteredWebhook[] } | undefined, version: number): void {
    if (!this.isNewer(workflowId, version)) return;
    this.#kept.delete(workflowId);
    this.#unserve(workflowId);
    if (change === undefined) {
      this.#gone.set(workflowId, version);
      return;
    }
    this.#gone.delete(workflowId);
    const compiled = RouteTable.compile(change.webhooks);
    for (const webhook of change.webhooks) this.#routes.add(webhook, compiled);
    this.#served.set(workflowId, { ...change, version });
  }

  /** Forgets deactivations the log has passed: no older change of theirs can arrive any more. */
  settle(logVersion: number): void {
    for (const [workflowId, version] of this.#gone) if (version <= logVersion) this.#gone.delete(workflowId);
  }

  /**
   * Replaces everything with a snapshot taken at `version`. After a store that came back empty (`reset`), the
   * workflows the snapshot lacks stay served until the host activates or deactivates them again, through any
   * later reload too.
   */
  replace(snapshot: Map<string, { workflow: WorkflowWebhooks; webhooks: RegisteredWebhook[] }>, version: number, reset: boolean): void {
    const kept = [...this.#served].filter(([workflowId]) => !snapshot.has(workflowId) && (reset || this.#kept.has(workflowId)));
    this.#kept = new Set(kept.map(([workflowId]) => workflowId));
    const routes = new RouteTable();
    const served = new Map<string, Served>();
    for (const [workflowId, change] of snapshot) served.set(workflowId, { ...change, version });
    // Kept workflows count as never changed in the new store, so its first change of them applies.
    for (const [workflowId, entry] of kept) served.set(workflowId, { ...entry, version: 0 });
    for (const entry of served.values()) {
      const compiled = RouteTable.compile(entry.webhooks);
      for (const webhook of entry.webhooks) routes.add(webhook, compiled);
    }
    this.#routes = routes;
    this.#served = served;
    this.#gone = new Map();
  }

  #unserve(workflowId: string): void {
    const served = this.#served.get(workflowId);
    if (served === undefined) return;
    for (const webhook of served.webhooks) this.#routes.remove(webhook);
    this.#served.delete(workflowId);
  }
}
