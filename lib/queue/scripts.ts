/**
 * The Lua scripts of queue mode's limits, each one atomic step in Redis: admitting a call (a repeat of a stored
 * call, or one run too many waiting), and the leases of a workflow's concurrency slots. Every instance and worker
 * runs the same scripts on the same keys, so the limits hold across the cluster.
 */
import type { QueueRedisClient } from './connection.js';

/**
 * KEYS: the job's hash, the workflow's unfinished runs, its running runs. ARGV: now, maxQueued (-1: none), whether
 * to track the run (1/0), job id, how old an unfinished entry may grow before it counts as lost, and the prefix of
 * the refusal marks. Answers `duplicate` (the job exists), `retake` (it exists, but its caller was refused: it
 * must not stand for this call), `full` (maxQueued runs wait already) or `ok` (tracked from now on).
 */
const ADMIT = `
if redis.call('EXISTS', KEYS[1]) == 1 then
  local ok, data = pcall(cjson.decode, redis.call('HGET', KEYS[1], 'data') or '')
  if ok and type(data) == 'table' and type(data.storeId) == 'string' and redis.call('EXISTS', ARGV[6] .. data.storeId) == 1 then
    return 'retake'
  end
  return 'duplicate'
end
local now = tonumber(ARGV[1])
local maxQueued = tonumber(ARGV[2])
if maxQueued >= 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - tonumber(ARGV[5]))
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
  local waiting = redis.call('ZCARD', KEYS[2]) - redis.call('ZCARD', KEYS[3])
  if waiting >= maxQueued then return 'full' end
end
if ARGV[3] == '1' then redis.call('ZADD', KEYS[2], now, ARGV[4]) end
return 'ok'`;

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

function run(client: QueueRedisClient, script: string, keys: string[], args: (string | number)[]): Promise<unknown> {
  return client.sendCommand(['EVAL', script, String(keys.length), ...keys, ...args.map(String)]);
}

export type Admission = 'duplicate' | 'retake' | 'full' | 'ok';

export function admit(client: QueueRedisClient, keys: [job: string, unfinished: string, running: string],
  args: { maxQueued: number | undefined; track: boolean; jobId: string; staleMs: number; refusedPrefix: string }): Promise<Admission> {
  return run(client, ADMIT, keys, [Date.now(), args.maxQueued ?? -1, args.track ? 1 : 0, args.jobId, args.staleMs, args.refusedPrefix]) as Promise<Admission>;
}

export async function acquireSlot(client: QueueRedisClient, running: string, jobId: string, limit: number, leaseMs: number): Promise<boolean> {
  const now = Date.now();
  return await run(client, ACQUIRE, [running], [now, now + leaseMs, limit, jobId]) === 1;
}

export function releaseSlot(client: QueueRedisClient, keys: [running: string, unfinished: string], jobId: string, ended: boolean): Promise<unknown> {
  return run(client, RELEASE, keys, [jobId, ended ? 1 : 0]);
}
