/**
 * Waiting webhooks' entries in Redis, so that every instance knows every wait: one hash per wait (its status apart
 * from its JSON, so a claim is one atomic step without re-encoding what the workflow stored), expiring a minute after
 * the wait; a sorted set by expiry counts live waits for `maxWaiting` and lets each instance sweep expired ones (one
 * instance wins each, and tells its listeners).
 */
import { checkWaitListLimit, tooManyWaiting } from '../webhooks/registry/waits.js';
import type { WaitClaim, WaitEntry, WaitStatus } from '../core/waits.js';
import { ExpiringWaits, type ExpiredBatch } from '../webhooks/registry/shared/wait-expiry.js';
import type { RegistryKeys } from './keys.js';
import type { RedisLink } from './link.js';
import type { RegistryReplicas } from './registry-replicas.js';
import { script } from './scripts.js';

/** A wait's hash outlives its expiry by this much, so the sweep can still read what expired. */
const KEEP_AFTER_MS = 60_000;
const SWEEP_BATCH = 500;

/**
 * KEYS[1] wait hash, [2] waits set; ARGV[1] id, [2] JSON, [3] status, [4] expiresAt, [5] expect ('' none), [6] maxWaiting,
 * [7] now, [8] keep ms, [9] resumedAt ('' none).
 */
const PUT = script(`
local current = redis.call('HGET', KEYS[1], 'status')
if ARGV[5] ~= '' and current ~= ARGV[5] then return 0 end
if not current and redis.call('ZCOUNT', KEYS[2], '(' .. ARGV[7], '+inf') >= tonumber(ARGV[6]) then return -1 end
redis.call('HSET', KEYS[1], 'status', ARGV[3], 'entry', ARGV[2])
if ARGV[9] == '' then redis.call('HDEL', KEYS[1], 'resumedAt') else redis.call('HSET', KEYS[1], 'resumedAt', ARGV[9]) end
local at = tonumber(ARGV[4])
redis.call('PEXPIREAT', KEYS[1], at + tonumber(ARGV[8]))
redis.call('ZADD', KEYS[2], at, ARGV[1])
return 1`, false);

/**
 * KEYS[1] wait hash, [2] waits set; ARGV[1] resumedAt, [2] now, [3] id. A claim also answers the resume time it
 * replaced ('' none), so it can be given back. An expired wait is left `waiting`: the sweep still tells of it.
 */
const CLAIM = script(`
local found = redis.call('HMGET', KEYS[1], 'status', 'entry', 'resumedAt')
if not found[1] then return {'NONE'} end
local expiresAt = redis.call('ZSCORE', KEYS[2], ARGV[3])
if not expiresAt or tonumber(expiresAt) <= tonumber(ARGV[2]) then return {'NONE'} end
if found[1] ~= 'waiting' then return {'NO', found[1], found[2], found[3] or ''} end
redis.call('HSET', KEYS[1], 'status', 'running', 'resumedAt', ARGV[1])
return {'OK', 'running', found[2], ARGV[1], found[3] or ''}`, false);

/** KEYS[1] waits set; ARGV[1] now, [2] hash key prefix, [3] batch. Returns the entries that expired while waiting. */
const SWEEP = script(`
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
local expired = {}
for _, id in ipairs(ids) do
  redis.call('ZREM', KEYS[1], id)
  local key = ARGV[2] .. id
  local found = redis.call('HMGET', key, 'status', 'entry')
  if found[1] == 'waiting' then table.insert(expired, found[2]) end
  redis.call('DEL', key)
end
return {#ids, expired, redis.call('ZCARD', KEYS[1])}`, false);

/**
 * KEYS[1] waits set; ARGV[1] now, [2] hash key prefix, [3] limit, [4] batch. The index holds running and finished
 * waits too, so it is read in batches, soonest first, until `limit` waiting ones are found: pairs of JSON, resumedAt.
 */
const LIST_WAITING = script(`
local wanted = tonumber(ARGV[3]) * 2
local batch = tonumber(ARGV[4])
local found = {}
local offset = 0
while #found < wanted do
  local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. ARGV[1], '+inf', 'LIMIT', offset, batch)
  for _, id in ipairs(ids) do
    local hash = redis.call('HMGET', ARGV[2] .. id, 'status', 'entry', 'resumedAt')
    if hash[1] == 'waiting' and #found < wanted then
      table.insert(found, hash[2])
      table.insert(found, hash[3] or '')
    end
  end
  if #ids < batch then break end
  offset = offset + batch
end
return found`, false);

/** The entry as stored, with the status and resume time its hash holds apart. */
function entryOf(json: unknown, status: unknown, resumedAt: unknown): WaitEntry {
  const entry = JSON.parse(String(json)) as WaitEntry;
  entry.status = String(status) as WaitStatus;
  if (resumedAt !== '' && resumedAt !== null && resumedAt !== undefined) entry.resumedAt = Number(resumedAt);
  return entry;
}

export class RedisWaits extends ExpiringWaits {
  readonly #link: RedisLink;
  readonly #keys: RegistryKeys;
  readonly #maxWaiting: number;
  readonly #now: () => number;
  readonly #replicas: RegistryReplicas;

  constructor(link: RedisLink, keys: RegistryKeys, maxWaiting: number, now: () => number, replicas: RegistryReplicas) {
    super();
    this.#link = link;
    this.#replicas = replicas;
    this.#keys = keys;
    this.#maxWaiting = maxWaiting;
    this.#now = now;
  }

  /** Stores the entry (when it is new, or its status is `expect`) and, with replica acknowledgement, confirms it. */
  async put(entry: WaitEntry, expect?: WaitStatus): Promise<boolean> {
    const stored = await this.#write(entry, expect);
    if (stored) await this.#replicas.confirmWaitStored(entry.waitId);
    return stored;
  }

  async #write(entry: WaitEntry, expect?: WaitStatus): Promise<boolean> {
    const { status, resumedAt: _resumedAt, ...rest } = entry;
    const reply = await this.#link.script(PUT, [this.#keys.wait(entry.waitId), this.#keys.waits], [
      entry.waitId, JSON.stringify(rest), status, String(Math.round(entry.expiresAt)), expect ?? '', String(this.#maxWaiting),
      String(Math.round(this.#now())), String(KEEP_AFTER_MS), entry.resumedAt === undefined ? '' : String(entry.resumedAt),
    ], 'storing a wait');
    if (Number(reply) === -1) throw tooManyWaiting(this.#maxWaiting);
    this.start();
    return Number(reply) === 1;
  }

  async get(waitId: string): Promise<WaitEntry | undefined> {
    const [status, json, resumedAt] = await this.#link.command(['HMGET', this.#keys.wait(waitId), 'status', 'entry', 'resumedAt'], 'reading a wait') as unknown[];
    if (status === null || status === undefined) return undefined;
    const entry = entryOf(json, status, resumedAt);
    return entry.expiresAt <= this.#now() ? undefined : entry;
  }

  async claim(waitId: string, resumedAt: number): Promise<WaitClaim> {
    const reply = await this.#link.script(CLAIM, [this.#keys.wait(waitId), this.#keys.waits],
      [String(resumedAt), String(Math.round(this.#now())), waitId], 'claiming a wait') as unknown[];
    if (reply[0] === 'NONE') return { claimed: false, entry: undefined };
    const entry = entryOf(reply[2], reply[1], reply[3]);
    if (reply[0] !== 'OK') return { claimed: false, entry };
    await this.#confirmClaim(entry, reply[4]);
    return { claimed: true, entry };
  }

  /** The `waiting` entries not yet expired, soonest expiry first, at most `options.limit`. */
  async listWaiting(options: { limit?: number } | undefined): Promise<WaitEntry[]> {
    const limit = checkWaitListLimit(options);
    const now = this.#now();
    const reply = await this.#link.script(LIST_WAITING, [this.#keys.waits],
      [String(Math.round(now)), this.#keys.waitPrefix, String(limit), String(SWEEP_BATCH)], 'listing the waiting runs') as unknown[];
    const entries: WaitEntry[] = [];
    for (let index = 0; index + 1 < reply.length; index += 2) {
      const entry = entryOf(reply[index], 'waiting', reply[index + 1]);
      if (entry.expiresAt > now) entries.push(entry);
    }
    return entries;
  }

  /** One batch of the expired waits, removed by one script: one instance removes (and tells) each. */
  protected override async removeExpired(): Promise<ExpiredBatch> {
    const [count, expired, left] = await this.#link.script(SWEEP, [this.#keys.waits],
      [String(Math.round(this.#now())), this.#keys.waitPrefix, String(SWEEP_BATCH)], 'removing expired waits') as [number, string[], number];
    return {
      waiting: expired.map((json) => entryOf(json, 'waiting', undefined)),
      full: Number(count) >= SWEEP_BATCH,
      anyLeft: () => Promise.resolve(Number(left) !== 0),
    };
  }

  /** A claim the replicas did not confirm is given back (waiting again, if still this claim), and refused. */
  async #confirmClaim(entry: WaitEntry, replaced: unknown): Promise<void> {
    try {
      await this.#replicas.confirmWaitClaimed(entry.waitId);
    } catch (error) {
      // As it was before the claim: waiting, with the resume time of an earlier resume, if any.
      const { resumedAt: _claimedAt, ...claimed } = entry;
      const before: WaitEntry = replaced === '' || replaced === undefined || replaced === null ? { ...claimed, status: 'waiting' }
        : { ...claimed, status: 'waiting', resumedAt: Number(replaced) };
      // Not confirmed either: the replicas are behind already, and waiting for them again would only delay the refusal.
      await this.#write(before, 'running').catch(() => undefined);
      throw error;
    }
  }
}
