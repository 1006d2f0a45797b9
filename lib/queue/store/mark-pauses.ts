/**
 * The pauses between attempts at a refusal mark the store did not take, on every store: from 100 ms, doubling, to
 * 500 ms. A worker's put-back of a late job right after its store failed (late-jobs.ts) outlasts the longest pause, so
 * a mark retried as the store comes back lands before the worker's claim.
 */
export const FIRST_MARK_PAUSE_MS = 100;
export const MAX_MARK_PAUSE_MS = 500;

/** The pause after one that was `pauseMs` long (0: the first failure). */
export function nextMarkPause(pauseMs: number): number {
  return Math.min(Math.max(pauseMs * 2, FIRST_MARK_PAUSE_MS), MAX_MARK_PAUSE_MS);
}
