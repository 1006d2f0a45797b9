/**
 * Rate limit budgets in Redis, shared by every instance: one script per call checks every budget of the call and
 * charges all or none, atomically, so N instances together let exactly `limit` calls through per window. Each budget
 * is a counter whose expiry is the end of its window, set by Redis when the first call opens it: Redis' own clock
 * measures every window, so no instance's clock (or its skew) can stretch one, and a budget is gone once its window
 * is. A scope (a policy at one address) also counts the caller budgets it opened in its window; past `maxKeys`, new
 * callers share its overflow budget, so a flood of invented keys cannot grow Redis without bound. Keys hold digests
 * only, under the registry's prefix: on a cluster they share its hash slot, as a script's keys must. Calls let through
 * while Redis could not count them are added to their budgets once it can (`add`), unchecked.
 */
import { keyPart } from '../webhooks/registry/shared/digests.js';
import type { RateLimitCharge, RateLimitResult } from '../core/rate-limits.js';
import type { RegistryKeys } from './keys.js';
import { RedisLink } from './link.js';
import type { ResolvedRedisOptions } from './options.js';
import { script } from './scripts.js';

/**
 * KEYS, three per charge: its budget, its scope's count of opened caller budgets, its scope's overflow budget.
 * ARGV, four per charge: limit, window ms, most caller budgets per window, 1 when callers have budgets of their own.
 * Replies { allowed (1|0), remaining per charge…, ms left of each window… }.
 */
export const CHARGE = script(`
local n = #ARGV / 4
local use, count, left, fresh = {}, {}, {}, {}
local allowed = 1
for i = 1, n do
  local key = KEYS[i * 3 - 2]
  local ttl = redis.call('PTTL', key)
  if ttl <= 0 and ARGV[i * 4] == '1' then
    local opened = KEYS[i * 3 - 1]
    local so_far = redis.call('PTTL', opened) > 0 and tonumber(redis.call('GET', opened) or '0') or 0
    if so_far >= tonumber(ARGV[i * 4 - 1]) then
      key = KEYS[i * 3]
      ttl = redis.call('PTTL', key)
    end
  end
  use[i], fresh[i] = key, ttl <= 0
  if fresh[i] then
    count[i], left[i] = 0, tonumber(ARGV[i * 4 - 2])
  else
    count[i], left[i] = tonumber(redis.call('GET', key) or '0'), ttl
  end
  if count[i] >= tonumber(ARGV[i * 4 - 3]) then allowed = 0 end
end
if allowed == 1 then
  for i = 1, n do
    local window = ARGV[i * 4 - 2]
    if fresh[i] then
      redis.call('SET', use[i], 1, 'PX', window)
      local opened = KEYS[i * 3 - 1]
      if use[i] == KEYS[i * 3 - 2] and ARGV[i * 4] == '1' then
        if redis.call('PTTL', opened) > 0 then redis.call('INCR', opened) else redis.call('SET', opened, 1, 'PX', window) end
      end
    else
      redis.call('INCR', use[i])
    end
    count[i] = count[i] + 1
  end
end
local reply = { allowed }
for i = 1, n do reply[#reply + 1] = math.max(0, tonumber(ARGV[i * 4 - 3]) - count[i]) end
for i = 1, n do reply[#reply + 1] = math.max(1, left[i]) end
return reply
`, false);

/**
 * Calls let through while Redis could not count them, added to their budgets unchecked: KEYS one budget per entry,
 * ARGV calls and window ms per entry. A budget whose window ended opens a new one holding those calls.
 */
export const ADD = script(`
for i = 1, #KEYS do
  local calls, window = tonumber(ARGV[i * 2 - 1]), ARGV[i * 2]
  if redis.call('PTTL', KEYS[i]) > 0 then redis.call('INCRBY', KEYS[i], calls) else redis.call('SET', KEYS[i], calls, 'PX', window) end
end
return #KEYS
`, false);

export class RedisRateLimits {
  readonly #link: RedisLink;
  readonly #keys: RegistryKeys;

  constructor(options: ResolvedRedisOptions, keys: RegistryKeys) {
    this.#keys = keys;
    // A connection of its own: calls' counting never queues behind the registry's changes, nor they behind it.
    this.#link = new RedisLink(options.client, options.commandTimeoutMs, () => undefined, { topology: options.topology, key: keys.epoch });
  }

  async charge(charges: readonly RateLimitCharge[]): Promise<RateLimitResult> {
    const keys: string[] = [];
    const args: string[] = [];
    for (const charge of charges) {
      const scope = keyPart(charge.scope);
      keys.push(this.#keys.rateBudget(keyPart(charge.budget)), this.#keys.rateOpened(scope), this.#keys.rateBudget(`${scope}:overflow`));
      args.push(String(charge.limit), String(charge.windowMs), String(charge.maxKeys), charge.budget === charge.scope ? '0' : '1');
    }
    const reply = await this.#link.script(CHARGE, keys, args, 'counting a rate-limited call') as number[];
    const n = charges.length;
    return { allowed: reply[0] === 1, remaining: reply.slice(1, 1 + n).map(Number), resetMs: reply.slice(1 + n, 1 + 2 * n).map(Number) };
  }

  async add(charges: readonly RateLimitCharge[], calls: readonly number[]): Promise<void> {
    const keys = charges.map((charge) => this.#keys.rateBudget(keyPart(charge.budget)));
    const args = charges.flatMap((charge, index) => [String(calls[index] ?? 0), String(charge.windowMs)]);
    await this.#link.script(ADD, keys, args, 'adding the calls counted without Redis');
  }

  close(): void {
    this.#link.close();
  }
}
