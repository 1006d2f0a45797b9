/**
 * Public contracts of entry 1: the workflow and node shapes a host registers, the registry and executor it supplies,
 * and the structural middleware type (no express types leak into the published .d.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ExecutionHint } from '../definitions/hints.js';
import type { AllowedOrigins } from './guards/cors.js';
import type { IpAllowlist } from './guards/ip-allowlist.js';

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

/** Node parameters after defaults were applied and values checked, once, at activation. */
export interface ResolvedWebhookParameters {
  methods: HttpMethod[];
  responseMode: ResponseMode;
  responseData: ResponseData;
  responseCode: number;
  authentication: Authentication;
  responsePropertyName: string | undefined;
  responseBinaryPropertyName: string;
  responseContentType: string | undefined;
  rawBody: boolean;
  binaryPropertyName: string | undefined;
  responseHeaders: Record<string, string>;
  noResponseBody: boolean;
  /** onReceived's fixed body (`options.responseData`). */
  receivedBody: string | undefined;
  /** Compiled `options.ipWhitelist`; undefined allows every address. */
  ipAllowlist: IpAllowlist | undefined;
  /** `options.allowedOrigins`: `*`, a list, or undefined for no CORS. */
  allowedOrigins: AllowedOrigins | undefined;
  ignoreBots: boolean;
  options: WebhookNodeOptions;
}

/** One registered (method, path) of a workflow's Webhook node. */
export interface RegisteredWebhook {
  /** Production (active workflow) or test (listening for a test event). */
  kind: WebhookKind;
  /** The test listen this webhook belongs to (test webhooks only). */
  listenId?: string;
  /** The node's credential reference, passed to the credentials resolver. */
  credentials: unknown;
  workflowId: string;
  workflowName: string | undefined;
  nodeName: string;
  method: HttpMethod;
  /** Normalised path template, e.g. `orders/:id` (no leading or trailing slash). */
  path: string;
  isDynamic: boolean;
  /** The node's output for this method: its index among the node's methods (spec 4.4). */
  outputIndex: number;
  parameters: ResolvedWebhookParameters;
}

export type WebhookKind = 'production' | 'test';

/** Why a test address does not listen, when the registry still knows. */
export type NotListeningReason = 'neverListened' | 'timedOut' | 'received' | 'cancelled';

export type WebhookLookup =
  | { found: true; webhook: RegisteredWebhook; params: Record<string, string> }
  /**
   * `methods` lists what the path does accept: empty means the path is unknown (404), else 405.
   * Test look-ups add why the address does not listen.
   */
  | { found: false; methods: HttpMethod[]; reason?: NotListeningReason };

/** Where webhooks live. Every method is async so that a remote store can implement it. */
export interface WebhookRegistry {
  /** Registers all production webhooks of the workflow, or none; re-activating replaces the earlier set. */
  activate(workflow: WorkflowWebhooks): Promise<RegisteredWebhook[]>;
  /** Frees the workflow's production addresses at once. Resolves false when it had none. */
  deactivate(workflowId: string): Promise<boolean>;
  /** Finds the webhook for a request path (still percent-encoded, no leading or trailing slash). */
  lookup(kind: WebhookKind, method: string, path: string): Promise<WebhookLookup>;
  /**
   * Listens for one test event on the workflow's test addresses (spec 3): the first call that reaches its workflow
   * ends the listen, as do the timeout (default 120 s) and `cancel()`. Another workflow listening on the same
   * (path, method) rejects with WebhookConflictError; the same workflow listening again replaces its earlier listen.
   */
  listenForTest(workflow: WorkflowWebhooks, options?: TestListenOptions): Promise<TestListenHandle>;
  /**
   * Takes the one call of a test listen. Resolves undefined when another call took it first, or the listen ended:
   * exactly one of any number of concurrent calls gets a claim.
   */
  claimTestCall(webhook: RegisteredWebhook): Promise<TestCallClaim | undefined>;
}

export interface TestListenOptions {
  /** How long the test addresses listen. Default 120 000 (spec 8). */
  timeoutMs?: number;
  /** Everything an editor shows: listening, call arrived, completed or failed, ended. */
  onEvent?: (event: TestListenEvent) => void;
}

export type TestListenResult =
  /** The one call ran; `output` when the workflow succeeded, `error` when it failed. */
  | { status: 'received'; run: WebhookRun; output?: ExecutionResult; error?: Error }
  | { status: 'timedOut' }
  /** `replaced`: the same workflow started listening again. */
  | { status: 'cancelled'; reason: 'cancelled' | 'replaced' };

export interface TestListenHandle {
  listenId: string;
  /** Epoch milliseconds when listening ends unless a call comes first. */
  expiresAt: number;
  /** The test webhooks now listening. */
  webhooks: RegisteredWebhook[];
  /** Settles once, when listening has ended. */
  result: Promise<TestListenResult>;
  /** Stops listening at once; a call already running still completes the result. */
  cancel(): Promise<void>;
}

export type TestListenEvent =
  | { type: 'listening'; listenId: string; workflowId: string; expiresAt: number }
  | { type: 'callArrived'; listenId: string; workflowId: string; run: WebhookRun }
  | { type: 'completed'; listenId: string; workflowId: string; run: WebhookRun; output: ExecutionResult }
  | { type: 'failed'; listenId: string; workflowId: string; run: WebhookRun; error: Error }
  | { type: 'ended'; listenId: string; workflowId: string; status: TestListenResult['status'] };

/** The claim of a test call: tells the listener the call arrived, then how it ended. */
export interface TestCallClaim {
  arrived(run: WebhookRun): void;
  settled(outcome: { output?: ExecutionResult; error?: Error }): void;
}

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
