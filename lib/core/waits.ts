/**
 * Public contracts of waiting webhooks: what a run may ask for (a short wait in the run, or a long one across
 * restarts), what a resumed run learns, and the entries a registry keeps for them.
 */
import type {
  Authentication,
  HttpMethodParameter,
  ResponseData,
  ResponseMode,
  TriggerItem,
  WebhookKind,
  WebhookNodeOptions,
} from './types.js';
import type { WebhookLimitsOptions } from './option-limits.js';
import type { NodePayloadSchemas } from './schemas.js';

/**
 * How the resume address takes its call: the options of the platform's Wait node ("Resume: On Webhook Call"). Every
 * field has a default, so `{}` waits for one POST and answers it 200 `{"message":"Workflow was started"}`.
 */
export interface WaitOptions {
  /** The methods the address accepts: one, or a list. Default POST. */
  httpMethod?: HttpMethodParameter | HttpMethodParameter[];
  /**
   * A last path segment of the address, so one run can wait at several named addresses in turn (`approve`,
   * `reject`); a call without it, or with another, gets 404. Default none.
   */
  suffix?: string;
  /** `onReceived` (default): answer once the call is taken; `lastNode`: with the run's result; `responseNode`: with `run.respond()`. */
  responseMode?: ResponseMode;
  /** What a `lastNode` answer holds. Default `firstEntryJson`. */
  responseData?: ResponseData;
  /** Status of the answer. Default 200. */
  responseCode?: number;
  /** As the Webhook node: `basicAuth`, `headerAuth`, `jwtAuth` or `signatureAuth`, checked by the middleware's `credentials` resolver. */
  authentication?: Authentication;
  /** The credential reference handed to the `credentials` resolver. */
  credentials?: unknown;
  /** The Webhook node's options: ipWhitelist, ignoreBots, rawBody, binaryData, binaryPropertyName, allowedOrigins, responseHeaders, … */
  options?: WebhookNodeOptions;
  /** Stricter payload limits for this address than the middleware's (a larger value is capped at the middleware's). */
  limits?: WebhookLimitsOptions;
  /** The node name the resumed run and the events report. Default `Wait`. */
  nodeName?: string;
  /**
   * What the resume call must send: JSON Schemas, or names of the middleware's `schemas` validators, for its body,
   * query and headers. A call that does not match is answered 422 `PAYLOAD_INVALID` and the run keeps waiting.
   */
  schemas?: NodePayloadSchemas;
}

export interface WaitForCallOptions extends WaitOptions {
  /** How long to wait, in ms; then `waitForCall()` rejects with `WAIT_TIMED_OUT`. Default 60 000; at most the middleware's `maxRunMs`. */
  timeoutMs?: number;
}

export interface SuspendOptions extends WaitOptions {
  /** Plain JSON the resumed run gets back as `run.resume.state`: all a long wait keeps of the run. */
  state?: unknown;
  /** How long the address takes a call, in ms. Default 86 400 000 (a day); at most 365 days. */
  expiresInMs?: number;
}

/** What `run.suspend()` stored. */
export interface SuspendedWait {
  waitId: string;
  /** The signed address that resumes the run (with the suffix, when the wait has one). */
  resumeUrl: string;
  /** Epoch milliseconds after which the address answers 404. */
  expiresAt: number;
}

/** What a run resumed from `suspend()` learns, on `run.resume`. */
export interface RunResume {
  waitId: string;
  /** The `state` given to `suspend()`. */
  state: unknown;
  /** Epoch milliseconds when the run that suspended started. */
  startedAt: number;
  /** Epoch milliseconds when the call arrived that resumed it. */
  resumedAt: number;
}

/**
 * The waiting side of a run: every run has one resume address, readable before it waits (to send it on first).
 * A run that waits again, or a run resumed from `suspend()`, keeps the same address.
 */
export interface RunWaiting {
  /** The signed resume address of the run. Throws `WAIT_NOT_CONFIGURED` when the middleware has no `waitingSecret`. */
  readonly resumeUrl: string;
  /**
   * The resume address with a suffix (`<address>/<suffix>?signature=…`), for a wait with `suffix`. Its signature is
   * made for this suffix: it opens no other suffix of the run.
   */
  resumeUrlFor(suffix: string): string;
  /**
   * Waits in the run for one call at the resume address and resolves with its trigger item (headers, params, query,
   * body, binary, as a webhook's). Rejects with `WAIT_TIMED_OUT` at `timeoutMs`, and with the reason when
   * `run.signal` aborts. The run must stay in this process: for waits longer than a few minutes, use `suspend()`.
   */
  waitForCall(options?: WaitForCallOptions): Promise<TriggerItem>;
  /**
   * Stores a wait in the registry (every instance knows it) and lets the run end: when the address is called, the
   * executor is called again, as a new run of the same workflow, with `run.resume` and the call's item.
   */
  suspend(options?: SuspendOptions): Promise<SuspendedWait>;
  /** Set on a run resumed from `suspend()`. */
  resume?: RunResume;
}

/**
 * `running`: the run holds the address but does not wait (not yet, or resumed already); `waiting`: a call resumes
 * it; `finished`: the run has ended.
 */
export type WaitStatus = 'running' | 'waiting' | 'finished';

/** One run's resume address as a registry keeps it: plain JSON, so a remote store (Redis) can hold it. */
export interface WaitEntry {
  waitId: string;
  status: WaitStatus;
  /** Epoch milliseconds after which the entry is gone (404). */
  expiresAt: number;
  workflowId: string;
  workflowName?: string;
  nodeName: string;
  /** The mode of the run that waits; a resumed run keeps it. */
  mode: WebhookKind;
  /** Epoch milliseconds when the first run of this address started. */
  startedAt: number;
  /** When a call last resumed it. */
  resumedAt?: number;
  /** `inRun`: a run waits in the process `holder` (waitForCall); `suspended`: a call starts a new run. Set while waiting. */
  form?: 'inRun' | 'suspended';
  /** The wait's options, as given (resolved again wherever the call arrives). */
  wait?: WaitOptions;
  /** `suspend()`'s state. */
  state?: unknown;
  /** Which process holds an in-run wait. */
  holder?: string;
  /** The call whose run waits (its events' `callId`). */
  callId?: string;
}

/** What a claim found: the entry it moved from `waiting` to `running`, or the entry as it was (or nothing). */
export type WaitClaim = { claimed: true; entry: WaitEntry } | { claimed: false; entry: WaitEntry | undefined };

/** Tells whoever listens that a wait's address passed its expiry with nobody calling. */
export type WaitExpiredListener = (entry: WaitEntry) => void;
