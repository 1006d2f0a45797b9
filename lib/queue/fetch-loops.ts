/**
 * The BullMQ workers behind one `createWebhookWorker()`: its concurrency spread over several fetch loops, each a
 * BullMQ `Worker` of its own, so that jobs arriving together are taken together.
 *
 * Why (BullMQ 6.7, node_modules/bullmq/dist/esm/classes/worker.js, `mainLoop`): one BullMQ Worker takes jobs one
 * Redis round trip after another ("we fetch jobs in sequence"), keeps taking while the queue has any and its
 * concurrency allows, and starts none of them until that fetching stops; when the queue is empty it blocks on one
 * `BZPOPMIN` of the queue's marker, and one marker wakes one fetch. So with 10 calls waiting, the first run starts
 * after 10 round trips, and a job added while the loop is busy waits for it. Jobs a worker fetches with its
 * previous job's completion (`moveToFinished` with `fetchNext`) only help when jobs are waiting already, which a
 * caller that waits for its answer never lets happen. Several loops, each blocked on the marker with a connection
 * of its own, take jobs arriving together in parallel, and a loop of concurrency 1 starts each job as soon as it
 * has it. The loops share the command connection; each has its own blocking one.
 */
import { Worker, type Processor } from 'bullmq';
import type { WebhookJobData, WebhookJobResult } from './job-data.js';

/** Fetch loops at most: each holds a blocking connection to Redis. */
export const MAX_FETCH_LOOPS = 8;

export interface LoopOptions {
  connection: object;
  prefix: string;
  concurrency: number;
  lockDuration: number;
  stalledInterval: number;
  maxStalledCount: number;
}

/** The concurrency of each loop: `concurrency` spread over at most MAX_FETCH_LOOPS loops, the first ones taking one more. */
export function loopConcurrencies(concurrency: number): number[] {
  const loops = Math.min(concurrency, MAX_FETCH_LOOPS);
  return Array.from({ length: loops }, (_loop, index) => Math.floor(concurrency / loops) + (index < concurrency % loops ? 1 : 0));
}

/**
 * Starts the loops. Only the first looks for stalled jobs (a dead worker's runs): one look per worker process, as
 * with a single BullMQ Worker; each loop renews the locks of its own jobs.
 */
export function startFetchLoops(name: string, processor: Processor<WebhookJobData, WebhookJobResult>, options: LoopOptions): Worker<WebhookJobData, WebhookJobResult>[] {
  const { concurrency, ...shared } = options;
  return loopConcurrencies(concurrency).map((share, index) => new Worker<WebhookJobData, WebhookJobResult>(name, processor, {
    ...shared,
    connection: shared.connection as never,
    concurrency: share,
    skipStalledCheck: index > 0,
  }));
}
