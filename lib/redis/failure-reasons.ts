/**
 * Why Redis did not take a write, in a caller's words: the reason only (a slot being moved, a cluster down, a
 * failover, a restart, Redis out of reach), never Redis's own reply, a key or an address, which reach the host's
 * logger with the error as its cause. Shared by the registry's and the queue's 503 answers, so that a refusal that
 * came back in milliseconds is never told as a wait that ran out.
 */
import { isReplyError } from './client.js';

/** A reason, worded to follow "…could not be stored: ". */
export function redisFailureReason(error: unknown): string {
  const message = error instanceof Error ? error.message : '';
  // Redis Cluster answers TRYAGAIN to a multi-key command (every script of ours) while the slot of its keys is half
  // moved, and ASK or MOVED when the client could not follow the move.
  if (/^(TRYAGAIN|ASK|MOVED)\b/.test(message)) return 'its Redis Cluster slot is being moved to another node, and Redis refuses such writes until the move ends';
  if (/^CLUSTERDOWN\b/.test(message)) return 'the Redis Cluster is down (a slot has no reachable primary)';
  if (/^(READONLY|MASTERDOWN)\b/.test(message)) return 'Redis is changing its primary (a failover is under way)';
  if (/^LOADING\b/.test(message)) return 'Redis is loading its data after a restart';
  if (/^OOM\b/.test(message)) return 'Redis is out of memory';
  if (isReplyError(error)) return 'Redis refused the write';
  return 'Redis could not be reached';
}

/** Socket failures that reject the commands already written: the server may have carried them out. */
const CUT_MIDWAY = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT']);

/**
 * Whether a command that failed may have been carried out all the same: the connection closed after the command was
 * written and before its reply came (node-redis rejects such commands; those not yet written wait for the next
 * connection). A reply of Redis's, a closed or offline client, is not one.
 */
export function mayHaveApplied(error: unknown): boolean {
  if (!(error instanceof Error) || isReplyError(error)) return false;
  const code = (error as { code?: unknown }).code;
  return error.message === 'Socket closed unexpectedly' || (typeof code === 'string' && CUT_MIDWAY.has(code));
}
