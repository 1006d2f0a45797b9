/**
 * The registry contract: what a store of webhooks implements (the embedded MemoryWebhookRegistry, the Redis
 * registry, or a host's own), and the shapes it hands to the request path. Every method is async so that a
 * remote store can implement it.
 */
import type {
  ExecutionResult,
  HttpMethod,
  Authentication,
  ResponseData,
  ResponseMode,
  WebhookKind,
  WebhookNodeOptions,
  WebhookRun,
  WorkflowSettings,
  WorkflowWebhooks,
} from '../../core/types.js';

import type { ResponseHeaders } from './node-options.js';
import type { ResolvedPayloadSchemas } from './payload-schemas.js';
import type { WaitClaim, WaitEntry, WaitExpiredListener, WaitStatus } from '../../core/waits.js';
import type { RateLimitCharge, RateLimitResult } from '../../core/rate-limits.js';

/** A compiled `options.ipWhitelist`: true when the address may call. */
export type IpAllowlist = (address: string) => boolean;

/** A parsed `options.allowedOrigins`: `*` or a list of origins. */
export type AllowedOrigins = '*' | readonly string[];

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
  /** Version 1's `binaryData`: the whole body becomes binary `binaryPropertyName` (default `data`). */
  binaryData: boolean;
  binaryPropertyName: string | undefined;
  /** Lower-cased names; a repeated Set-Cookie is a list. */
  responseHeaders: ResponseHeaders;
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
  /** The node's output for this method: its index among the node's methods (a call goes out on its method's output). */
  outputIndex: number;
  parameters: ResolvedWebhookParameters;
  /**
   * What activation accepted but ignores, e.g. an option the Webhook node does not have; absent when there is
   * nothing to say. Every webhook of one node shares the node's list: `activationWarnings(webhooks)` gives each once.
   */
  warnings?: readonly WebhookWarning[];
  /** The workflow's run settings (queue mode), checked at activation; absent when it has none. */
  settings?: WorkflowSettings;
  /** The node's payload schemas (`workflow.schemas[nodeName]`), compiled at activation; absent when it has none. */
  schemas?: ResolvedPayloadSchemas;
}

/** Something activation accepted but a host should hear about: the workflow works, just not as its author may think. */
export interface WebhookWarning {
  /**
   * `unknown-option`: a key of the node's `options` that the Webhook node does not have, so nothing reads it.
   * `dropped-header`: a response header of the host's security policy (Content-Security-Policy,
   * Strict-Transport-Security, Clear-Site-Data) that the node sets; it is left out of the answers.
   */
  code: 'unknown-option' | 'dropped-header';
  workflowId: string;
  nodeName: string;
  /** Where in the node's parameters, e.g. `options.responsCode`. */
  path: string;
  /** One line for a log, naming workflow, node and key, with the likely intended name when there is one. */
  message: string;
}

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
   * Optional: the same look-up answered at once, for a registry that serves its routes from memory (both built-in
   * ones do); it must answer exactly as `lookup()` does, and throw what `lookup()` would reject with. The middleware
   * uses it when it is defined beside `lookup()` (on the same class or object): a call then waits for no promise
   * before its body is read. A subclass or wrapper that replaces `lookup()` alone is asked through `lookup()`.
   */
  lookupNow?(kind: WebhookKind, method: string, path: string): WebhookLookup;
  /**
   * The production webhooks of the active workflows, one per (node, method); test listens are not listed. A registry
   * of several instances lists what this instance serves. `describeWebhooks()` builds its document from it.
   */
  list(): Promise<RegisteredWebhook[]>;
  /**
   * Optional: the test webhooks listening now, one per (node, method), each with its `listenId`; with several
   * instances, every instance's listens. The console lists them; without it, it says the registry cannot.
   */
  listTestWebhooks?(): Promise<ListedTestWebhook[]>;
  /**
   * Optional: the wait entries whose status is `waiting`, soonest expiry first, at most `limit` (default 1000).
   * The console lists them; without it, it says the registry cannot.
   */
  listWaits?(options?: { limit?: number }): Promise<WaitEntry[]>;
  /**
   * Listens for one test event on the workflow's test addresses: the first call that reaches its workflow
   * ends the listen, as do the timeout (default 120 s) and `cancel()`. Another workflow listening on the same
   * (path, method) rejects with WebhookConflictError; the same workflow listening again replaces its earlier listen.
   */
  listenForTest(workflow: WorkflowWebhooks, options?: TestListenOptions): Promise<TestListenHandle>;
  /**
   * Takes the one call of a test listen. Resolves undefined when another call took it first, or the listen ended:
   * exactly one of any number of concurrent calls gets a claim.
   */
  claimTestCall(webhook: RegisteredWebhook): Promise<TestCallClaim | undefined>;
  /**
   * Optional: remembers a signed webhook's message id for `ttlMs` where every instance sees it, and resolves true
   * when it was new, false when it was seen before (one atomic step). Without it, each middleware remembers the ids
   * of its own process.
   */
  rememberMessageId?(key: string, ttlMs: number): Promise<boolean>;
  /**
   * Optional: counts a call against the budgets of its address's rate limits where every instance sees them, in one
   * atomic step: when each budget has room left in its window, each is charged one call; otherwise none is. A budget
   * is a fixed window of `windowMs` opened by its first call. Without it, each middleware counts the calls of its own
   * process. Budget and scope ids are digests: no caller's value reaches the store.
   */
  chargeRateLimits?(charges: readonly RateLimitCharge[]): Promise<RateLimitResult>;
  /**
   * Optional, beside `chargeRateLimits`: adds `calls[i]` calls to the budget of `charges[i]` without checking room (a
   * budget whose window ended opens a new one holding them). The middleware calls it when the store answers again after
   * an outage, with the calls each instance let through on its own count meanwhile, so that together they stay within
   * N × `limit` per window. Without it, those calls are not added.
   */
  addRateLimitCalls?(charges: readonly RateLimitCharge[], calls: readonly number[]): Promise<void>;
  /**
   * Optional, beside `chargeRateLimits`: the deployment's digest key (at least 32 bytes), kept by the store and the
   * same for every instance over it, once the registry has loaded (undefined before). Without `rateLimit.digestKey`
   * or `waitingSecret`, the middleware digests callers' budgets under it (read at its first limited call, and kept),
   * so that a reader of the stored budgets cannot match them against guessed addresses or header values.
   */
  digestKey?(): Buffer | undefined;
  /**
   * Optional, for waiting webhooks (`run.waitForCall()`, `run.suspend()`): stores a run's wait entry, or replaces it.
   * With `expect`, only when the stored entry has that status (resolves false when not). A new entry past the
   * registry's `maxWaiting` rejects with `TOO_MANY_WAITING`. Entries are gone at their `expiresAt`.
   */
  putWait?(entry: WaitEntry, expect?: WaitStatus): Promise<boolean>;
  /** The wait entry of an id, or undefined when it is unknown or expired. */
  getWait?(waitId: string): Promise<WaitEntry | undefined>;
  /**
   * Moves a `waiting` entry to `running` in one atomic step: of any number of concurrent claims, one gets it. An
   * expired entry is not claimed, nor changed: it is still told to `onWaitExpired`'s listeners as expired.
   */
  claimWait?(waitId: string, resumedAt: number): Promise<WaitClaim>;
  /** Hears of `waiting` entries that expired with nobody calling (each once, on one instance); returns the unsubscribe. */
  onWaitExpired?(listener: WaitExpiredListener): () => void;
}

/** A listening test webhook and when its listen ends. */
export interface ListedTestWebhook extends RegisteredWebhook {
  listenId: string;
  /** Epoch milliseconds when the listen's window ends. */
  expiresAt: number;
}

export interface TestListenOptions {
  /** How long the test addresses listen, in milliseconds: default 120 000 (two minutes), at most 24 hours. */
  timeoutMs?: number;
  /** Everything an editor shows: listening, call arrived, completed or failed, ended. */
  onEvent?: (event: TestListenEvent) => void;
}

/**
 * The run of a test call as a listen reports it: the call's data, which `JSON.stringify()` (and so `res.json()`)
 * writes as it is. A registry whose instances share a store may hand over a run that ran on another instance, of
 * which only this data crossed: it has no `respond()`, `signal`, `resumeUrl`, `waitForCall()` or `suspend()`, which
 * belong to the call and the process it ran in. On the instance where the call ran it may be the run itself.
 */
export type CapturedRun = Pick<WebhookRun, 'workflowId' | 'workflowName' | 'nodeName' | 'mode' | 'method' | 'outputIndex' | 'items' | 'callId'>;

export type TestListenResult =
  /** The one call ran; `output` when the workflow succeeded, `error` when it failed. */
  | { status: 'received'; run: CapturedRun; output?: ExecutionResult; error?: Error }
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
  | { type: 'callArrived'; listenId: string; workflowId: string; run: CapturedRun }
  | { type: 'completed'; listenId: string; workflowId: string; run: CapturedRun; output: ExecutionResult }
  | { type: 'failed'; listenId: string; workflowId: string; run: CapturedRun; error: Error }
  | { type: 'ended'; listenId: string; workflowId: string; status: TestListenResult['status'] };

/** The claim of a test call: tells the listener the call arrived, then how it ended. */
export interface TestCallClaim {
  arrived(run: WebhookRun): void;
  settled(outcome: { output?: ExecutionResult; error?: Error }): void;
}
