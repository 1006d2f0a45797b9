/**
 * Queue mode's store on PostgreSQL: not in this build yet. A PostgreSQL connection is recognised and refused when
 * the queue or worker opens it, with the reason.
 */
import type { ResolvedShared } from '../options.js';
import type { OpeningLink } from '../store/contract.js';

export function openPostgresLink(_options: ResolvedShared, _web: boolean): OpeningLink {
  const link = Promise.reject(new Error('workflow-webhooks/queue: queue mode on PostgreSQL is not in this build yet.'));
  link.catch(() => undefined);
  return { link, close: () => undefined };
}
