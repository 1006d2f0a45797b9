/**
 * The Wait nodes of an exported workflow that resume on a webhook call ("Resume: On Webhook Call"), read into the
 * options of `run.waitForCall()` and `run.suspend()`: the Webhook node's parameters they share, the authentication
 * the Wait node keeps as `incomingAuthentication`, its `webhookSuffix`, and its time limit as `expiresInMs`.
 */
import { WebhookError } from '../../core/errors.js';
import type { SuspendOptions } from '../../core/waits.js';

/** The known platform's Wait node type. */
export const WAIT_NODE_TYPE = 'n8n-nodes-base.wait';

const UNIT_MS: Record<string, number> = { seconds: 1000, minutes: 60_000, hours: 3_600_000, days: 86_400_000 };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A Wait node's parameters (already read as literals) as wait options; undefined when it does not resume on a call. */
export function waitOptionsOf(workflowId: string, name: string, parameters: Record<string, unknown>, credentials: unknown): SuspendOptions | undefined {
  if (parameters.resume !== 'webhook') return undefined;
  const { webhookSuffix, ...options } = isObject(parameters.options) ? parameters.options : {};
  const wait: SuspendOptions = { nodeName: name };
  for (const key of ['httpMethod', 'responseMode', 'responseData', 'responseCode'] as const) {
    if (parameters[key] !== undefined) (wait as Record<string, unknown>)[key] = parameters[key];
  }
  const authentication = parameters.incomingAuthentication ?? parameters.authentication;
  if (authentication !== undefined) wait.authentication = authentication as SuspendOptions['authentication'];
  if (credentials !== undefined) wait.credentials = credentials;
  if (typeof webhookSuffix === 'string' && webhookSuffix.trim() !== '') wait.suffix = webhookSuffix.trim().replace(/^\/+|\/+$/g, '');
  if (Object.keys(options).length > 0) wait.options = options;
  if (parameters.limitWaitTime === true && (parameters.limitType ?? 'afterTimeInterval') === 'afterTimeInterval') {
    const amount = Number(parameters.resumeAmount ?? 1);
    const unit = UNIT_MS[String(parameters.resumeUnit ?? 'hours')];
    if (unit === undefined || !(amount > 0)) {
      throw new WebhookError('WEBHOOK_INVALID_NODE', `Workflow "${workflowId}", Wait node "${name}": its time limit (${String(parameters.resumeAmount)} ${String(parameters.resumeUnit)}) is not a positive amount of seconds, minutes, hours or days.`);
    }
    wait.expiresInMs = Math.round(amount * unit);
  }
  return wait;
}
