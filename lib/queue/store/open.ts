/**
 * Opens the store a queue or worker was given: Redis, or PostgreSQL, whose part (and the `pg` package) is loaded
 * only for a PostgreSQL connection, so a host on Redis never loads it.
 */
import type { ResolvedShared } from '../options.js';
import type { OpeningLink, QueueStoreLink } from './contract.js';
import { openRedisLink, type RedisWebSettings } from './redis.js';

/** The web side's connections (with `web` settings) or a worker's. */
export function openLink(options: ResolvedShared, web: RedisWebSettings | undefined): OpeningLink {
  if (options.store === 'redis') return openRedisLink(options, web);
  let opening: OpeningLink | undefined;
  let closed = false;
  const link = import('../postgres/link.js').then((postgres): Promise<QueueStoreLink> => {
    if (closed) throw new Error('closed');
    const opened = postgres.openPostgresLink(options, web !== undefined);
    opening = opened;
    return opened.link;
  });
  return {
    link,
    close: () => {
      closed = true;
      opening?.close();
    },
  };
}
