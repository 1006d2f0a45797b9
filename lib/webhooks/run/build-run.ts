/**
 * Dispatch: build the trigger's output item and the run handed to the executor. With several methods the
 * item goes out on the output of the call's method only (spec 4.4).
 */
import type { IncomingMessage } from 'node:http';
import type { WebhookMatch } from '../request/match.js';
import type { Payload } from '../payload/index.js';
import type { RequestTarget } from '../request/target.js';
import type { Item, TriggerJson, WebhookRun, WorkflowResponse } from '../types.js';

export interface RunParts {
  req: IncomingMessage;
  target: RequestTarget;
  match: WebhookMatch;
  query: Record<string, unknown>;
  payload: Payload;
  /** Public base of the addresses, without trailing slash (origin + mount path). */
  baseUrl: string;
  prefix: string;
  /** Gives the run's signal; called only if the workflow looks at it. */
  signal: () => AbortSignal;
  respond: (response: WorkflowResponse) => void;
  jwtPayload?: Record<string, unknown> | undefined;
}

export function buildTriggerItem(parts: RunParts): Item {
  const { req, target, match, payload } = parts;
  const json: TriggerJson = {
    headers: { ...req.headers },
    params: match.params,
    query: parts.query,
    body: payload.body,
    webhookUrl: `${parts.baseUrl}/${parts.prefix}/${match.webhook.path}`,
    executionMode: target.kind,
  };
  if (parts.jwtPayload !== undefined) json.jwtPayload = parts.jwtPayload;
  return payload.binary === undefined ? { json } : { json, binary: payload.binary };
}

export function buildRun(parts: RunParts): WebhookRun {
  const { webhook } = parts.match;
  const run = {
    workflowId: webhook.workflowId,
    workflowName: webhook.workflowName,
    nodeName: webhook.nodeName,
    mode: parts.target.kind,
    method: webhook.method,
    outputIndex: webhook.outputIndex,
    items: [buildTriggerItem(parts)],
    respond: parts.respond,
  };
  // A getter: most workflows never look at the signal, and an AbortController per call is not free.
  return Object.defineProperty(run, 'signal', { get: parts.signal, enumerable: true }) as WebhookRun;
}

/** Origin of the request as the caller addressed it, plus the mount path. */
export function requestBaseUrl(req: IncomingMessage, mountPath: string): string {
  const encrypted = (req.socket as { encrypted?: boolean } | null)?.encrypted === true;
  const host = req.headers.host ?? 'localhost';
  return `${encrypted ? 'https' : 'http'}://${host}${mountPath}`;
}
