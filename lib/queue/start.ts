/**
 * How a web queue or a worker starts while its store may be away: every try opens the connections and readies
 * BullMQ, and one that fails for want of the store (down, restarting, refusing connections) is tried again after a
 * pause of at most a second, told once per streak to the host's logger. A failure waiting cannot mend (a setting,
 * a missing privilege, a certificate refused) ends the tries with its cause; `ready({ timeoutMs })` bounds a wait.
 */
import { WebhookError } from '../core/errors.js';
import { errorFields } from '../core/logger.js';
import { StartRetries } from '../core/start-retries.js';
import { loginRefusal } from '../postgres/failure-hints.js';
import { isOutage } from '../postgres/pool.js';
import type { ResolvedShared } from './options.js';

/** What `ready()` of a web queue or a worker may be told. */
export interface QueueReadyOptions {
  /**
   * Longest wait, in ms, for the connections to the store: past it `ready()` rejects `QUEUE_UNAVAILABLE` naming the
   * last cause, and the tries go on (call `ready()` again to wait again). Default: no deadline.
   */
  timeoutMs?: number;
}

/** The store's name in messages. */
export function storeNameOf(options: ResolvedShared): string {
  return options.store === 'postgres' ? 'PostgreSQL' : 'Redis';
}

/**
 * Whether a try failed for want of the store, which waiting mends. Our own failures carry the store's error as their
 * cause. On Redis, node-redis waits for the server itself, so a setting is all that reaches here but a lost connection.
 */
export function waitingMends(options: ResolvedShared, error: unknown): boolean {
  if (error instanceof TypeError) return false;
  const cause = (error as { cause?: unknown } | null)?.cause ?? error;
  if (cause instanceof TypeError) return false;
  return options.store === 'postgres' ? loginRefusal(error) === undefined && isOutage(cause) : true;
}

/** `ready()` past its deadline: 503 with the last cause. */
export function notConnected(options: ResolvedShared, who: string, cause: Error | undefined, timeoutMs: number | undefined): WebhookError {
  const store = storeNameOf(options);
  const within = timeoutMs === undefined ? '' : ` within ${timeoutMs} ms`;
  const reason = cause === undefined ? '' : `: ${cause.message.replace(/\.$/, '')}`;
  return new WebhookError('QUEUE_UNAVAILABLE', `${who} could not connect to ${store}${within}${reason}.`, {
    cause,
    hint: `It keeps trying until ${store} answers (or close()). Check that ${store} is running and reachable.`,
  });
}

/**
 * A connection refused for its user, password or database, in the shape of one refused for want of the server:
 * QUEUE_UNAVAILABLE naming the store and the server's words, with what to change as its hint.
 */
function refusedLogin(options: ResolvedShared, who: string, error: unknown): WebhookError | undefined {
  const hint = options.store === 'postgres' ? loginRefusal(error) : undefined;
  if (hint === undefined) return undefined;
  const said = error instanceof Error ? error.message.split(' — ')[0]?.replace(/\.$/, '') : String(error);
  return new WebhookError('QUEUE_UNAVAILABLE', `The ${who} could not connect to ${storeNameOf(options)}: ${String(said)}.`, { cause: error, hint });
}

/** The tries of one web queue or worker (`who`: `webhook queue`, `queue worker`). */
export function queueStart<T>(options: ResolvedShared, who: string, attempt: () => Promise<T>, closed: () => boolean): StartRetries<T> {
  const store = storeNameOf(options);
  const retries: StartRetries<T> = new StartRetries<T>({
    attempt: async () => {
      const started = await attempt().catch((error: unknown) => { throw refusedLogin(options, who, error) ?? error; });
      if (retries.tries > 1) options.logger.warn({ tries: retries.tries }, `${who}: connected to ${store} after ${retries.tries} tries`);
      return started;
    },
    retryable: (error) => !closed() && waitingMends(options, error),
    onUnreachable: (error) => {
      options.logger.warn({ err: errorFields(error) }, `${who}: ${store} is unreachable; trying again until it answers (at most a second apart)`);
    },
    onFailed: (error) => {
      if (!closed()) options.logger.error({ err: errorFields(error) }, `${who}: could not start, and waiting will not mend it: ${error.message}`);
    },
  });
  return retries;
}
