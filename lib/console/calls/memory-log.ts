/**
 * The embedded recent-calls store: a ring of the last `capacity` calls of this process, newest first on reading.
 */
import type { CallLog, CallRecord, CallRecordListener } from './contract.js';

export const DEFAULT_CALLS_KEPT = 200;
const MAX_CALLS_KEPT = 100_000;

/** How many calls a log keeps: a whole number from 1 to 100 000 (default 200). */
export function checkCapacity(value: unknown, who: string): number {
  if (value === undefined) return DEFAULT_CALLS_KEPT;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_CALLS_KEPT) {
    throw new TypeError(`workflow-webhooks: ${who} capacity must be a whole number from 1 to ${MAX_CALLS_KEPT}.`);
  }
  return value;
}

export class MemoryCallLog implements CallLog {
  readonly capacity: number;
  readonly #ring: (CallRecord | undefined)[];
  /** Where the next call goes; also how many were ever written. */
  #written = 0;
  readonly #listeners = new Set<CallRecordListener>();

  constructor(options: { capacity?: number } = {}) {
    this.capacity = checkCapacity(options.capacity, 'MemoryCallLog');
    this.#ring = new Array<CallRecord | undefined>(this.capacity);
  }

  append(call: CallRecord): Promise<void> {
    this.#ring[this.#written % this.capacity] = call;
    this.#written += 1;
    for (const listener of this.#listeners) {
      try {
        listener(call);
      } catch {
        // One listener failing must not keep the call from the others.
      }
    }
    return Promise.resolve();
  }

  recent(limit = this.capacity): Promise<CallRecord[]> {
    const count = Math.min(Math.max(0, Math.floor(limit)), this.capacity, this.#written);
    const calls: CallRecord[] = [];
    for (let index = 1; index <= count; index += 1) {
      calls.push(this.#ring[(this.#written - index) % this.capacity] as CallRecord);
    }
    return Promise.resolve(calls);
  }

  subscribe(listener: CallRecordListener): () => void {
    this.#listeners.add(listener);
    return () => { this.#listeners.delete(listener); };
  }
}
