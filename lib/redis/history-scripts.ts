/**
 * The Lua scripts of the Redis history store, each one atomic step in Redis: a batch appended and trimmed, the
 * retention applied, a chunk of the index read newest first with its records, a replay claimed or given back.
 * Layout (every key under one prefix, so one hash slot on a cluster): a sorted set, the index, whose members are the
 * records' ids, all scored 0 so that it sorts by id, which is by arrival (see lib/webhooks/history/ids.ts); and one
 * hash per record (`record`: its JSON as written; `replays`: the count a claim increments in place, which wins), expiring
 * when the record leaves the retention, so an expired call is gone from Redis itself even if no instance prunes.
 * Record keys are the prefix and the id; the scripts build them from the prefix they are given, as they learn the
 * ids from the index.
 */
import { script } from './scripts.js';

/**
 * Removes from the index, oldest first, at most `budget` records: those older than the retention's age (ids before
 * `oldest`, their hashes deleted), then those Redis already expired or evicted (their hash gone), then the oldest past
 * `maxEntries`. Answers how many went.
 */
const TRIM = `
local function trim(index, prefix, oldest, max_entries, budget)
  local aged = redis.call('ZRANGEBYLEX', index, '-', '(' .. oldest, 'LIMIT', 0, budget)
  for _, id in ipairs(aged) do
    redis.call('DEL', prefix .. id)
    redis.call('ZREM', index, id)
  end
  local gone = #aged
  local kept = false
  while not kept and gone < budget do
    local ids = redis.call('ZRANGEBYLEX', index, '-', '+', 'LIMIT', 0, math.min(100, budget - gone))
    if #ids == 0 then break end
    for _, id in ipairs(ids) do
      if redis.call('EXISTS', prefix .. id) == 1 then
        kept = true
        break
      end
      redis.call('ZREM', index, id)
      gone = gone + 1
    end
  end
  local excess = math.min(redis.call('ZCARD', index) - max_entries, budget - gone)
  if excess > 0 then
    local oldest_ids = redis.call('ZRANGEBYLEX', index, '-', '+', 'LIMIT', 0, excess)
    for _, id in ipairs(oldest_ids) do
      redis.call('DEL', prefix .. id)
      redis.call('ZREM', index, id)
    end
    gone = gone + #oldest_ids
  end
  return gone
end
`;

/**
 * KEYS[1] index; ARGV[1] record key prefix, [2] now (ms), [3] oldest id kept (`firstIdAt(now - maxAgeMs)`),
 * [4] maxEntries, [5] trim budget, then per record from [6]: id, JSON, replays, expiry (ms). A record already past
 * its expiry is not kept, and one already kept stays as it is: a batch written again after its answer was lost
 * must not undo the replays claimed since. The index expires with its newest record, so a prefix no instance writes
 * to any more leaves nothing behind. Answers how many records the trim removed.
 */
export const APPEND = script(`${TRIM}
local index, prefix = KEYS[1], ARGV[1]
local now = tonumber(ARGV[2])
local newest = 0
for i = 6, #ARGV, 4 do
  local expires = tonumber(ARGV[i + 3])
  if expires > now then
    local key = prefix .. ARGV[i]
    if redis.call('HSETNX', key, 'record', ARGV[i + 1]) == 1 then
      redis.call('HSET', key, 'replays', ARGV[i + 2])
      redis.call('PEXPIREAT', key, expires)
    end
    redis.call('ZADD', index, 0, ARGV[i])
    if expires > newest then newest = expires end
  end
end
if newest > 0 then
  local ttl = redis.call('PTTL', index)
  if ttl < 0 or now + ttl < newest then redis.call('PEXPIREAT', index, newest) end
end
return trim(index, prefix, ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5]))`, false);

/** KEYS[1] index; ARGV[1] record key prefix, [2] oldest id kept, [3] maxEntries, [4] trim budget. Answers how many went. */
export const PRUNE = script(`${TRIM}
return trim(KEYS[1], ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]))`, false);

/**
 * KEYS[1] index; ARGV[1] record key prefix, [2] greatest id (a ZREVRANGEBYLEX bound: `+`, `(id`), [3] least id
 * (`-`, `[id`), [4] how many. Answers, newest first, per id read: the id, its JSON ('' when Redis expired it but the
 * index still names it) and its replays.
 */
export const READ_CHUNK = script(`
local ids = redis.call('ZREVRANGEBYLEX', KEYS[1], ARGV[2], ARGV[3], 'LIMIT', 0, tonumber(ARGV[4]))
local found = {}
for _, id in ipairs(ids) do
  local hash = redis.call('HMGET', ARGV[1] .. id, 'record', 'replays')
  found[#found + 1] = id
  found[#found + 1] = hash[1] or ''
  found[#found + 1] = hash[2] or '0'
end
return found`, false);

/**
 * KEYS[1] record hash; ARGV[1] '1' to claim a call replayed before. Answers {'MISSING'}, {'BEFORE', replays} or
 * {'CLAIMED', replays}: the check and the count are one step, so of two racing claims without `again` one wins.
 */
export const CLAIM_REPLAY = script(`
if redis.call('EXISTS', KEYS[1]) == 0 then return {'MISSING'} end
local replays = tonumber(redis.call('HGET', KEYS[1], 'replays') or '0')
if replays > 0 and ARGV[1] ~= '1' then return {'BEFORE', replays} end
return {'CLAIMED', redis.call('HINCRBY', KEYS[1], 'replays', 1)}`, false);

/** KEYS[1] record hash. Takes one claim back; a record that expired meanwhile (or was never claimed) is left alone. */
export const GIVE_BACK_REPLAY = script(`
local replays = tonumber(redis.call('HGET', KEYS[1], 'replays') or '0')
if replays > 0 then redis.call('HINCRBY', KEYS[1], 'replays', -1) end
return replays`, false);
