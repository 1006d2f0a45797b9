/**
 * What the console's page and its server say to each other: the JSON of every API answer and server-sent event.
 * Types only, so that the page's bundle and the server both import it. Every route is relative to where the host
 * mounts the console (`app.use('/admin/webhooks', console)` serves `/admin/webhooks/api/webhooks`).
 *
 * Routes (all behind `authorize`; every POST needs the `x-console-csrf` header with `ConsoleOverview.csrfToken`):
 *   GET  /                                       the page
 *   GET  /assets/<file>                          its script and stylesheet
 *   GET  /api/overview                           ConsoleOverview (sets the CSRF cookie)
 *   GET  /api/webhooks                           WebhookListing
 *   GET  /api/workflows                          WorkflowListing (what can listen for a test event)
 *   POST /api/workflows/:workflowId/listen       body ListenRequest → 201 ListenSnapshot
 *   POST /api/workflows/:workflowId/listen/stop  → { cancelled: boolean }
 *   GET  /api/listens                            ListenSnapshot[] (every workflow's current listen)
 *   GET  /api/listens/:listenId/binary/:item/:property   the captured file's bytes (attachment)
 *   GET  /api/calls?limit=N                      CallListing (newest first)
 *   GET  /api/failed-jobs                        FailedJobListing (404 CONSOLE_NOT_FOUND without a queue)
 *   POST /api/failed-jobs/:jobId/retry           → { retried: boolean }
 *   GET  /api/jobs/:jobId                        JobStateDto (how a retried job goes on)
 *   GET  /api/preview/examples                   ExampleDto[]
 *   GET  /api/preview/webhook-node               the Webhook node's description with its hints
 *   POST /api/preview/lint                       body: a node description → LintAnswer
 *   POST /api/preview/methods/listSearch/:method           body { filter } → { results }
 *   POST /api/preview/methods/resourceMapping/:method      body { parameters } → { fields }
 *   GET  /api/events                             text/event-stream of ConsoleEvent (`event:` is its `type`)
 *   …/api/history…                               kept calls and their replay: protocol-history.ts
 */
import type { BulkReplayProgressDto } from './protocol-history.js';

export type * from './protocol-history.js';
export type * from './protocol-preview.js';

/** Error answers of every route: `{ code, message, hint? }` (codes `CONSOLE_*` of the library's catalogue), or a lint's issues. */
export interface ApiError {
  code?: string;
  message: string;
  hint?: string;
  /** PAYLOAD_INVALID: where the payload did not match its schema, and what was expected there. */
  errors?: { path: string; message: string }[];
}

/** GET /api/overview: what the page needs before anything else. */
export interface ConsoleOverview {
  title: string;
  /** Send as the `x-console-csrf` header with every POST. */
  csrfToken: string;
  /** Where the webhook middleware is served, e.g. `https://api.example.com/api/automation`. */
  webhookUrl: string;
  /** The middleware's OpenAPI document, when it serves one. */
  openApiUrl?: string;
  features: {
    /** Workflows can listen for a test event (the host gave `workflows`). */
    listen: boolean;
    /** Failed queue jobs and retry (the host gave `queue`). */
    queue: boolean;
    /** The node parameter preview. */
    preview: boolean;
    /** Kept calls and their replay (the middleware has `history`). */
    history: boolean;
  };
  /** How many recent calls the console keeps. */
  recentCallsKept: number;
}

export type WebhookKindDto = 'production' | 'test' | 'waiting';

/** How a webhook is guarded. Credentials are named, never shown. */
export interface GuardsDto {
  /** `none`, `basicAuth`, `headerAuth`, `jwtAuth` or `signatureAuth`. */
  authentication: string;
  /** The names of the credentials the node uses, when its reference names them (n8n's `{ type: { id, name } }`). */
  credentials?: string[];
  /** The node's `ipWhitelist` as written; absent when every address may call. */
  ipAllowlist?: string;
  /** `*` or the origins allowed to call from a browser; absent: no CORS. */
  allowedOrigins?: string;
  ignoreBots: boolean;
  /** `signatureAuth`: the sender's scheme (`github`, `stripe`, …), as the middleware's credentials resolver names it. */
  signatureScheme?: string;
  /** Waiting addresses: they are signed, and need their signature. */
  signed?: boolean;
  /** Production addresses with a rate limit (their workflow's, or the middleware's default): each policy. */
  rateLimits?: RateLimitDto[];
}

/** One rate limit policy of an address: `limit` calls per `windowMs`, counted per address, caller address or header value. */
export interface RateLimitDto {
  /** Its name in the RateLimit-Policy header. */
  name: string;
  limit: number;
  windowMs: number;
  /** Whose calls count together. */
  key: 'address' | 'ip' | 'header';
  /** `key: 'header'`: the header's name (its values are never shown). */
  header?: string;
}

/** One active address. */
export interface WebhookRow {
  kind: WebhookKindDto;
  workflowId: string;
  workflowName?: string;
  nodeName: string;
  /** The methods this address answers. */
  methods: string[];
  /** The path after the prefix, as registered: `orders/:orderId`; a waiting address: its wait id. */
  path: string;
  /** The full address; a waiting one without its signature (`?signature=…` is needed to call it). */
  url: string;
  /** `onReceived`, `lastNode` or `responseNode`. */
  responseMode: string;
  guards: GuardsDto;
  /** Test and waiting addresses: epoch milliseconds when they stop answering. */
  expiresAt?: number;
  /** Waiting addresses: `inRun` or `suspended`. */
  form?: 'inRun' | 'suspended';
  /** Rate-limited addresses: how many of the recent calls the console keeps were refused 429 RATE_LIMITED. */
  refused?: number;
}

export interface WebhookListing {
  webhooks: WebhookRow[];
  /** Kinds this registry cannot list (it lacks the optional method), so the page says so instead of showing none. */
  unlisted: WebhookKindDto[];
}

/** A workflow the console can listen for (the host's `workflows`). */
export interface WorkflowDto {
  workflowId: string;
  workflowName: string;
  /** Whether its production addresses are active. */
  active: boolean;
  nodes: { name: string; parameters: Record<string, unknown>; testUrls: { methods: string[]; url: string }[] }[];
}

export interface WorkflowListing {
  workflows: WorkflowDto[];
}

/** POST /api/workflows/:workflowId/listen */
export interface ListenRequest {
  /** The window, in milliseconds (default and most: the console's `maxListenMs`, 120 000 unless set). */
  timeoutMs?: number;
}

/** A binary entry as the page shows it: never its bytes, but where to download them while the console keeps them. */
export interface BinaryDto {
  fileName?: string;
  mimeType: string;
  fileType?: string;
  fileSize?: string;
  bytes?: number;
  /** Relative to the console's mount: `api/listens/<listenId>/binary/<item>/<property>`; absent when not kept (too large). */
  download?: string;
}

export interface ItemDto {
  json: unknown;
  binary?: Record<string, BinaryDto>;
}

export interface ExecutionHintDto {
  message: string;
  type?: 'info' | 'warning' | 'danger';
  location?: 'inputPane' | 'outputPane' | 'ndv';
}

/** The call a test listen captured, and what the workflow made of it. */
export interface RunDto {
  callId: string;
  method: string;
  nodeName: string;
  /**
   * The trigger item(s). Credentials read `[redacted]`: the header the node's authentication checked, credential
   * headers and query parameters by name, and their values wherever else they appear (output, hints, error too).
   */
  trigger: ItemDto[];
  /**
   * The captured call as a curl command line that sends it again (to the test address: listen first). The caller's
   * data is text in it; credentials and files are placeholders (`<authorization>`, `@<path to name>`) to fill in.
   */
  curl: string;
  output?: { items: ItemDto[]; hints: ExecutionHintDto[] };
  /** Why the workflow failed, with its cause. */
  error?: string;
  /**
   * Set when the node's caller waited for the run (responseMode lastNode) for half the time it may wait or more:
   * `limitMs` is the middleware's deadline (responseTimeoutMs), 100 s when it has none.
   */
  slow?: { waitedMs: number; limitMs: number };
}

export type ListenState =
  | { state: 'idle' }
  | { state: 'listening'; listenId: string; expiresAt: number; secondsLeft: number; windowSeconds: number }
  | { state: 'running'; listenId: string; run: RunDto }
  | { state: 'ended'; listenId: string; status: 'received' | 'timedOut' | 'cancelled'; run?: RunDto };

/** One workflow's listen, as GET /api/listens lists it and the `listen` event pushes it. */
export interface ListenSnapshot {
  workflowId: string;
  listen: ListenState;
  /** A run of this listen that waits for a call at its resume address; null when none. */
  wait: WaitDto | null;
  /** The last test call its payload schema refused while listening (the listen goes on): where and what was expected. */
  refused?: { at: number; nodeName?: string; message: string; errors: { path: string; message: string }[] } | null;
}

/** A test run waiting at its (signed) resume address: the console's own listen started it, so it shows the address. */
export interface WaitDto {
  waitId: string;
  form: 'inRun' | 'suspended';
  status: 'waiting' | 'resumed' | 'expired';
  resumeUrl: string;
  methods: string[];
  expiresAt: number;
}

/** One call as recent calls list it. */
export interface CallRecord {
  callId: string;
  /** Epoch milliseconds when it arrived. */
  at: number;
  method: string;
  /** The request path, without its query (which may carry tokens). */
  path: string;
  /** The address as registered, when it matched: `/webhook/orders/:orderId`. */
  route?: string;
  /** The status sent; absent when no answer went out (the caller hung up). */
  status?: number;
  durationMs: number;
  workflowId?: string;
  workflowName?: string;
  nodeName?: string;
  mode?: 'production' | 'test';
  /** The error code of a refused or failed call (`WEBHOOK_NOT_FOUND`, `WORKFLOW_FAILED`, …). */
  code?: string;
  /** Its message (never a credential: the library's own texts). */
  message?: string;
  /** PAYLOAD_INVALID: where the call did not match its schema and what was expected (never the values sent). */
  errors?: { path: string; message: string }[];
  /** The instance that served it (the console's `instance` option), when several serve one registry. */
  instance?: string;
}

export interface CallListing {
  calls: CallRecord[];
}

/** A queue job out of attempts. The trigger item is not shown: it may hold anything the caller sent. */
export interface FailedJobDto {
  jobId: string;
  workflowId: string;
  workflowName?: string;
  nodeName: string;
  method: string;
  callId: string;
  /** The node's response mode when the call came: what its caller was answered (at once, or from the last attempt). */
  responseMode?: 'onReceived' | 'lastNode' | 'responseNode';
  attemptsMade: number;
  failedReason?: string;
  storedAt: number;
  finishedAt?: number;
}

export interface FailedJobListing {
  jobs: FailedJobDto[];
}

/** GET /api/jobs/:jobId: where a job is now (`waiting`, `active`, `completed`, `failed`, …). */
export interface JobStateDto {
  jobId: string;
  state: string;
  attemptsMade: number;
  failedReason?: string;
  /** When its latest attempt ended (epoch ms). */
  finishedAt?: number;
}

/** What GET /api/events streams; each is sent with `event: <type>` and the object as its data. */
export type ConsoleEvent =
  | { type: 'call'; call: CallRecord }
  | ({ type: 'listen' } & ListenSnapshot)
  | { type: 'countdown'; workflowId: string; listenId: string; secondsLeft: number }
  /** A failed job was retried (here or elsewhere): the page reloads the list. */
  | { type: 'jobs' }
  /** A bulk replay of this instance went on (or ended). */
  | { type: 'replay'; progress: BulkReplayProgressDto };
