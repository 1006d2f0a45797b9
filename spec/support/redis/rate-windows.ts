/**
 * The Redis side of the rate-limit contract's clock: Redis measures a budget's window by the key's own expiry, so a
 * spec moves that clock on by shortening the expiry of every budget under a registry's prefix (a budget whose window
 * would have ended is removed, as Redis would have removed it).
 */
import { sendVia, slotPrefix, topologyOf } from '../../../lib/redis/topology.js';

/** Ends every rate-limit window under `prefix` `ms` sooner, on any topology (a cluster keeps them on one slot). */
export async function shortenRateWindows(client: object, prefix: string, ms: number): Promise<void> {
  const topology = topologyOf(client);
  const real = slotPrefix(prefix, topology, 'workflow-webhooks');
  const send = (args: string[]): Promise<unknown> => sendVia(client, topology, args, `${real}rate:`);
  let cursor = '0';
  do {
    const reply = await send(['SCAN', cursor, 'MATCH', `${real}rate*`, 'COUNT', '1000']) as [string, string[]] | { cursor: string | number; keys: string[] };
    const [next, keys] = Array.isArray(reply) ? reply : [String(reply.cursor), reply.keys];
    cursor = String(next);
    for (const key of keys) {
      const left = Number(await send(['PTTL', key]));
      if (left < 0) continue;
      await send(left <= ms ? ['DEL', key] : ['PEXPIRE', key, String(left - ms)]);
    }
  } while (cursor !== '0');
}
