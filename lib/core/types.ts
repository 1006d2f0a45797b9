/**
 * Public contracts of entry 1: the workflow and node shapes a host registers, the executor it supplies and the run
 * it receives, and the structural middleware type (no express types leak into the published .d.ts). The registry's
 * contract is in webhooks/registry/contract.ts.
 */
import type { HistoryKeep, RunReplay } from './history.js';
import type { ExecutionHint } from '../definitions/hints.js';
import type { RunWaiting, SuspendOptions } from './waits.js';
import type { RateLimitSetting } from './rate-limits.js';
import type { NodePayloadSchemas } from './schemas.js';

export type { ExecutionHint };

export const HTTP_METHODS = ['DELETE', 'GET', 'HEAD', 'PATCH', 'POST', 'PUT'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];
/**
 * A method as a node may store it: upper case, or lower case as older workflows hold it (matched without regard to
 * case, surrounding white space ignored).
 */
export type HttpMethodParameter = HttpMethod | Lowercase<HttpMethod>;

export const RESPONSE_MODES = ['onReceived', 'lastNode', 'responseNode'] as const;
export type ResponseMode = (typeof RESPONSE_MODES)[number];

export const RESPONSE_DATA = ['allEntries', 'firstEntryJson', 'firstEntryBinary', 'noData'] as const;
export type ResponseData = (typeof RESPONSE_DATA)[number];

export const AUTHENTICATIONS = ['none', 'basicAuth', 'headerAuth', 'jwtAuth', 'signatureAuth'] as const;
export type Authentication = (typeof AUTHENTICATIONS)[number];

/** How a signed webhook's sender signs (`signatureAuth`): a known sender's scheme, or `custom`. */
export const SIGNATURE_SCHEMES = ['standardWebhooks', 'github', 'stripe', 'slack', 'shopify', 'custom'] as const;
export type SignatureScheme = (typeof SIGNATURE_SCHEMES)[number];

/** The headers a known sender puts on a signed call: its signature, and the timestamp and message id it signs. */
export interface SignatureHeaders {
  signature: string;
  timestamp?: string;
  id?: string;
}

/** Each known sender's headers, read by the signature check and described in the OpenAPI document alike. */
export const SIGNATURE_HEADERS = {
  standardWebhooks: { signature: 'webhook-signature', timestamp: 'webhook-timestamp', id: 'webhook-id' },
  github: { signature: 'X-Hub-Signature-256' },
  stripe: { signature: 'Stripe-Signature' },
  slack: { signature: 'X-Slack-Signature', timestamp: 'X-Slack-Request-Timestamp' },
  shopify: { signature: 'X-Shopify-Hmac-Sha256' },
} as const satisfies Record<Exclude<SignatureScheme, 'custom'>, SignatureHeaders>;

/** What the run learns about a verified signed call, on its trigger item as `json.signature`. */
export interface VerifiedSignature {
  scheme: SignatureScheme;
  /** The sender's message id (Standard Webhooks' `webhook-id`). */
  messageId?: string;
  /** The Unix time in seconds the sender signed at, for schemes that sign one. */
  timestamp?: number;
}

/** Options collection of the Webhook node, as a workflow stores it. */
export interface WebhookNodeOptions {
  /** Property of the first item whose value is the response (dotted paths allowed); `data` when the option is added empty. */
  responsePropertyName?: string;
  /** Name of the binary property `firstEntryBinary` sends. Default `data`. */
  responseBinaryPropertyName?: string;
  /** Content-Type of a `lastNode` response. */
  responseContentType?: string;
  /** Keep the untouched request bytes as binary `data` next to the parsed body. */
  rawBody?: boolean;
  /** Node version 1: the whole body, of any type, becomes binary `binaryPropertyName` (default `data`); `body` is `{}`. */
  binaryData?: boolean;
  /** The answer's status as node versions 2+ store it: a listed code, or `customCode` with its number (a top-level `responseCode` wins). */
  responseCode?: { values: { responseCode?: number | 'customCode'; customCode?: number } };
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
  /** Keys this node does not know (workflows stored as JSON may hold them) are ignored and reported in the webhook's `warnings`. */
  [option: string]: unknown;
}

/** Parameters of a Webhook node. Everything but `path` has a default. */
export interface WebhookNodeParameters {
  path: string;
  /** One method; with `multipleMethods` on, a list (each method gets its own output, in list order). Default GET; GET and POST when multi. */
  httpMethod?: HttpMethodParameter | HttpMethodParameter[];
  multipleMethods?: boolean;
  responseMode?: ResponseMode;
  responseData?: ResponseData;
  /** The answer's status (node versions 1 and 1.1; later versions keep it in `options.responseCode`). Default 200. */
  responseCode?: number;
  authentication?: Authentication;
  /** Binary property `firstEntryBinary` sends. Default `data`. */
  responseBinaryPropertyName?: string;
  options?: WebhookNodeOptions;
}

export interface WebhookNode {
  name: string;
  /** The node's type as an n8n export stores it; when given, it must be a Webhook trigger (`n8n-nodes-base.webhook`), else refused. */
  type?: string;
  /** The node's version as the platform stores it (1, 1.1, 2, 2.1); both parameter layouts are read whatever it says. */
  typeVersion?: number;
  /** Set by an editor; used as the path when `path` is empty, and prefixed to dynamic paths (`<webhookId>/order/:id`). */
  webhookId?: string;
  /** Disabled nodes register no webhook. */
  disabled?: boolean;
  /** What the workflow stores about the node's credential (e.g. `{ httpBasicAuth: { id } }`), handed to the host's resolver. */
  credentials?: unknown;
  parameters: WebhookNodeParameters;
}

/**
 * How a workflow's calls are admitted and its runs scheduled. They travel with the activated workflow, so every
 * instance and every worker reads the same values. `rateLimit` holds on every address; the others are queue mode's
 * (`workflow-webhooks/queue`), which the in-process executor ignores.
 */
export interface WorkflowSettings {
  /**
   * Calls each production address of the workflow lets through per window (counted where the registry lives: in
   * process, or in Redis for every instance); one more is answered 429 `RATE_LIMITED` with `Retry-After`. One policy or
   * up to four (a call must pass each); `false` opts out of the middleware's `rateLimit.default`. After activation the
   * registry holds it as a list of complete policies ({@link ResolvedRateLimitPolicy}).
   */
  rateLimit?: RateLimitSetting;
  /** At most this many runs of the workflow at once, across all workers; the rest wait in the queue. */
  concurrency?: number;
  /** At most this many runs waiting (stored, not yet running); a call beyond it is answered 429 `TOO_MANY_RUNS`. */
  maxQueued?: number;
  /** How many times a run is tried before it is kept as failed (overrides the queue's `attempts`). */
  attempts?: number;
  /**
   * A request header whose value makes a call idempotent: a repeat within the queue's window is answered as the
   * first and not run again. `true` reads `Idempotency-Key`. Signed calls use their sender's message id without it.
   */
  idempotencyHeader?: string | true;
  /** Which of its calls the middleware's history keeps (`all`, `failed`, `none`); without it, `history.keep` decides. */
  history?: HistoryKeep;
}

/** A workflow's Webhook trigger nodes. */
export interface WorkflowWebhooks {
  workflowId: string;
  workflowName?: string;
  nodes: WebhookNode[];
  /** How its runs are scheduled in queue mode. */
  settings?: WorkflowSettings;
  /**
   * Payload schemas of its Webhook nodes, by node name: `{ body?, query?, headers? }`, each a JSON Schema (compiled
   * at activation) or the name of a validator object given to the middleware's `schemas` option. A call that does
   * not match is answered 422 `PAYLOAD_INVALID` before any run.
   */
  schemas?: Record<string, NodePayloadSchemas>;
  /** Its Wait nodes that resume on a webhook call, by node name, as options for `run.waitForCall()` or `run.suspend()` (registries ignore them). */
  waits?: Record<string, SuspendOptions>;
}

/** Production (an active workflow's address) or test (listening for one test event); a resumed run keeps its mode. */
export type WebhookKind = 'production' | 'test';

/** The coarse kind of a binary entry's media type (`image/png` → `image`, `application/pdf` → `pdf`). */
export type BinaryFileType = 'json' | 'html' | 'image' | 'audio' | 'video' | 'text' | 'pdf';

/**
 * A file or raw body on the trigger item, with the metadata file-handling nodes read. Entries a workflow
 * makes itself (for `firstEntryBinary`) need only `mimeType` and `data` or `path`.
 */
export interface BinaryData {
  /** The media type the caller sent (`application/octet-stream` when it sent none). */
  mimeType: string;
  /** The caller's file name; a generated UUID when it gave none. */
  fileName?: string;
  /** From the file name (`pdf` of `report.pdf`), else the media type's usual one (`bin` for octet-stream). */
  fileExtension?: string;
  /** `json`, `html`, `image`, `audio`, `video`, `text` or `pdf`; absent for other media types. */
  fileType?: BinaryFileType;
  /** Size in bytes. */
  bytes?: number;
  /** Size as display text, e.g. `48 B`, `5.32 kB`, `1.2 MB` (1 kB = 1000 bytes). */
  fileSize?: string;
  /**
   * The content, when it is held in memory. On entries the middleware makes, it is joined from the chunks the bytes
   * arrived in when first read (a run that never reads it costs no copy); it can be assigned like any property.
   */
  data?: Buffer;
  /** The content's file, when it was streamed to disk. */
  path?: string;
}

/** A binary entry the middleware made from a call: every metadata field is there. */
export interface ReceivedBinaryData extends BinaryData {
  fileName: string;
  bytes: number;
  fileSize: string;
}

export interface Item {
  json: Record<string, unknown>;
  binary?: Record<string, BinaryData>;
}

/**
 * What the Webhook node's trigger puts on its output (the item an n8n Webhook node gives). `Body` is the
 * host's own statement of what callers send: only the workflow's payload schema (`schemas`) checks the body, so
 * give it the same schema the type comes from (`SchemaOutput<typeof schema>`).
 */
export interface TriggerJson<Body = unknown> extends Record<string, unknown> {
  headers: Record<string, string | string[] | undefined>;
  params: Record<string, string>;
  query: Record<string, unknown>;
  /** The parsed body: JSON, form fields, text or XML as an object; `{}` when the call had no body. */
  body: Body;
  webhookUrl: string;
  executionMode: WebhookKind;
  /** The verified token's payload, with jwtAuth. */
  jwtPayload?: Record<string, unknown>;
  /** What was verified of a signed call, with signatureAuth: its scheme, and its message id and timestamp where signed. */
  signature?: VerifiedSignature;
}

/** The trigger's output item: its `json` typed, `binary` when the call carried files or raw bytes. */
export interface TriggerItem<Body = unknown> extends Item {
  json: TriggerJson<Body>;
  binary?: Record<string, ReceivedBinaryData>;
}

/**
 * The items of a run. Once a body type is given, the one trigger item, typed, so `run.items[0].json.body` needs
 * neither a cast nor a check for a missing item. Without one (or with `unknown`), trigger items whose headers,
 * params and query are typed as the middleware makes them and whose body is `unknown` (nothing says what callers
 * send); an array, as before, so code that indexes it under `noUncheckedIndexedAccess` keeps its checks.
 */
export type TriggerItems<Body> = unknown extends Body ? TriggerItem[] : [TriggerItem<Body>];

/** A response given from inside the workflow (responseMode `responseNode`). */
export interface WorkflowResponse {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/**
 * One webhook call, handed to the host's executor. `Body` types `items[0].json.body`, e.g. `WebhookRun<{ name: string }>`.
 * Without it the items are `TriggerItem`s whose `json.body` is `unknown`: the default `any` only lets a run (and an
 * executor) of every body type fit where a plain one is expected, and no `any` reaches the run's data. A run can wait
 * for a call at its own resume address (`resumeUrl`, `waitForCall()`, `suspend()`).
 */
export interface WebhookRun<Body = any> extends RunWaiting {
  workflowId: string;
  workflowName: string | undefined;
  nodeName: string;
  mode: WebhookKind;
  method: HttpMethod;
  /** With several methods: the index of the call's method in the node's list, the output the item goes out on. */
  outputIndex: number;
  /** The trigger's output on `outputIndex`: one item. */
  items: TriggerItems<Body>;
  /** Answers the call from inside the workflow; only used with responseMode `responseNode`. */
  respond(response: WorkflowResponse): void;
  /**
   * Aborted when the run must stop: the caller went away before a `lastNode`/`responseNode` answer, the response
   * deadline passed, the run exceeded `maxRunMs` (any response mode), or the middleware is shutting down.
   * A getter on the run's prototype, made on first use: a copy such as `{ ...run }` leaves it out, so pass the run
   * itself on, or read `run.signal` into the copy.
   */
  signal: AbortSignal;
  /** The call's id: the request's `x-request-id` (option `requestIdHeader`), else a new UUID. On every event too. */
  callId: string;
  /** Set on a run of a kept call replayed from history: which call, when it first came, who replayed it. */
  replay?: RunReplay;
}

export interface ExecutionResult {
  /** The last node's output items. */
  items: Item[];
  /** Hints the run produced (message and location), shown by an editor next to the output. */
  hints?: ExecutionHint[];
}

/**
 * Runs the workflow of a webhook call; supplied by the host application. It may return the result or a promise of
 * it; a throw and a rejection are the same workflow failure. `Body` types the trigger item's body:
 * `const executor: WebhookExecutor<{ name: string }> = (run) => …`; it is the host's statement of what callers send,
 * never checked. Without it the run's items are `TriggerItem`s with an `unknown` body, as in `WebhookRun`.
 */
export type WebhookExecutor<Body = any> = (run: WebhookRun<Body>) => ExecutionResult | Promise<ExecutionResult>;

export type { WebhookMiddleware, WebhookMiddlewareSettings, WebhookShutdownResult } from './middleware-types.js';
