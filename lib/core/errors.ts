/**
 * The one error family of the library. Every failure a caller or a host can see carries a stable `code` from
 * {@link ERROR_CODES}, the HTTP `status` it answers with, and an optional `hint` that says what to do about it.
 * Errors are thrown where they are detected and turned into HTTP in exactly one place (`webhooks/response/error-answer.ts`).
 */
import type { PayloadProblem } from './schemas.js';

/** Catalogue of error codes: code → HTTP status. Codes never change meaning once published. */
export const ERROR_CODES = {
  /** No webhook is registered for the address (any method). */
  WEBHOOK_NOT_FOUND: 404,
  /** A test address that is not listening (never listened, window ended, already used, cancelled). */
  WEBHOOK_TEST_NOT_LISTENING: 404,
  /** The address is registered, but for other HTTP methods only. */
  WEBHOOK_METHOD_NOT_ALLOWED: 405,
  /** Activation refused: another active workflow already uses the path and method. */
  WEBHOOK_CONFLICT: 409,
  /** Activation refused: a Webhook node's parameters are not usable. */
  WEBHOOK_INVALID_NODE: 400,
  /** A browser call from an origin the node's allowedOrigins does not list. */
  CORS_ORIGIN_NOT_ALLOWED: 403,
  /** The call's Host (or trusted X-Forwarded-Host) is not one of the middleware's `allowedHosts`. */
  HOST_NOT_ALLOWED: 421,
  /** The caller's address is not in the node's IP allowlist. */
  WEBHOOK_IP_NOT_ALLOWED: 403,
  /** The node ignores bots (option ignoreBots) and the User-Agent is one. */
  BOT_IGNORED: 403,
  /** The node requires Basic or JWT authentication and the call carries none; answered with a WWW-Authenticate challenge. */
  AUTH_REQUIRED: 401,
  /** The call's credentials are wrong (or its token expired), or the header of header auth is missing. */
  AUTH_INVALID: 403,
  /** The node requires authentication, but the host supplies no usable credential for it. */
  AUTH_NOT_CONFIGURED: 500,
  /** A signed webhook (signatureAuth) without its signature headers; answered with a WWW-Authenticate challenge. */
  SIGNATURE_MISSING: 401,
  /** The signature does not match the body with any of the secrets, or its header is malformed. */
  SIGNATURE_INVALID: 403,
  /** The signed timestamp is outside the tolerance (default five minutes, either way). */
  SIGNATURE_EXPIRED: 403,
  /** A signed message id that was already received within the tolerance window. */
  SIGNATURE_REPLAYED: 409,
  /** A host body parser read a signed call's body and kept no raw bytes, so the signature cannot be checked. */
  SIGNATURE_BODY_UNAVAILABLE: 500,
  /**
   * The caller spent the address's rate limit (`settings.rateLimit`, or the middleware's default) for this window:
   * answered with `Retry-After`, `RateLimit-Policy` and `RateLimit`; the call does not run.
   */
  RATE_LIMITED: 429,
  /** The request could not be read as HTTP (answered by handleClientError). */
  REQUEST_MALFORMED: 400,
  /** The request was not completed within the server's request timeout (answered by handleClientError). */
  REQUEST_TIMEOUT: 408,
  /** The request URL is longer than `limits.urlLength`. */
  LIMIT_URL_LENGTH: 414,
  /** More request headers, or more header bytes, than `limits.headerCount` / `limits.headerSize`. */
  LIMIT_HEADERS: 431,
  /** The request path cannot be decoded (bad percent-encoding, encoded slash or NUL). */
  REQUEST_INVALID_PATH: 400,
  /** The JSON body could not be parsed. */
  BODY_INVALID_JSON: 400,
  /** A JSON or XML body nests deeper than `limits.bodyDepth` levels. */
  BODY_TOO_DEEP: 400,
  /** The request body ended before its announced length, or the client aborted it. */
  BODY_ABORTED: 400,
  /** The request body stalled: no bytes arrived for `bodyTimeoutMs`. */
  BODY_TIMEOUT: 408,
  /** The request body came in below `minBodyRate` (a few bytes at a time), past its grace period. */
  BODY_TOO_SLOW: 408,
  /** The XML body could not be parsed (or expands too far). */
  BODY_INVALID_XML: 400,
  /** The multipart body is malformed: missing or wrong boundary, bad part headers, truncated. */
  BODY_INVALID_MULTIPART: 400,
  /** The compressed body could not be inflated. */
  BODY_INVALID_ENCODING: 400,
  /** The body's charset cannot be decoded. */
  BODY_UNSUPPORTED_CHARSET: 415,
  /** The body's Content-Encoding is not gzip, deflate, br or identity. */
  BODY_UNSUPPORTED_ENCODING: 415,
  /** A buffered body (JSON, form, text, XML) is larger than `limits.bodySize`. */
  LIMIT_BODY_SIZE: 413,
  /** A JSON body is larger than `limits.jsonSize` (parsing it would hold the event loop too long). */
  LIMIT_JSON_SIZE: 413,
  /** An XML body is larger than `limits.xmlSize` (parsing it would hold the event loop too long). */
  LIMIT_XML_SIZE: 413,
  /** A whole-body binary upload is larger than `limits.binarySize`. */
  LIMIT_BINARY_SIZE: 413,
  /** One multipart file is larger than `limits.fileSize`. */
  LIMIT_FILE_SIZE: 413,
  /** The multipart files together are larger than `limits.totalFileSize`. */
  LIMIT_TOTAL_FILE_SIZE: 413,
  /** More multipart files than `limits.files`. */
  LIMIT_FILE_COUNT: 413,
  /** More form fields than `limits.fields`. */
  LIMIT_FIELD_COUNT: 413,
  /** More multipart parts than `limits.parts`. */
  LIMIT_PART_COUNT: 413,
  /** A form field value longer than `limits.fieldSize`. */
  LIMIT_FIELD_SIZE: 413,
  /** A form field or file field name longer than `limits.fieldNameSize`. */
  LIMIT_FIELD_NAME_SIZE: 413,
  /**
   * The call's body, query or headers do not match the webhook's schema: answered with `errors` (where, and what
   * was expected there; never the values sent); no run starts.
   */
  PAYLOAD_INVALID: 422,
  /**
   * Checking the call against the webhook's JSON Schema would cost more than one call's budget of work (or time):
   * refused unchecked, so that a schema and a body together cannot stall the process; other calls go on.
   */
  PAYLOAD_TOO_COSTLY: 422,
  /** The webhook's schema names a validator this instance was not given in its `schemas` option: refused, never skipped. */
  PAYLOAD_SCHEMA_MISSING: 500,
  /** The workflow executor threw or rejected. */
  WORKFLOW_FAILED: 500,
  /** The executor returned something that is not `{ items: Item[] }`. */
  WORKFLOW_INVALID_RESULT: 500,
  /** responseMode `responseNode`: the workflow finished without calling `run.respond()`. */
  WORKFLOW_NO_RESPONSE: 500,
  /** responseMode `responseNode`: `run.respond()` was given an unusable response, or called again (reported only). */
  WORKFLOW_INVALID_RESPONSE: 500,
  /** `firstEntryJson` was asked for, but the last node returned no item. */
  WORKFLOW_NO_ITEM: 500,
  /** The workflow did not answer before the response deadline (`responseTimeoutMs`); status set by `timeoutStatus`. */
  WORKFLOW_TIMEOUT: 524,
  /**
   * The shared registry's store (Redis, PostgreSQL) cannot be reached, or is busy (no pool connection in time, or
   * `rateLimit.maxPending` calls already waiting for it): changes are refused; calls too, once past `staleAfterMs`.
   */
  REGISTRY_UNAVAILABLE: 503,
  /** The middleware is shutting down (`close()`): new calls are refused; try again on another instance. */
  SHUTTING_DOWN: 503,
  /** Queue mode: the run could not be stored within `enqueueTimeoutMs` (Redis down, paused, full): nothing was stored. */
  QUEUE_UNAVAILABLE: 503,
  /** Queue mode: the workflow already has `settings.maxQueued` runs waiting; the call is refused with `Retry-After`. */
  TOO_MANY_RUNS: 429,
  /** Queue mode: the call's files are larger than `inlineBinaryBytes` and no binary store is configured (or the store's limit). */
  QUEUE_PAYLOAD_TOO_LARGE: 413,
  /**
   * Queue mode on PostgreSQL: the run's data (the call's body, query or form fields, or a resumed run's suspended
   * state) holds a NUL character (U+0000), which PostgreSQL's `jsonb` cannot keep: nothing was stored, and the same
   * data is refused again.
   */
  QUEUE_PAYLOAD_UNSTORABLE: 422,
  /** Queue mode: the idempotency key was used by an earlier call with another body; a retry repeats its body exactly. */
  IDEMPOTENCY_KEY_REUSED: 422,
  /** A waiting address whose id is unknown, malformed or expired, or whose suffix is missing or another. */
  WAIT_NOT_FOUND: 404,
  /**
   * A waiting address called without its `signature` query parameter, or with one made for another address (another
   * id or suffix). 403, as presigned URLs answer: no credential scheme fixes it, so no WWW-Authenticate challenge fits.
   */
  WAIT_SIGNATURE_INVALID: 403,
  /** A waiting address whose run is running and not waiting for a call (not yet, or no longer). */
  WAIT_RUN_RUNNING: 409,
  /** A waiting address another call resumed first; its run is running. */
  WAIT_ALREADY_RESUMED: 409,
  /** A waiting address whose run has ended. */
  WAIT_RUN_FINISHED: 409,
  /** A waiting address whose run waits in the run (`waitForCall()`) on another instance of the server. */
  WAIT_ON_OTHER_INSTANCE: 421,
  /** `run.waitForCall()` reached its `timeoutMs` with nobody calling (the run sees it; no caller does). */
  WAIT_TIMED_OUT: 504,
  /** A run asked to wait, but the middleware has no `waitingSecret`, or the registry keeps no waits. */
  WAIT_NOT_CONFIGURED: 500,
  /** A run asked to wait while the registry holds `maxWaiting` waiting runs. */
  TOO_MANY_WAITING: 503,
  /** History: no kept call has this id (never kept, or past the retention). */
  HISTORY_NOT_FOUND: 404,
  /** History: the call was replayed before, and the replay did not say `again`: a double click never runs it twice. */
  HISTORY_REPLAYED_BEFORE: 409,
  /** History: the call cannot be run again as it was: its body or files were not kept whole, it was a test call or a resume, or its webhook is no longer active. */
  HISTORY_NOT_REPLAYABLE: 422,
  /** History: the store of calls did not answer (finding, opening or replaying a call); with `Retry-After`. */
  HISTORY_UNAVAILABLE: 503,
  /** Console: `authorize` said the request must sign in first (it answered 401). */
  CONSOLE_UNAUTHORIZED: 401,
  /** Console: `authorize` refused the request. */
  CONSOLE_FORBIDDEN: 403,
  /** Console: a POST without the page's CSRF token, with a wrong one, or from another site. */
  CONSOLE_CSRF_INVALID: 403,
  /** Console: no such route, workflow, listen, file or job, or a section the host did not configure. */
  CONSOLE_NOT_FOUND: 404,
  /** Console: a route asked with a method it does not take (answered with `Allow`). */
  CONSOLE_METHOD_NOT_ALLOWED: 405,
  /** Console: a POST body that is not the JSON the route takes, or is larger than it takes. */
  CONSOLE_BAD_REQUEST: 400,
  /** An unexpected failure inside the middleware. */
  INTERNAL_ERROR: 500,
} as const satisfies Record<string, number>;

export type WebhookErrorCode = keyof typeof ERROR_CODES;

export interface WebhookErrorOptions {
  hint?: string | undefined;
  cause?: unknown;
  /** Overrides the catalogue status where an option lets the host choose it (the deadline's status). */
  status?: number;
  /** Response headers the answer needs (`Allow` for 405, `WWW-Authenticate` for 401). */
  headers?: Record<string, string>;
}

export class WebhookError extends Error {
  readonly code: WebhookErrorCode;
  readonly status: number;
  readonly hint: string | undefined;
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: WebhookErrorCode, message: string, options: WebhookErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'WebhookError';
    this.code = code;
    this.status = options.status ?? ERROR_CODES[code];
    this.hint = options.hint;
    this.headers = options.headers ?? {};
  }

  /** Express' and Connect's default error handlers read `statusCode` as well as `status`. */
  get statusCode(): number {
    return this.status;
  }

  /** 4xx messages are written for the caller; 5xx messages may carry host details. */
  get expose(): boolean {
    return this.status < 500;
  }

  toJSON(): { code: WebhookErrorCode; message: string; hint?: string } {
    return this.hint === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, hint: this.hint };
  }
}

/** What a conflicting registration holds, so a host can show or resolve it. */
export interface WebhookConflict {
  method: string;
  path: string;
  workflowId: string;
  workflowName?: string | undefined;
  nodeName: string;
}

/**
 * Thrown by a registry when a (method, path) is already taken by another workflow: one webhook holds an address
 * among active workflows, and one among test listens.
 */
export class WebhookConflictError extends WebhookError {
  readonly conflict: WebhookConflict;

  constructor(conflict: WebhookConflict, hint?: string) {
    const owner = conflict.workflowName === undefined
      ? `workflow "${conflict.workflowId}"`
      : `workflow "${conflict.workflowName}" (${conflict.workflowId})`;
    super(
      'WEBHOOK_CONFLICT',
      `The path "${conflict.path}" and method ${conflict.method} are already in use by ${owner}, node "${conflict.nodeName}".`,
      {
        hint: hint ?? `Deactivate ${owner}, or change the path or the HTTP method of one of the two Webhook nodes.`,
      },
    );
    this.name = 'WebhookConflictError';
    const { method, path, workflowId, workflowName, nodeName } = conflict;
    this.conflict = { method, path, workflowId, workflowName, nodeName };
  }
}

/**
 * A call refused by its webhook's schema (422 `PAYLOAD_INVALID`): its answer lists the places that did not match,
 * at most a bounded number of them, each a JSON pointer and what was expected there.
 */
export class PayloadInvalidError extends WebhookError {
  readonly errors: readonly PayloadProblem[];

  constructor(message: string, errors: readonly PayloadProblem[], hint: string) {
    super('PAYLOAD_INVALID', message, { hint });
    this.name = 'PayloadInvalidError';
    this.errors = errors;
  }

  override toJSON(): { code: WebhookErrorCode; message: string; hint?: string; errors: readonly PayloadProblem[] } {
    return { ...super.toJSON(), errors: this.errors };
  }
}

/** Turns anything thrown into a WebhookError; unknown failures keep their cause but not their message. */
export function toWebhookError(error: unknown): WebhookError {
  if (error instanceof WebhookError) return error;
  return new WebhookError('INTERNAL_ERROR', 'There was a problem handling the webhook call.', { cause: error });
}
