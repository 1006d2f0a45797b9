/**
 * Why a run a worker stopped renewing its lock for runs again, as the log line says it: delivery is at least once,
 * and a run whose end the store did not record (the worker died, was blocked, or lost the store as the run ended)
 * runs a second time. An outage this worker saw just before names itself; otherwise every cause is listed.
 */
import type { ResolvedWorkerOptions } from './options.js';
import { storeNameOf } from './start.js';
import type { QueueStoreLink } from './store/contract.js';

/** How long after an outage of the store a stall is put down to it: a lock's length, two stall checks and a second. */
function outageWindowMs(options: ResolvedWorkerOptions): number {
  return options.lockDurationMs + 2 * options.stalledIntervalMs + 1000;
}

/** The outage of the store this worker saw just before a stall, when it did (its likeliest cause). */
export function stallCause(options: ResolvedWorkerOptions, link: QueueStoreLink): { sinceOutageMs?: number } {
  const sinceOutageMs = link.outage?.sinceOutageMs();
  return sinceOutageMs !== undefined && sinceOutageMs <= outageWindowMs(options) ? { sinceOutageMs } : {};
}

/**
 * Why a run runs again, for the host reading its log: a store outage named when this worker saw one, all the causes
 * otherwise, and what makes a second run harmless.
 */
export function stalledWhy(options: ResolvedWorkerOptions, link: QueueStoreLink): string {
  const store = storeNameOf(options);
  const harmless = 'An executor that keys its side effects by run.callId (or the job id) makes the second run change nothing.';
  const { sinceOutageMs } = stallCause(options, link);
  if (sinceOutageMs !== undefined) {
    return `${store} was unreachable ${sinceOutageMs === 0 ? 'now' : `${sinceOutageMs} ms ago`}, when the run ended or while it ran, so its completion (or its lock) was not recorded. ${harmless}`;
  }
  return `the worker that ran it stopped renewing its lock: it died, was blocked past lockDurationMs, or ${store} was unreachable when the run ended, so its completion was not recorded. ${harmless}`;
}
