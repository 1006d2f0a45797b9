/**
 * Signed webhooks' message ids, remembered in Redis so that a replay is refused by whichever instance it reaches:
 * one `SET … NX PX` per id (atomic: of two instances receiving the same id at once, exactly one sees it new), under a
 * digest of the id so that a sender's long ids make short keys.
 */
import { digestOf } from '../webhooks/registry/shared/digests.js';
import type { RegistryKeys } from './keys.js';
import type { RedisLink } from './link.js';

export async function rememberMessageId(link: RedisLink, keys: RegistryKeys, key: string, ttlMs: number): Promise<boolean> {
  const digest = digestOf(key);
  const reply = await link.command(['SET', keys.messageId(digest), '1', 'NX', 'PX', String(Math.max(1, Math.ceil(ttlMs)))],
    'while checking a signed message id');
  return reply !== null;
}
