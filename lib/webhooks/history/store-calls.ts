/**
 * A history store's failure as history's one answer: HISTORY_UNAVAILABLE (503, with Retry-After), the failure kept as
 * its cause, and a hint saying what still works. The library's stores build it here, and so does `storeAnswer` for
 * whatever a store throws.
 */
import { WebhookError } from '../../core/errors.js';
import { STORE_RETRY_AFTER_S } from '../registry/shared/contact.js';

/** What the caller reads unless the store says otherwise. */
interface UsualWords {
  message: string;
  hint: string;
  retryAfter: string;
}

/** A store the host wrote may throw anything, with its own details: the caller reads only that it did not answer. */
const HOST_STORE: UsualWords = {
  message: 'The history store did not answer.',
  hint: 'Try again in a moment; the store may be restarting or unreachable.',
  retryAfter: '5',
};

/** The library's own store: its failure already names what it was doing, and is told as it is. */
function libraryStore(store: string, cause: unknown): UsualWords {
  return {
    message: cause instanceof Error ? cause.message : String(cause),
    hint: `Call history needs ${store}; calls to webhooks are still answered, and the calls waiting to be kept are written `
      + `once it answers. Check that ${store} is running and reachable.`,
    retryAfter: String(STORE_RETRY_AFTER_S),
  };
}

/**
 * `store` names the library's store that failed ('Redis', 'PostgreSQL'); without it the store is the host's. `said`
 * replaces the usual words where the failure is not the store being away (a refused command, a setting to fix). A
 * Retry-After the cause carries wins.
 */
export function historyUnavailable(cause: unknown, store?: string, said: { message?: string; hint?: string } = {}): WebhookError {
  const usual = store === undefined ? HOST_STORE : libraryStore(store, cause);
  const retryAfter = cause instanceof WebhookError ? cause.headers['retry-after'] : undefined;
  return new WebhookError('HISTORY_UNAVAILABLE', said.message ?? usual.message, {
    cause,
    headers: { 'retry-after': retryAfter ?? usual.retryAfter },
    hint: said.hint ?? usual.hint,
  });
}

/** A history store's answer; what it throws is the cause of HISTORY_UNAVAILABLE. The library's own refusals pass as they are. */
export async function storeAnswer<T>(ask: () => Promise<T>): Promise<T> {
  try {
    return await ask();
  } catch (error) {
    if (error instanceof WebhookError) throw error;
    throw historyUnavailable(error);
  }
}
