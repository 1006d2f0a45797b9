/**
 * A history store's answer, or HISTORY_UNAVAILABLE (503, with Retry-After) when it fails: what a store throws is
 * the cause, never the caller's answer. The library's own refusals pass as they are.
 */
import { WebhookError } from '../../core/errors.js';

export async function storeAnswer<T>(ask: () => Promise<T>): Promise<T> {
  try {
    return await ask();
  } catch (error) {
    if (error instanceof WebhookError) throw error;
    throw new WebhookError('HISTORY_UNAVAILABLE', 'The history store did not answer.', {
      hint: 'Try again in a moment; the store may be restarting or unreachable.', headers: { 'retry-after': '5' }, cause: error,
    });
  }
}
