/**
 * A history store's retention, checked once where the store is made: by age (default 14 days, n8n's
 * EXECUTIONS_DATA_MAX_AGE) and by count (n8n's EXECUTIONS_DATA_PRUNE_MAX_COUNT is 10 000).
 */
import type { HistoryRetention } from '../../core/history.js';

export const DEFAULT_MAX_AGE_MS = 14 * 24 * 3_600_000;

export function resolveRetention(given: Partial<HistoryRetention> | undefined, defaultEntries: number, owner: string): HistoryRetention {
  const { maxAgeMs = DEFAULT_MAX_AGE_MS, maxEntries = defaultEntries } = given ?? {};
  if (typeof maxAgeMs !== 'number' || !Number.isSafeInteger(maxAgeMs) || maxAgeMs < 1000) {
    throw new TypeError(`workflow-webhooks: ${owner} maxAgeMs must be a whole number of milliseconds, 1000 or more.`);
  }
  if (typeof maxEntries !== 'number' || !Number.isSafeInteger(maxEntries) || maxEntries < 1) {
    throw new TypeError(`workflow-webhooks: ${owner} maxEntries must be a whole number, 1 or more.`);
  }
  return Object.freeze({ maxAgeMs, maxEntries });
}
