/**
 * Middleware options: validated and defaulted once, at the factory, into one frozen object. Nothing deeper reads
 * raw options or environment variables. A bad option throws a TypeError naming it.
 */
import type { WebhookError } from '../core/errors.js';
import type { DeadlineSettings } from './run/deadline.js';
import type { CallTelemetry, WebhookEventListener } from '../core/events.js';
import type { CredentialResolver } from './guards/authenticate.js';
import type { PayloadLimits } from './body/limits.js';
import type { MinBodyRate } from './body/request-watch.js';
import { resolveLimits, resolveUploads, type WebhookLimitsOptions, type WebhookUploadsOptions } from '../core/option-limits.js';
import type { RequestLimits } from './request/limits.js';
import type { WebhookKind } from '../core/types.js';
import { safeLogger, STDERR_LOGGER, type WebhookLogger } from '../core/logger.js';
import { OPEN_HEADER_POLICY, type HeaderPolicy } from './response/finalize.js';
import { isHeaderName } from './registry/node-options.js';
import { allowedHosts, fail, group, prefix, publicUrl, resolveTelemetry } from '../core/option-checks.js';

export type { WebhookLimitsOptions, WebhookUploadsOptions } from '../core/option-limits.js';
import type { WorkflowFailureContext } from './run/report.js';
import { resolveWaitingOptions, type ResolvedWaitingOptions, type WaitingMiddlewareOptions } from './waiting/settings.js';
import { resolveOpenApiRoute, type OpenApiRouteOptions, type ResolvedOpenApiRoute } from './describe/settings.js';
import { resolveRateLimitOptions, type RateLimitOptions, type ResolvedRateLimitOptions } from './rate-limit/settings.js';
import { resolveNamedValidators, type NamedValidators, type SchemaMiddlewareOptions } from './validate/index.js';
import { resolveHistory, type HistoryOptions, type ResolvedHistory } from './history/options.js';
import type { Keyring } from '../core/sealing.js';

export interface WebhookMiddlewareOptions extends WaitingMiddlewareOptions, SchemaMiddlewareOptions {
  /** First path segment of production addresses. Default `webhook`. */
  productionPrefix?: string;
  /** First path segment of test addresses. Default `webhook-test`. */
  testPrefix?: string;
  /**
   * Public base of the addresses as callers see them, e.g. `https://api.example.com/api/automation`; used for the
   * item's `webhookUrl`. Default: the request's Host header and the middleware's mount path.
   */
  publicUrl?: string;
  /**
   * The names this server answers webhook calls for (`api.example.com`, `api.example.com:8443`, `*.example.com`):
   * a call whose Host (or, behind `proxyHops`, X-Forwarded-Host) is another one gets 421 `HOST_NOT_ALLOWED`, so no
   * caller can make `webhookUrl` point elsewhere. Default: any host, and without `publicUrl` or `proxyHops` the
   * logger is warned once, at the first call addressed to a name other than localhost.
   */
  allowedHosts?: string[];
  /** `'respond'` (default): answer errors as JSON `{ code, message, hint? }`. `'next'`: hand them to `next(err)`. */
  errorHandling?: 'respond' | 'next';
  /**
   * Called for every workflow failure, with `answered` telling whether the caller had its answer already
   * (responseMode `onReceived`) or gets the error. Default: the failure goes to the `logger`.
   */
  onWorkflowError?: (error: WebhookError, context: WorkflowFailureContext) => void;
  limits?: WebhookLimitsOptions;
  uploads?: WebhookUploadsOptions;
  /**
   * How long a `lastNode`/`responseNode` call may wait for its answer, in ms. Default 100 000 (the hosted offering's
   * limit); `0` or `Infinity` turns the deadline off.
   */
  responseTimeoutMs?: number;
  /** Status of the answer when the deadline passes: 400–599 but 401 and 407. Default 524 (what Cloudflare-style proxies answer on a timeout). */
  timeoutStatus?: number;
  /** Lifecycle events of every call (received, rejected, started, executed, failed, timedOut, responded). */
  onEvent?: WebhookEventListener;
  /**
   * Traces and metrics of every call: `webhookTelemetry()` of `workflow-webhooks/opentelemetry`, or anything that
   * hears the events and runs a call's workflow in the call's context.
   */
  telemetry?: CallTelemetry;
  /**
   * Reverse proxies in front of the server, whose X-Forwarded-For entries are trusted to find the caller's address.
   * Default: the environment variable PLATFORM_PROXY_HOPS, read once here, else 0 (X-Forwarded-For ignored).
   */
  proxyHops?: number;
  /** Supplies the credential of a node with basicAuth, headerAuth or jwtAuth. */
  credentials?: CredentialResolver;
  /**
   * Receives every internal failure and every 5xx with its cause (pino, console, or anything with `error(fields,
   * message)` and `warn(fields, message)`). Default: one JSON line per record on stderr.
   */
  logger?: WebhookLogger;
  /** Request header whose value becomes the call's `callId` (a new UUID when absent). Default `x-request-id`. */
  requestIdHeader?: string;
  /**
   * Longest time a run may take, in ms, whatever the response mode: then `run.signal` aborts and the call's temp
   * files are removed. Default 600 000 (10 minutes); `0` or `Infinity` turns it off.
   */
  maxRunMs?: number;
  /** A request body that sends no bytes for this long, in ms, is answered 408 `BODY_TIMEOUT`. Default 30 000. */
  bodyTimeoutMs?: number;
  /**
   * The least rate a request body must keep to, as Apache's mod_reqtimeout `MinRate` has it: a body may take
   * `graceMs`, and one second more for every `bytesPerSecond` bytes it sends; slower, it is answered 408
   * `BODY_TOO_SLOW` and its temp files are removed. Catches what `bodyTimeoutMs` cannot: a body trickled a few bytes
   * at a time, which would otherwise hold its socket and buffers until the server's `requestTimeout` (300 s in Node).
   * Default `{ bytesPerSecond: 500, graceMs: 10_000 }` (4 kbit/s, a fraction of what even a GPRS link uploads).
   * `false` turns it off.
   */
  minBodyRate?: { bytesPerSecond?: number; graceMs?: number } | false;
  /**
   * Response headers no workflow may set, e.g. `['set-cookie']`: left out of the answer whether the node's Response
   * Headers option or `respond()` sets them, and reported once per name to the `logger`. Content-Type and
   * Content-Length cannot be listed (the middleware sets them). Default none.
   */
  forbiddenResponseHeaders?: string[];
  /** Serves the OpenAPI document of the active webhooks (describeWebhooks) at `path` below the mount. Default: not served. */
  openApi?: OpenApiRouteOptions;
  /**
   * Rate limits: a default for every production address whose workflow's `settings.rateLimit` sets none, which
   * headers go out, and what happens while the registry's store (Redis) cannot count. Default: no address is limited.
   */
  rateLimit?: RateLimitOptions;
  /** Keeps calls to find and replay them (`middleware.history`): `{ store, keep?, bodyBytes?, … }`. Default: none kept. */
  history?: HistoryOptions;
}

export interface ResolvedOptions {
  productionPrefix: string;
  testPrefix: string;
  publicUrl: string | undefined;
  /** Lower-cased; undefined: any host. */
  allowedHosts: readonly string[] | undefined;
  errorHandling: 'respond' | 'next';
  onWorkflowError: ((error: WebhookError, context: WorkflowFailureContext) => void) | undefined;
  limits: PayloadLimits & RequestLimits;
  uploads: { tempDir: string; memoryThreshold: number };
  proxyHops: number;
  credentials: CredentialResolver | undefined;
  deadline: DeadlineSettings;
  onEvent: WebhookEventListener | undefined;
  telemetry: CallTelemetry | undefined;
  logger: WebhookLogger;
  /** Lower-cased. */
  requestIdHeader: string;
  /** Infinity when off. */
  maxRunMs: number;
  bodyTimeoutMs: number;
  /** Undefined: off. */
  minBodyRate: Readonly<MinBodyRate> | undefined;
  headerPolicy: HeaderPolicy;
  openApi: ResolvedOpenApiRoute | undefined;
  /** Resume addresses: their signing secret (undefined: runs cannot wait) and prefix. */
  waiting: ResolvedWaitingOptions;
  rateLimit: ResolvedRateLimitOptions;
  /** The validators workflows' `schemas` name (option `schemas`). */
  schemas: NamedValidators;
  /** Call history; undefined: none kept. */
  history: ResolvedHistory | undefined;
}

const KNOWN_OPTIONS = new Set(['productionPrefix', 'testPrefix', 'publicUrl', 'allowedHosts', 'errorHandling', 'onWorkflowError', 'limits', 'uploads',
  'responseTimeoutMs', 'timeoutStatus', 'onEvent', 'telemetry', 'proxyHops', 'credentials', 'logger', 'requestIdHeader', 'maxRunMs', 'bodyTimeoutMs',
  'minBodyRate', 'forbiddenResponseHeaders', 'openApi', 'waitingSecret', 'waitingPrefix', 'rateLimit',
  'schemas', 'history']);

function resolveDeadline(ms: unknown, status: unknown): DeadlineSettings {
  let timeout = 100_000;
  if (ms !== undefined) {
    if (typeof ms !== 'number' || Number.isNaN(ms) || ms < 0) fail('responseTimeoutMs', 'a number of milliseconds, 0 or Infinity', ms);
    timeout = ms;
  }
  // A 401 or 407 must carry a challenge (WWW-Authenticate, Proxy-Authenticate), and a deadline has none to give.
  if (status !== undefined && (typeof status !== 'number' || !Number.isInteger(status) || status < 400 || status > 599 || status === 401 || status === 407)) {
    fail('timeoutStatus', 'an HTTP error status from 400 to 599 other than 401 and 407 (they need an authentication challenge)', status);
  }
  return { ms: timeout, status: (status as number | undefined) ?? 524 };
}

/** The option, else PLATFORM_PROXY_HOPS, else 0: read once, here. */
function resolveProxyHops(value: unknown): number {
  if (value !== undefined) {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) fail('proxyHops', 'a whole number of proxies (0 or more)', value);
    return value;
  }
  const env = process.env.PLATFORM_PROXY_HOPS;
  if (env === undefined || env.trim() === '') return 0;
  const hops = Number(env);
  if (!Number.isInteger(hops) || hops < 0) fail('proxyHops (from PLATFORM_PROXY_HOPS)', 'a whole number of proxies (0 or more)', env);
  return hops;
}

/** Milliseconds, or 0/Infinity for "no limit" where `offAllowed`. */
function duration(name: string, value: unknown, fallback: number, offAllowed: boolean): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || Number.isNaN(value) || value < 0 || (!offAllowed && (value === 0 || value === Infinity))) {
    fail(name, offAllowed ? 'a number of milliseconds, 0 or Infinity' : 'a positive number of milliseconds', value);
  }
  return offAllowed && value === 0 ? Infinity : value;
}

const DEFAULT_MIN_BODY_RATE: Readonly<MinBodyRate> = Object.freeze({ bytesPerSecond: 500, graceMs: 10_000 });

function resolveMinBodyRate(value: WebhookMiddlewareOptions['minBodyRate'] | undefined): Readonly<MinBodyRate> | undefined {
  if (value === false) return undefined;
  if (value !== undefined && (typeof value !== 'object' || value === null || Array.isArray(value))) {
    fail('minBodyRate', 'an object { bytesPerSecond, graceMs } or false', value);
  }
  const given = group('minBodyRate', value, ['bytesPerSecond', 'graceMs']);
  const { bytesPerSecond = DEFAULT_MIN_BODY_RATE.bytesPerSecond, graceMs = DEFAULT_MIN_BODY_RATE.graceMs } = given;
  if (typeof bytesPerSecond !== 'number' || !Number.isFinite(bytesPerSecond) || bytesPerSecond <= 0) {
    fail('minBodyRate.bytesPerSecond', 'a positive number of bytes per second', bytesPerSecond);
  }
  if (typeof graceMs !== 'number' || !Number.isFinite(graceMs) || graceMs <= 0) fail('minBodyRate.graceMs', 'a positive number of milliseconds', graceMs);
  return value === undefined ? DEFAULT_MIN_BODY_RATE : Object.freeze({ bytesPerSecond, graceMs });
}

function requestIdHeader(value: unknown): string {
  if (value === undefined) return 'x-request-id';
  if (!isHeaderName(value)) fail('requestIdHeader', 'a header name', value);
  return value.toLowerCase();
}

/** The host's forbidden response headers, lower-cased; each one dropped is logged the first time. */
function resolveHeaderPolicy(value: unknown, logger: WebhookLogger): HeaderPolicy {
  if (value === undefined) return OPEN_HEADER_POLICY;
  if (!Array.isArray(value) || !value.every(isHeaderName)) {
    fail('forbiddenResponseHeaders', 'an array of header names', value);
  }
  const forbidden = new Set((value as string[]).map((name) => name.toLowerCase()));
  for (const own of ['content-type', 'content-length']) {
    if (forbidden.has(own)) fail('forbiddenResponseHeaders', `a list without ${own} (the middleware sets it)`, value);
  }
  const told = new Set<string>();
  return Object.freeze({
    forbidden,
    dropped(name: string) {
      if (told.has(name)) return;
      told.add(name);
      logger.warn({ header: name }, `workflow-webhooks: a workflow set the response header ${name}, which the option `
        + 'forbiddenResponseHeaders forbids; it was left out of the answer. Reported once per header.');
    },
  });
}

function resolveLogger(value: unknown): WebhookLogger {
  if (value === undefined) return STDERR_LOGGER;
  const logger = value as Partial<WebhookLogger> | null;
  if (typeof logger?.error !== 'function' || typeof logger.warn !== 'function') fail('logger', 'an object with error() and warn() methods', value);
  return safeLogger(logger as WebhookLogger);
}

function optionalFunction<T>(name: string, value: T | undefined): T | undefined {
  if (value !== undefined && typeof value !== 'function') fail(name, 'a function', value);
  return value;
}

/** `queueKeyring`: the keys a queue executor seals runs with, history's default keys. */
export function resolveOptions(options: WebhookMiddlewareOptions = {}, queueKeyring?: Keyring): Readonly<ResolvedOptions> {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) fail('options', 'an object', options);
  for (const name of Object.keys(options)) {
    if (!KNOWN_OPTIONS.has(name)) throw new TypeError(`workflow-webhooks: unknown option ${name}.`);
  }
  const { errorHandling = 'respond', onWorkflowError, limits } = options;
  if (errorHandling !== 'respond' && errorHandling !== 'next') fail('errorHandling', '"respond" or "next"', errorHandling);
  optionalFunction('onWorkflowError', onWorkflowError);
  const productionPrefix = prefix('productionPrefix', options.productionPrefix, 'webhook');
  const testPrefix = prefix('testPrefix', options.testPrefix, 'webhook-test');
  if (testPrefix.toLowerCase() === productionPrefix.toLowerCase()) fail('testPrefix', 'different from productionPrefix', testPrefix);
  const waiting = resolveWaitingOptions(options, [productionPrefix, testPrefix]);
  const logger = resolveLogger(options.logger);
  return Object.freeze({
    productionPrefix,
    testPrefix,
    publicUrl: publicUrl(options.publicUrl),
    allowedHosts: allowedHosts(options.allowedHosts),
    errorHandling,
    onWorkflowError,
    limits: resolveLimits(limits),
    uploads: resolveUploads(options.uploads),
    deadline: Object.freeze(resolveDeadline(options.responseTimeoutMs, options.timeoutStatus)),
    onEvent: optionalFunction('onEvent', options.onEvent),
    telemetry: resolveTelemetry(options.telemetry),
    proxyHops: resolveProxyHops(options.proxyHops),
    credentials: optionalFunction('credentials', options.credentials),
    logger,
    requestIdHeader: requestIdHeader(options.requestIdHeader),
    maxRunMs: duration('maxRunMs', options.maxRunMs, 600_000, true),
    bodyTimeoutMs: duration('bodyTimeoutMs', options.bodyTimeoutMs, 30_000, false),
    minBodyRate: resolveMinBodyRate(options.minBodyRate),
    headerPolicy: resolveHeaderPolicy(options.forbiddenResponseHeaders, logger),
    openApi: resolveOpenApiRoute(options.openApi, [productionPrefix, testPrefix, waiting.prefix]),
    waiting,
    rateLimit: resolveRateLimitOptions(options.rateLimit, waiting.secret),
    schemas: resolveNamedValidators(options.schemas),
    history: resolveHistory(options.history, queueKeyring),
  });
}
