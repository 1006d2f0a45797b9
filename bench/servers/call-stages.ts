/**
 * The stage times of each lastNode call of a queue-mode web instance in the stage benchmark (bench/queue-stages.ts):
 * the middleware's events give when the call arrived and when it was answered, the queue's `stageTimes` option the
 * rest; joined by the call's id, all on one clock (epoch ms with a fraction, as `stageTimes` gives them).
 */
import type { WebhookEvent } from 'workflow-webhooks';
import type { QueueCallStages } from 'workflow-webhooks/queue';

/** One call's stages, in the order of the stage table; the times are epoch ms with a fraction. */
export interface CallStageTimes extends QueueCallStages {
  received: number;
  answered: number;
}

const now = (): number => performance.timeOrigin + performance.now();

export class CallStages {
  readonly #open = new Map<string, Partial<CallStageTimes>>();
  #done: CallStageTimes[] = [];

  /** The middleware's `onEvent`: a call's arrival and its answer. */
  readonly event = (event: WebhookEvent): void => {
    if (event.type === 'received') this.#merge(event.callId, { received: now() - event.durationMs });
    else if (event.type === 'responded') this.#merge(event.callId, { answered: now() });
  };

  /** The queue's `stageTimes`. */
  readonly queued = (stages: QueueCallStages): void => {
    this.#merge(stages.callId, stages);
  };

  /** The calls complete so far, handed over once. */
  take(): CallStageTimes[] {
    const done = this.#done;
    this.#done = [];
    this.#open.clear();
    return done;
  }

  #merge(callId: string, times: Partial<CallStageTimes>): void {
    const call = { ...this.#open.get(callId), ...times };
    if (call.received !== undefined && call.answered !== undefined && call.seen !== undefined) {
      this.#open.delete(callId);
      this.#done.push(call as CallStageTimes);
    } else {
      this.#open.set(callId, call);
    }
  }
}
