/**
 * The Lua scripts that change the registry's state. Each runs atomically in Redis: it checks the store's epoch
 * (a Redis that came back empty refuses every change) and the caller's deadline (a change that arrives after its
 * caller gave up is dropped, never applied late), makes the change, and appends one numbered entry to the change
 * log that every instance reads. Replies are tables whose first element says what happened.
 */
import { createHash } from 'node:crypto';

export interface Script {
  source: string;
  sha: string;
}

/** A script; `guarded` ones start with the epoch and deadline checks of PREAMBLE. */
export function script(body: string, guarded = true): Script {
  const source = guarded ? `${PREAMBLE}\n${body}` : body;
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

/**
 * KEYS[1] epoch, KEYS[2] version, KEYS[3] log; ARGV[1] epoch, ARGV[2] deadline (Redis time, ms; 0 none),
 * ARGV[3] log length. `log(...)` numbers the entry and appends it.
 */
const PREAMBLE = `
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local epoch = redis.call('GET', KEYS[1])
if epoch ~= ARGV[1] then return {'EPOCH', epoch or ''} end
local deadline = tonumber(ARGV[2])
if deadline > 0 and now > deadline then return {'LATE'} end
local function log(...)
  local v = redis.call('INCR', KEYS[2])
  redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[3], '*', 'v', v, ...)
  return tostring(v)
end
`;

/** KEYS[4] workflows, [5] routes, [6] workflow-routes; ARGV[4] workflowId, [5] workflow JSON, [6..] route keys. */
export const ACTIVATE = script(`
local id = ARGV[4]
for i = 6, #ARGV do
  local owner = redis.call('HGET', KEYS[5], ARGV[i])
  if owner and owner ~= id then return {'CONFLICT', ARGV[i], owner, redis.call('HGET', KEYS[4], owner) or ''} end
end
local earlier = redis.call('HGET', KEYS[6], id)
if earlier then
  for _, key in ipairs(cjson.decode(earlier)) do
    if redis.call('HGET', KEYS[5], key) == id then redis.call('HDEL', KEYS[5], key) end
  end
end
local keys = {}
for i = 6, #ARGV do
  redis.call('HSET', KEYS[5], ARGV[i], id)
  keys[#keys + 1] = ARGV[i]
end
redis.call('HSET', KEYS[4], id, ARGV[5])
redis.call('HSET', KEYS[6], id, #keys == 0 and '[]' or cjson.encode(keys))
return {'OK', log('op', 'activate', 'id', id, 'workflow', ARGV[5])}
`);

/** Same keys as ACTIVATE; ARGV[4] workflowId. Logged even when the store had nothing, so stale tables drop it. */
export const DEACTIVATE = script(`
local id = ARGV[4]
local earlier = redis.call('HGET', KEYS[6], id)
if earlier then
  for _, key in ipairs(cjson.decode(earlier)) do
    if redis.call('HGET', KEYS[5], key) == id then redis.call('HDEL', KEYS[5], key) end
  end
  redis.call('HDEL', KEYS[4], id)
  redis.call('HDEL', KEYS[6], id)
end
return {earlier and 'OK' or 'NONE', log('op', 'deactivate', 'id', id)}
`);

/** Ends a listen: frees its addresses, drops its record, logs why. KEYS[4] listens, [5] test-routes, [6] test-workflows. */
const END_LISTEN = `
local function end_listen(listen_id, reason)
  local raw = redis.call('HGET', KEYS[4], listen_id)
  if not raw then return nil end
  local record = cjson.decode(raw)
  for _, key in ipairs(record.listen.routeKeys) do
    if redis.call('HGET', KEYS[5], key) == listen_id then redis.call('HDEL', KEYS[5], key) end
  end
  if redis.call('HGET', KEYS[6], record.listen.workflowId) == listen_id then redis.call('HDEL', KEYS[6], record.listen.workflowId) end
  redis.call('HDEL', KEYS[4], listen_id)
  log('op', 'unlisten', 'listen', listen_id, 'reason', reason)
  return raw
end
local function alive(listen_id)
  local raw = redis.call('HGET', KEYS[4], listen_id)
  if not raw then return nil end
  local record = cjson.decode(raw)
  if record.expiresAt < now then return nil end
  return record, raw
end
`;

/**
 * ARGV[4] listenId, [5] workflowId, [6] the listen's JSON (workflow, route keys, window), [7] window ms,
 * [8..] route keys. Another live workflow on one of the addresses refuses; the workflow's earlier listen is replaced
 * (its id comes back fourth).
 */
export const LISTEN = script(`${END_LISTEN}
local listen_id, workflow_id = ARGV[4], ARGV[5]
for i = 8, #ARGV do
  local other = redis.call('HGET', KEYS[5], ARGV[i])
  if other then
    local record, raw = alive(other)
    if record and record.listen.workflowId ~= workflow_id then return {'CONFLICT', ARGV[i], raw} end
  end
end
local earlier = redis.call('HGET', KEYS[6], workflow_id)
if earlier and not end_listen(earlier, 'replaced') then earlier = false end
local expires_at = now + tonumber(ARGV[7])
local record = '{"expiresAt":' .. expires_at .. ',"listen":' .. ARGV[6] .. '}'
redis.call('HSET', KEYS[4], listen_id, record)
for i = 8, #ARGV do redis.call('HSET', KEYS[5], ARGV[i], listen_id) end
redis.call('HSET', KEYS[6], workflow_id, listen_id)
local v = log('op', 'listen', 'listen', record)
return {'OK', tostring(expires_at), v, earlier or ''}
`);

/** ARGV[4] listenId. Exactly one caller gets OK while the listen is live; the others get GONE. */
export const CLAIM = script(`${END_LISTEN}
local record = alive(ARGV[4])
if not record then return {'GONE'} end
return {'OK', end_listen(ARGV[4], 'received')}
`);

/** ARGV[4] listenId, [5] reason (cancelled, timedOut). GONE when a call claimed it first or it ended otherwise. */
export const END = script(`${END_LISTEN}
if not end_listen(ARGV[4], ARGV[5]) then return {'GONE'} end
return {'OK'}
`);

/** KEYS[4] the relay key; ARGV[4] listenId, [5] step (arrived, settled), [6] payload, [7] its lifetime in ms. */
export const RELAY = script(`
redis.call('SET', KEYS[4], ARGV[6], 'PX', ARGV[7])
return {'OK', log('op', ARGV[5], 'listen', ARGV[4])}
`);

/** Read only, atomic: everything an instance needs to rebuild its tables, and where the log stood then. */
export const SNAPSHOT = script(`
local clock = redis.call('TIME')
local last = redis.call('XREVRANGE', KEYS[3], '+', '-', 'COUNT', 1)
return {
  redis.call('GET', KEYS[1]) or '',
  redis.call('GET', KEYS[2]) or '0',
  last[1] and last[1][1] or '0-0',
  tostring(tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)),
  redis.call('HGETALL', KEYS[4]),
  redis.call('HGETALL', KEYS[5]),
}`, false);

/**
 * KEYS[1] epoch, KEYS[2] the digest key; ARGV[1] a new id, ARGV[2] a key (base64). The first instance to ask sets
 * each; everyone gets the ones that hold.
 */
export const ENSURE_EPOCH_AND_KEY = script(`redis.call('SET', KEYS[1], ARGV[1], 'NX')
redis.call('SET', KEYS[2], ARGV[2], 'NX')
return {redis.call('GET', KEYS[1]), redis.call('GET', KEYS[2])}`, false);
