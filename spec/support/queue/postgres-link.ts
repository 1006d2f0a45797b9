/**
 * Opens queue mode's PostgreSQL store link for a spec, as the web queue or a worker would, on a schema of its own and
 * a queue name of its own, with a clock the spec moves (the limits are kept by the callers' clocks).
 */
import { resolveQueueOptions } from '../../../lib/queue/options.js';
import { openPostgresLink } from '../../../lib/queue/postgres/link.js';
import type { QueueStoreLink } from '../../../lib/queue/store/contract.js';

export interface SpecLink {
  link: QueueStoreLink;
  /** The queue's name. */
  name: string;
  /** The time the link reads, in epoch ms; a spec moves it. */
  clock: { now: number };
  /** What the link told the host's logger at warn level. */
  warnings: string[];
  close(): Promise<void>;
}

let next = 0;

/** A name no other test of this run (nor a concurrent run) uses: for a schema or a queue. */
export function freshName(what: string): string {
  next += 1;
  return `${what}_${process.pid}_${next}`;
}

/** `connection`: a URL, a pg.Pool or a pool config. `clock`: another link's, so two links (a web queue and a worker) read one time. */
export async function openSpecLink(connection: unknown, schema: string, name = freshName('queue'), web = true, clock = { now: Date.now() }): Promise<SpecLink> {
  const warnings: string[] = [];
  const logger = { info: () => undefined, debug: () => undefined, error: (_: unknown, text?: string) => { warnings.push(String(text)); }, warn: (_: unknown, text?: string) => { warnings.push(String(text)); } };
  const options = resolveQueueOptions({ connection: connection as never, schema, name, logger });
  const opening = openPostgresLink(options, web, () => clock.now);
  const link = await opening.link;
  return { link, name, clock, warnings, close: () => link.close() };
}
