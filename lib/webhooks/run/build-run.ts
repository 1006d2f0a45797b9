/**
 * Dispatch: build the trigger's output item and the run handed to the executor. With several methods the
 * item goes out on the output of the call's method only.
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
  callId: string;
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
  if (payload.signature !== undefined) json.signature = payload.signature;
  return payload.binary === undefined ? { json } : { json, binary: payload.binary };
}

/**
 * The run handed to the executor. A class rather than a literal because of `signal`: a getter written in an object
 * literal costs a slow object creation on every call, one on a prototype costs nothing until it is read.
 */
class Run implements WebhookRun {
  workflowId: string;
  workflowName: string | undefined;
  nodeName: string;
  mode: WebhookRun['mode'];
  method: WebhookRun['method'];
  outputIndex: number;
  items: WebhookRun['items'];
  respond: WebhookRun['respond'];
  callId: string;
  readonly #signal: () => AbortSignal;

  constructor(parts: RunParts) {
    const { webhook } = parts.match;
    this.workflowId = webhook.workflowId;
    this.workflowName = webhook.workflowName;
    this.nodeName = webhook.nodeName;
    this.mode = parts.target.kind;
    this.method = webhook.method;
    this.outputIndex = webhook.outputIndex;
    this.items = [buildTriggerItem(parts)] as WebhookRun['items'];
    this.respond = parts.respond;
    this.callId = parts.callId;
    this.#signal = parts.signal;
  }

  /** Made on first use: most workflows never look at it, and an AbortController per call is not free. */
  get signal(): AbortSignal {
    return this.#signal();
  }
}

export function buildRun(parts: RunParts): WebhookRun {
  return new Run(parts);
}
