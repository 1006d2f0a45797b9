/**
 * Tells the host, once per queue or worker, when its key prefix is used in a hash tag on Redis Cluster: the keys
 * are then not where a dashboard or script given the bare prefix would look for them.
 */
import type { ResolvedShared } from './options.js';

export function warnIfPrefixWrapped(options: ResolvedShared, factory: string): void {
  if (options.prefix === options.givenPrefix) return;
  options.logger.warn({ prefix: options.prefix, givenPrefix: options.givenPrefix, queue: options.name },
    `${factory}: on Redis Cluster every key of a queue must share one hash slot, so the prefix "${options.givenPrefix}" is used as "${options.prefix}"; ` +
    `give prefix: '${options.prefix}' to the queue, its workers and your dashboard to say so yourself`);
}
