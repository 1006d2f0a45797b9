/**
 * Public contracts of entry 1: the workflow and node shapes a host registers, the executor it supplies and the run
 * it receives, and the structural middleware type (no express types leak into the published .d.ts). The registry's
 * contract is in registry/contract.ts.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ExecutionHint } from '../definitions/hints.js';

export type { ExecutionHint };

export const HTTP_METHODS = ['DELETE', 'GET', 'HEAD', 'PATCH', 'POST', 'PUT'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export const RESPONSE_MODES = ['onReceived', 'lastNode', 'responseNode'] as const;
export type ResponseMode = (typeof RESPONSE_MODES)[number];

export const RESPONSE_DATA = ['allEntries', 'firstEntryJson', 'firstEntryBinary', 'noData'] as const;
export type ResponseData = (typeof RESPONSE_DATA)[number];

export const AUTHENTICATIONS = ['none', 'basicAuth', 'headerAuth', 'jwtAuth'] as const;
export type Authentication = (typeof AUTHENTICATIONS)[number];

/** Options collection of the Webhook node, as a workflow stores it. */
export interface WebhookNodeOptions {
  /** Property of the first item whose value is the response (spec 4.1); `data` when the option is added empty. */
  responsePropertyName?: string;
  /** Name of the binary property `firstEntryBinary` sends. Default `data`. */
  responseBinaryPropertyName?: string;
  /** Content-Type of a `lastNode` response. */
  responseContentType?: string;
  /** Keep the untouched request bytes as binary `data` next to the parsed body. */
  rawBody?: boolean;
  /** Binary property of a raw upload; multipart files become `<name>0`, `<name>1`, … */
  binaryPropertyName?: string;
  /** Extra headers of every successful answer: `{ entries: [{ name, value }] }` or `{ name: value }`. */
  responseHeaders?: { entries: { name: string; value: string }[] } | Record<string, string>;
  /** Comma-separated addresses and CIDR ranges allowed to call; empty allows all. */
  ipWhitelist?: string;
  /** `*` or comma-separated origins allowed to call from a browser; absent: no CORS headers. */
  allowedOrigins?: string;
  /** Answer bots and link previewers without running the workflow. */
  ignoreBots?: boolean;
  /** responseMode `onReceived`: answer with no body. */
  noResponseBody?: boolean;
  /** responseMode `onReceived`: a fixed text to answer with instead of `{"message":"Workflow was started"}`. */
  responseData?: string;
  [option: string]: unknown;
}

/** Parameters of a Webhook node (DESIGN §2). Everything but `path` has a default. */
export interface WebhookNodeParameters {
  path: string;
  httpMethod?: string | string[];
  multipleMethods?: boolean;
  responseMode?: ResponseMode;
  responseData?: ResponseData;
  responseCode?: number;
  authentication?: Authentication;
  /** Binary property `firstEntryBinary` sends. Default `data`. */
  responseBinaryPropertyName?: string;
  options?: WebhookNodeOptions;
}

export interface WebhookNode {
  name: string;
  /** Set by an editor; used as the path when `path` is empty, and prefixed to dynamic paths (as the known platform does). */
  webhookId?: string;
  /** Disabled nodes register no webhook. */
  disabled?: boolean;
  /** What the workflow stores about the node's credential (e.g. `{ httpBasicAuth: { id } }`), handed to the host's resolver. */
  credentials?: unknown;
  parameters: WebhookNodeParameters;
}

/** A workflow's Webhook trigger nodes. */
export interface WorkflowWebhooks {
  workflowId: string;
  workflowName?: string;
  nodes: WebhookNode[];
}

/** Production (an active workflow's address) or test (listening for one test event). */
export type WebhookKind = 'production' | 'test';

export interface BinaryData {
  fileName?: string;
  mimeType: string;
  /** Size in bytes. */
  fileSize: number;
  /** The content, when it is held in memory. */
  data?: Buffer;
  /** The content's file, when it was streamed to disk. */
  path?: string;
}

export interface Item {
  json: Record<string, unknown>;
  binary?: Record<string, BinaryData>;
}

/** What the Webhook node's trigger puts on its output (the item users of the known platform expect). */
export interface TriggerJson extends Record<string, unknown> {
  headers: Record<string, string | string[] | undefined>;
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
  webhookUrl: string;
  executionMode: WebhookKind;
  /** The verified token's payload, with jwtAuth. */
  jwtPayload?: Record<string, unknown>;
}

/** A response given from inside the workflow (responseMode `responseNode`). */
export interface WorkflowResponse {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/** One webhook call, handed to the host's executor. */
export interface WebhookRun {
  workflowId: string;
  workflowName: string | undefined;
  nodeName: string;
  mode: WebhookKind;
  method: HttpMethod;
  outputIndex: number;
  /** The trigger's output on `outputIndex`. */
  items: Item[];
  /** Answers the call from inside the workflow; only used with responseMode `responseNode`. */
  respond(response: WorkflowResponse): void;
  /** Aborted when the caller goes away before a `lastNode`/`responseNode` answer. */
  signal: AbortSignal;
}

export interface ExecutionResult {
  /** The last node's output items. */
  items: Item[];
  /** Hints the run produced (spec 2.4's dynamic hints), shown by an editor next to the output. */
  hints?: ExecutionHint[];
}

/** Runs the workflow of a webhook call; supplied by the host application. */
export type WebhookExecutor = (run: WebhookRun) => Promise<ExecutionResult>;

/** Structural middleware type: assignable to `app.use()` of Express 4, Express 5 and Connect. */
export type WebhookMiddleware = (
  req: IncomingMessage,
  res: ServerResponse,
  next: (err?: unknown) => void,
) => void;
