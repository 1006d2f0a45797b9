/**
 * The registry's replica acknowledgement (options `replicas`, `replicaTimeoutMs`): a change the primary answered
 * (an activation, a deactivation, a stored or claimed wait) is confirmed on the replicas before the caller hears it
 * was made; one that is not is refused REGISTRY_UNAVAILABLE with what became of it.
 *
 * Why the change is not undone when it is not confirmed: it is in effect already (other instances follow the change
 * log within milliseconds and serve it), and an undo would be one more write the replicas have not confirmed either.
 * The error says so, and a repeat of the same change (activate and deactivate are idempotent) confirms it. A claimed
 * wait is the exception, given back by the registry (see RedisWebhookRegistry.claimWait): its caller is answered 503
 * and must be able to resume the run with a retry.
 */
import { WebhookError } from '../core/errors.js';
import type { RedisClientLike } from './client.js';
import { RedisLink } from './link.js';
import type { ResolvedRedisOptions } from './options.js';
import { replicaShortfall, ReplicaAcks, unconfirmedReason, type Confirmation } from './replica-acks.js';

export class RegistryReplicas {
  readonly #replicas: number;
  readonly #timeoutMs: number;
  readonly #link: RedisLink | undefined;
  readonly #acks: ReplicaAcks | undefined;

  /** `marker`: the registry's acks key, in the slot of its other keys. */
  constructor(options: ResolvedRedisOptions, marker: string) {
    this.#replicas = options.replicas;
    this.#timeoutMs = options.replicaTimeoutMs;
    if (options.replicas === 0) return;
    // A connection of its own: WAIT blocks it for up to the timeout, and the registry's other commands must not wait
    // behind it. Its deadline leaves the WAIT its whole timeout.
    const link = new RedisLink(options.client as RedisClientLike, options.commandTimeoutMs + options.replicaTimeoutMs, () => undefined,
      { topology: options.topology, key: marker }, true);
    this.#link = link;
    this.#acks = new ReplicaAcks({ replicas: options.replicas, timeoutMs: options.replicaTimeoutMs }, marker,
      (commands) => link.inOrder(commands, 'confirming a change on the replicas'));
  }

  /**
   * Resolves once the replicas hold every change the primary answered so far (at once with `replicas` 0); else
   * rejects REGISTRY_UNAVAILABLE: `applied` says what became of the change on the primary, `advice` what to do.
   */
  async confirm(doing: string, applied: string, advice: string): Promise<void> {
    if (this.#acks === undefined) return;
    let confirmation: Confirmation;
    try {
      confirmation = await this.#acks.confirm();
    } catch (error) {
      throw this.#refusal(doing, 'Redis did not answer the replica acknowledgement', applied, advice, error);
    }
    if (!confirmation.confirmed) {
      throw this.#refusal(doing, unconfirmedReason(confirmation, { replicas: this.#replicas, timeoutMs: this.#timeoutMs }), applied, advice, undefined);
    }
  }

  /** What to warn at start when the primary has fewer replicas than asked (undefined when it has enough, or none are asked). */
  shortfall(): Promise<string | undefined> {
    return this.#acks === undefined ? Promise.resolve(undefined) : replicaShortfall(this.#acks, this.#replicas, 'registry changes (and resumed waits)');
  }

  /** An activation or deactivation: in effect on the primary and served, whatever the replicas say. */
  confirmWorkflow(workflowId: string, change: 'activate' | 'deactivate'): Promise<void> {
    const state = change === 'activate' ? 'active' : 'inactive';
    return this.confirm(`${change === 'activate' ? 'activating' : 'deactivating'} workflow "${workflowId}"`,
      `The workflow is ${state} on the Redis primary and every instance serves it so, but a failover before the replicas catch up may undo that.`,
      `Call ${change}() again once the replicas are back (it is idempotent) to have the change confirmed.`);
  }

  /** A stored wait entry: on the primary, whatever the replicas say. */
  confirmWaitStored(waitId: string): Promise<void> {
    return this.confirm(`storing wait "${waitId}"`, 'The wait is stored on the Redis primary, but a failover before the replicas catch up may lose it.',
      'Check that the Redis replicas are up and in sync.');
  }

  /** A claimed wait: given back by the caller, so the call that claimed it is refused and can be retried. */
  confirmWaitClaimed(waitId: string): Promise<void> {
    return this.confirm(`resuming wait "${waitId}"`, 'The claim was given back: the run was not resumed.',
      'Send the call again in a moment; the webhook registry\'s Redis replicas are behind or unreachable.');
  }

  close(): void {
    this.#link?.close();
  }

  #refusal(doing: string, what: string, applied: string, advice: string, cause: unknown): WebhookError {
    return new WebhookError('REGISTRY_UNAVAILABLE', `Not confirmed while ${doing}: ${what}. ${applied}`, { hint: advice, cause });
  }
}
