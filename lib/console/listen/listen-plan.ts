/**
 * What the console knows of a listen's calls before one arrives, resolved once as the listen starts: each node's
 * test address as the console reaches the middleware (the curl line's address, never the Host a caller sent), and
 * the header each node's authentication checks, named through the middleware's credentials resolver as the webhook
 * list names a signed node's scheme. Only that name is kept, never the credential, and it is known before the call
 * comes, so the call's secrets are hidden from its first event on. It also notes which nodes make their caller wait
 * for the whole run (responseMode lastNode), whose slow test runs the page warns about.
 */
import { credentialOf } from '../../webhooks/describe/security.js';
import { WebhookError } from '../../core/errors.js';
import { checkedHeaderOf } from '../../webhooks/guards/secrets.js';
import type { RegisteredWebhook } from '../../webhooks/registry/contract.js';
import { resolveWorkflowWebhooks } from '../../webhooks/registry/resolve-workflow.js';
import type { WebhookMiddlewareSettings, WorkflowWebhooks } from '../../core/types.js';

export interface ListenPlan {
  /** Where the test addresses are: `<where the middleware is>/<test prefix>`. */
  testBase: string;
  /** `<node> <METHOD>` → the registered path template (`orders/:id`). */
  paths: Map<string, string>;
  /** Node name → the header its authentication checks (lower case), when it has one. */
  checked: Map<string, string | undefined>;
  /** Names of the nodes whose caller waits for the last node's output (responseMode `lastNode`). */
  callerWaits: Set<string>;
}

function testWebhooksOf(workflow: WorkflowWebhooks): RegisteredWebhook[] {
  try {
    return resolveWorkflowWebhooks(workflow, 'test');
  } catch (error) {
    // A workflow whose nodes do not resolve cannot listen either: listenForTest refuses it with the reason.
    if (error instanceof WebhookError) return [];
    throw error;
  }
}

/** `webhookBase`: where the middleware is, as the console that starts the listen reaches it. */
export async function planListen(workflow: WorkflowWebhooks, settings: WebhookMiddlewareSettings, webhookBase: string): Promise<ListenPlan> {
  const webhooks = testWebhooksOf(workflow);
  const plan: ListenPlan = { testBase: `${webhookBase}/${settings.testPrefix}`, paths: new Map(), checked: new Map(), callerWaits: new Set() };
  const firstOfNode = new Map<string, RegisteredWebhook>();
  for (const webhook of webhooks) {
    plan.paths.set(`${webhook.nodeName} ${webhook.method}`, webhook.path);
    if (!firstOfNode.has(webhook.nodeName)) firstOfNode.set(webhook.nodeName, webhook);
    if (webhook.parameters.responseMode === 'lastNode') plan.callerWaits.add(webhook.nodeName);
  }
  await Promise.all([...firstOfNode.values()].map(async (webhook) => {
    const credential = webhook.parameters.authentication === 'headerAuth' || webhook.parameters.authentication === 'signatureAuth'
      ? await credentialOf(webhook, settings.credentials)
      : undefined;
    plan.checked.set(webhook.nodeName, checkedHeaderOf(webhook.parameters.authentication, credential));
  }));
  return plan;
}
