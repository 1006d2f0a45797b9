/**
 * What a registry over a shared store (Redis, PostgreSQL) tells its host about its link to the store and the state it
 * mirrors, its health report, and where those events go when the host gives no listener: one set of events for every
 * store, so a host that moves from one store to another keeps its listener.
 */
import type { WorkflowWebhooks } from '../../../core/types.js';
import { errorFields, type WebhookLogger } from '../../../core/logger.js';

export type SharedStoreEvent =
  /** Routes loaded and the change log followed: `ready()` resolved; `tries`: 1 unless the store was away at start. */
  | { type: 'ready'; version: number; workflows: number; tries: number }
  /**
   * The store could not be reached while loading (down, restarting, refusing connections): told once for the first
   * failed try; the registry keeps trying and says `ready` once loaded. No webhook is served meanwhile.
   */
  | { type: 'unreachable'; error: Error }
  /** The store stopped answering: calls are served from memory, changes are refused. */
  | { type: 'disconnected'; error: Error }
  /** The store answers again after `downMs`; what changed meanwhile is read from the log, or reloaded. */
  | { type: 'reconnected'; downMs: number }
  /** Everything was loaded again: the log had lost entries this instance missed (`gap`), or the store was reset. */
  | { type: 'resynced'; reason: 'gap' | 'reset'; version: number; workflows: number }
  /**
   * The store came back empty (restarted without persistence, flushed). This instance keeps serving `workflows` from
   * memory; activate them again (`for (const w of event.workflows) await registry.activate(w)`) to restore the store.
   */
  | { type: 'storeReset'; workflows: WorkflowWebhooks[] }
  /** Something failed in the background (a relayed test call, a log entry this version cannot read). */
  | { type: 'error'; error: Error; during: string };

export interface SharedStoreHealth {
  /** `degraded`: the store does not answer; calls are served from memory, changes are refused. */
  status: 'starting' | 'ready' | 'degraded' | 'closed';
  /** Milliseconds since the store last answered this instance. */
  sinceContactMs: number;
  /** False once cut off for longer than `staleAfterMs`: calls are then answered 503. */
  serving: boolean;
  /** Number of the last change this instance applied. */
  version: number;
  workflows: number;
  testListens: number;
}

/** Who speaks (`workflow-webhooks/redis`) about which store (`Redis`). */
export interface StoreVoice {
  component: string;
  store: string;
}

/** Writes what an operator must see to stderr when the host gave neither a listener nor a logger. */
export function stderrEvents({ component, store }: StoreVoice): (event: SharedStoreEvent | { type: 'warning'; message: string }) => void {
  return (event) => {
    if (event.type === 'disconnected') console.error(`${component}: ${store} is unreachable (${event.error.message}); serving webhooks from memory, changes are refused.`);
    else if (event.type === 'unreachable') console.error(`${component}: ${store} is unreachable while loading the webhook registry (${event.error.message}); no webhook is served until it answers, trying again.`);
    else if (event.type === 'ready' && event.tries > 1) console.error(`${component}: the webhook registry loaded from ${store} after ${event.tries} tries.`);
    else if (event.type === 'reconnected') console.error(`${component}: ${store} is reachable again after ${event.downMs} ms.`);
    else if (event.type === 'storeReset') console.error(`${component}: ${store} came back empty; ${event.workflows.length} workflows are served from memory until they are activated again.`);
    else if (event.type === 'warning') console.error(`${component}: ${event.message}`);
    else if (event.type === 'error') console.error(`${component}: failed while ${event.during}:`, event.error);
  };
}

/** The same records through the host's logger. */
export function loggedEvents(logger: WebhookLogger, { component, store }: StoreVoice): (event: SharedStoreEvent | { type: 'warning'; code: string; message: string }) => void {
  return (event) => {
    const from = { component };
    if (event.type === 'disconnected') logger.warn({ ...from, err: errorFields(event.error) }, `${store} is unreachable; serving webhooks from memory, changes are refused`);
    else if (event.type === 'unreachable') logger.warn({ ...from, err: errorFields(event.error) }, `${store} is unreachable while loading the webhook registry; no webhook is served until it answers, trying again`);
    else if (event.type === 'ready' && event.tries > 1) logger.warn({ ...from, tries: event.tries }, `the webhook registry loaded from ${store} after ${event.tries} tries`);
    else if (event.type === 'reconnected') logger.warn({ ...from, downMs: event.downMs }, `${store} is reachable again after ${event.downMs} ms`);
    else if (event.type === 'storeReset') logger.warn({ ...from, workflows: event.workflows.length }, `${store} came back empty; its workflows are served from memory until they are activated again`);
    else if (event.type === 'warning') logger.warn({ ...from, code: event.code }, event.message);
    else if (event.type === 'error') logger.error({ ...from, err: errorFields(event.error), during: event.during }, `failed while ${event.during}`);
  };
}
