/**
 * A wait's options, checked and defaulted the way a Webhook node's parameters are (the same resolver, so guards,
 * payload parsing and response plans treat a resume call as any webhook call), and the webhook a resume call matches.
 */
import { WebhookError } from '../../core/errors.js';
import { resolveLimits } from '../../core/option-limits.js';
import { resolveParameters } from '../registry/resolve-workflow.js';
import { resolvePayloadSchemas, type ResolvedPayloadSchemas } from '../registry/payload-schemas.js';
import type { RegisteredWebhook, ResolvedWebhookParameters } from '../registry/contract.js';
import type { PayloadLimits } from '../body/limits.js';
import type { RequestLimits } from '../request/limits.js';
import type { HttpMethod, WebhookNode } from '../../core/types.js';
import { SUFFIX } from './address.js';
import type { WaitEntry, WaitOptions } from '../../core/waits.js';

export interface ResolvedWait {
  nodeName: string;
  suffix: string;
  parameters: ResolvedWebhookParameters;
  credentials: unknown;
  limits: Readonly<PayloadLimits & RequestLimits>;
  /** The resume call's schemas, compiled (a schema seen lately is not compiled again). */
  schemas: ResolvedPayloadSchemas | undefined;
}

const KNOWN = new Set(['httpMethod', 'suffix', 'responseMode', 'responseData', 'responseCode', 'authentication', 'credentials',
  'options', 'limits', 'nodeName', 'timeoutMs', 'expiresInMs', 'state', 'schemas']);

function invalid(nodeName: string, message: string): WebhookError {
  return new WebhookError('WEBHOOK_INVALID_NODE', `Wait "${nodeName}": ${message}`, {
    hint: 'A wait takes the options of a Wait node set to resume on a webhook call: httpMethod, suffix, responseMode, responseData, '
      + 'responseCode, authentication, credentials, options, limits, nodeName, schemas, and timeoutMs (waitForCall) or state and expiresInMs (suspend).',
  });
}

/** The wait's options resolved; throws WEBHOOK_INVALID_NODE naming what is wrong. */
export function resolveWait(wait: WaitOptions, middlewareLimits: Readonly<PayloadLimits & RequestLimits>): ResolvedWait {
  if (typeof wait !== 'object' || wait === null || Array.isArray(wait)) throw invalid('Wait', 'the options must be an object.');
  const nodeName = wait.nodeName ?? 'Wait';
  if (typeof nodeName !== 'string' || nodeName.trim() === '') throw invalid('Wait', 'nodeName must be a non-empty string.');
  const unknown = Object.keys(wait).filter((key) => !KNOWN.has(key));
  if (unknown.length > 0) throw invalid(nodeName, `${unknown.join(', ')} ${unknown.length === 1 ? 'is not an option' : 'are not options'} of a wait.`);
  const suffix = wait.suffix ?? '';
  if (typeof suffix !== 'string' || (suffix !== '' && !SUFFIX.test(suffix))) {
    throw invalid(nodeName, `suffix must be URL-safe path segments such as "approve"; got ${JSON.stringify(suffix)}.`);
  }
  const httpMethod = wait.httpMethod ?? 'POST';
  const node: WebhookNode = {
    name: nodeName,
    parameters: {
      path: '',
      httpMethod,
      multipleMethods: Array.isArray(httpMethod),
      ...(wait.responseMode === undefined ? {} : { responseMode: wait.responseMode }),
      ...(wait.responseData === undefined ? {} : { responseData: wait.responseData }),
      ...(wait.responseCode === undefined ? {} : { responseCode: wait.responseCode }),
      ...(wait.authentication === undefined ? {} : { authentication: wait.authentication }),
      ...(wait.options === undefined ? {} : { options: wait.options }),
    },
  };
  let parameters: ResolvedWebhookParameters;
  let limits: Readonly<PayloadLimits & RequestLimits>;
  try {
    parameters = resolveParameters(node);
    limits = resolveLimits(wait.limits, middlewareLimits);
  } catch (error) {
    const message = (error as Error).message.replace(/^(workflow-webhooks: |Webhook node "[^"]*": )/, '');
    throw invalid(nodeName, message);
  }
  const schemas = resolvePayloadSchemas(`Wait "${nodeName}"`, 'schemas', wait.schemas);
  return { nodeName, suffix, parameters, credentials: wait.credentials, limits, schemas };
}

/** The webhook a resume call matched: the wait's node, on the call's method, at the wait's address. */
export function waitWebhook(entry: WaitEntry, wait: ResolvedWait, method: HttpMethod): RegisteredWebhook {
  return {
    kind: entry.mode,
    credentials: wait.credentials,
    workflowId: entry.workflowId,
    workflowName: entry.workflowName,
    nodeName: wait.nodeName,
    method,
    path: wait.suffix === '' ? entry.waitId : `${entry.waitId}/${wait.suffix}`,
    isDynamic: false,
    outputIndex: Math.max(0, wait.parameters.methods.indexOf(method)),
    parameters: wait.parameters,
    ...(wait.schemas === undefined ? {} : { schemas: wait.schemas }),
  };
}
