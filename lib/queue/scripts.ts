/**
 * The Lua scripts of queue mode's limits, each one atomic step in Redis: admitting a call (a repeat of a call stored
 * or being stored, or one run too many waiting), giving up an idempotency key's claim, and the leases of a
 * workflow's concurrency slots. Every instance and worker runs the same scripts on the same keys, so the limits hold
 * across the cluster.
 */
import type { QueueCommands } from './redis-route.js';

/**
 * KEYS: the job's hash, the workflow's unfinished runs, its running runs, the claim on the call's idempotency key.
 * ARGV: now, maxQueued (-1: none), whether to track the run (1/0), job id, how old an unfinished entry may grow
 * before it counts as lost, the prefix of the refusal marks, the body's fingerprint ('' for a call without a key;
 * an HMAC one is prefixed with its key's id, and two made with different keys, across a key rotation, cannot be
 * compared: they count as the same body),
 * the store id, and how long a claim holds while its call is stored. Answers `duplicate` (the job exists), `retake`
 * (it exists, but its caller was refused: it must not stand for this call), `mismatch` (the job, or the call being
 * stored under the key, has another body), `pending` (the first call with this key is being stored right now),
 * `full` (maxQueued runs wait already) or `ok` (this call stores the job; with a key, it holds the claim).
 */
const ADMIT = `
local function differs(stored, given)
  if stored == given then return false end
  return string.match(stored, '^[^:]*:') == string.match(given, '^[^:]*:')
end
if redis.call('EXISTS', KEYS[1]) == 1 then
  local ok, data = pcall(cjson.decode, redis.call('HGET', KEYS[1], 'data') or '')
  if ok and type(data) == 'table' and type(data.storeId) == 'string' and redis.call('EXISTS', ARGV[6] .. data.storeId) == 1 then
    return 'retake'
  end
  if ARGV[7] ~= '' and ok and type(data) == 'table' and type(data.fingerprint) == 'string' and differs(data.fingerprint, ARGV[7]) then
    return 'mismatch'
  end
  return 'duplicate'
end
local now = tonumber(ARGV[1])
if ARGV[7] ~= '' then
  local claim = redis.call('HMGET', KEYS[4], 'store', 'fingerprint', 'since')
  if claim[1] and claim[1] ~= ARGV[8] and now - tonumber(claim[3] or '0') < tonumber(ARGV[9]) then
    if differs(claim[2] or '', ARGV[7]) then return 'mismatch' end
    return 'pending'
  end
end
local maxQueued = tonumber(ARGV[2])
if maxQueued >= 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - tonumber(ARGV[5]))
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
  local waiting = redis.call('ZCARD', KEYS[2]) - redis.call('ZCARD', KEYS[3])
  if waiting >= maxQueued then return 'full' end
end
if ARGV[7] ~= '' then
  redis.call('HSET', KEYS[4], 'store', ARGV[8], 'fingerprint', ARGV[7], 'since', ARGV[1])
  redis.call('PEXPIRE', KEYS[4], 2 * tonumber(ARGV[9]))
end
if ARGV[3] == '1' then redis.call('ZADD', KEYS[2], now, ARGV[4]) end
return 'ok'`;

/** KEYS: the claim on an idempotency key. ARGV: the store id that holds it. Gives the claim up, if still that store's. */
const UNCLAIM = `
if redis.call('HGET', KEYS[1], 'store') == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/** KEYS: the workflow's running runs. ARGV: now, lease end, limit, job id. 1: the slot is the job's (renewed); 0: all taken. */
const ACQUIRE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZSCORE', KEYS[1], ARGV[4]) or redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[3]) then
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
  redis.call('PEXPIREAT', KEYS[1], ARGV[2])
  return 1
end
return 0`;

/** KEYS: the workflow's running runs, its unfinished runs. ARGV: job id, and 1 when the run has ended for good. */
const RELEASE = `
redis.call('ZREM', KEYS[1], ARGV[1])
if ARGV[2] == '1' then redis.call('ZREM', KEYS[2], ARGV[1]) end
return 1`;

function run(client: QueueCommands, script: string, keys: string[], args: (string | number)[]): Promise<unknown> {
  return client.sendCommand(['EVAL', script, String(keys.length), ...keys, ...args.map(String)]);
}

export type Admission = 'duplicate' | 'retake' | 'mismatch' | 'pending' | 'full' | 'ok';

export interface AdmitArguments {
  maxQueued: number | undefined;
  track: boolean;
  jobId: string;
  staleMs: number;
  refusedPrefix: string;
  /** The body's fingerprint of a call with an idempotency key; undefined without one. */
  fingerprint: string | undefined;
  storeId: string;
  /** How long a claim stands for a call still being stored (its enqueue deadline). */
  claimMs: number;
}

export function admit(client: QueueCommands, keys: [job: string, unfinished: string, running: string, claim: string], args: AdmitArguments): Promise<Admission> {
  return run(client, ADMIT, keys, [
    Date.now(), args.maxQueued ?? -1, args.track ? 1 : 0, args.jobId, args.staleMs, args.refusedPrefix, args.fingerprint ?? '', args.storeId, args.claimMs,
  ]) as Promise<Admission>;
}

export function unclaim(client: QueueCommands, claim: string, storeId: string): Promise<unknown> {
  return run(client, UNCLAIM, [claim], [storeId]);
}

export async function acquireSlot(client: QueueCommands, running: string, jobId: string, limit: number, leaseMs: number): Promise<boolean> {
  const now = Date.now();
  return await run(client, ACQUIRE, [running], [now, now + leaseMs, limit, jobId]) === 1;
}

export function releaseSlot(client: QueueCommands, keys: [running: string, unfinished: string], jobId: string, ended: boolean): Promise<unknown> {
  return run(client, RELEASE, keys, [jobId, ended ? 1 : 0]);
}
