/**
 * The callback pattern, waiting inside the run: `POST conversions` hands a document to a (pretend) conversion
 * service together with the run's resume address, and the run waits there until the service calls back with the
 * result, or gives up after `callbackWithinSeconds` (default 60). A draft: the editor tests it before it goes live.
 */
import type { Item, WebhookRun, WorkflowWebhooks } from 'workflow-webhooks';
import type { Step } from './executor.js';

export const CALLBACK_DRAFT: WorkflowWebhooks = {
  workflowId: 'conversion',
  workflowName: 'Document conversion (draft)',
  nodes: [{ name: 'Webhook', parameters: { path: 'conversions', httpMethod: 'POST' } }],
};

export function callbackSteps(): Step[] {
  return [{
    type: 'code',
    async run(items: Item[], run: WebhookRun): Promise<Item[]> {
      const body = (items[0]?.json as { body?: { document?: unknown; callbackWithinSeconds?: unknown } } | undefined)?.body ?? {};
      const seconds = typeof body.callbackWithinSeconds === 'number' && body.callbackWithinSeconds > 0 ? body.callbackWithinSeconds : 60;
      // A real workflow sends run.resumeUrl to the service here; the service calls it when the work is done.
      const callback = await run.waitForCall({ timeoutMs: seconds * 1000 });
      return [{ json: { document: body.document ?? null, result: (callback.json as { body?: unknown }).body ?? null } }];
    },
  }];
}
