/**
 * A conflict reported by a script, as the same WebhookConflictError the memory registry throws: the script names
 * the route key and hands over the holder's stored workflow, which is resolved again to find the node that holds it.
 */
import { WebhookConflictError } from '../../../core/errors.js';
import { resolveWorkflowWebhooks } from '../resolve-workflow.js';
import { routeKey } from '../route-table.js';
import type { HttpMethod, WebhookKind, WorkflowWebhooks } from '../../../core/types.js';

export function conflictFrom(key: string, holderWorkflowId: string, holderJson: string, kind: WebhookKind): WebhookConflictError {
  try {
    const workflow = JSON.parse(holderJson) as WorkflowWebhooks;
    const holder = resolveWorkflowWebhooks(workflow, kind).find((webhook) => routeKey(webhook) === key);
    if (holder !== undefined) return new WebhookConflictError(holder);
  } catch {
    // The holder's stored workflow is unreadable here (another version of this library wrote it): name what is known.
  }
  const space = key.indexOf(' ');
  return new WebhookConflictError({
    method: key.slice(0, space) as HttpMethod, path: key.slice(space + 1), workflowId: holderWorkflowId, nodeName: '(unknown)',
  });
}
