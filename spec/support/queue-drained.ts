/**
 * The event a negative assertion about queue runs waits for ("ran once", "no duplicate"): the queue holds no job left
 * to run. From then on no run can still happen, so asserting "once" is final, not a guess made after a fixed sleep.
 */
import type { WebhookQueue } from '../../lib/queue/index.js';

/** Resolves once no job is waiting, active, delayed or prioritized; throws after `limitMs`. */
export async function queueDrained(queue: Pick<WebhookQueue, 'bullQueue'>, limitMs = 10_000): Promise<void> {
  const until = Date.now() + limitMs;
  for (;;) {
    const counts = await queue.bullQueue.getJobCounts('wait', 'active', 'delayed', 'prioritized', 'waiting-children');
    if (Object.values(counts).every((count) => count === 0)) return;
    if (Date.now() > until) throw new Error(`the queue did not drain within ${limitMs} ms: ${JSON.stringify(counts)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
