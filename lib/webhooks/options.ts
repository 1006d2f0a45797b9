/**
 * Middleware options: validated and defaulted once, at the factory, into one frozen object. Nothing deeper reads
 * raw options or environment variables. A bad option throws a TypeError naming it.
 */
import { tmpdir } from 'node:os';
import { isAbsolute } from 'node:path';
import type { WebhookError } from './errors.js';
import type { DeadlineSettings } from './run/deadline.js';
import type { WebhookEventListener } from './events.js';
import type { CredentialResolver } from './guards/authenticate.js';
import type { PayloadLimits } from './payload/limits.js';
import type { RequestLimits } from './request/limits.js';
import type { WebhookKind } from './types.js';
import type { RegisteredWebhook } from './registry/contract.js';

/** Where a failure happened that no HTTP answer can carry (the caller already got its response). */
export interface WorkflowFailureContext {
  workflowId: string;
  nodeName: string;
  mode: WebhookKind;
  webhook: RegisteredWebhook;
}

/** Payload limits in bytes or counts; past one, the call gets a 413 whose code names it. */
export interface WebhookLimitsOptions {
  /** Buffered bodies (JSON, form, text, XML), after inflating. Default 16 MiB, as the known platform. */
  bodySize?: number;
  /** Whole-body binary uploads (any other content type). Default 200 MiB. */
  binarySize?: number;
  /** One multipart file. Default 200 MiB. */
  fileSize?: number;
  /** All multipart files of one call. Default 200 MiB. */
  totalFileSize?: number;
  /** Multipart files per call. Default 100. */
  files?: number;
  /** Form fields per call (multipart and urlencoded). Default 1000. */
  fields?: number;
  /** Multipart parts per call (fields + files). Default 1100. */
  parts?: number;
  /** One multipart field value. Default 1 MiB. */
  fieldSize?: number;
  /** One multipart field or file field name. Default 200 bytes. */
  fieldNameSize?: number;
  /** The request URL, in characters. Default 8192 (414 past it). */
  urlLength?: number;
  /** Request headers. Default 100 (431 past it). */
  headerCount?: number;
  /** Bytes of all request header names and values. Default 12 KiB (431 past it). */
  headerSize?: number;
}

export interface WebhookUploadsOptions {
  /** Where files that do not stay in memory are written. Default: the OS temp directory. */
  tempDir?: string;
  /** Bytes of one call's files kept in memory before the rest goes to disk. Default 1 MiB. */
  memoryThreshold?: number;
}

export interface WebhookMiddlewareOptions {
  /** First path segment of production addresses. Default `webhook`. */
  productionPrefix?: string;
  /** First path segment of test addresses. Default `webhook-test`. */
  testPrefix?: string;
  /**
   * Public base of the addresses as callers see them, e.g. `https://api.example.com/api/automation`; used for the
   * item's `webhookUrl`. Default: the request's Host header and the middleware's mount path.
   */
  publicUrl?: string;
  /** `'respond'` (default): answer errors as JSON `{ code, message, hint? }`. `'next'`: hand them to `next(err)`. */
  errorHandling?: 'respond' | 'next';
  /**
   * Called when a workflow fails after its caller was already answered (responseMode `onReceived`).
   * Default: a one-line report on stderr, so that no failure is lost.
   */
  onWorkflowError?: (error: WebhookError, context: WorkflowFailureContext) => void;
  limits?: WebhookLimitsOptions;
  uploads?: WebhookUploadsOptions;
  /**
   * How long a `lastNode`/`responseNode` call may wait for its answer, in ms. Default 100 000 (the hosted offering's
   * limit); `0` or `Infinity` turns the deadline off.
   */
  responseTimeoutMs?: number;
  /** Status of the answer when the deadline passes. Default 524, as the known platform's proxy answers. */
  timeoutStatus?: number;
  /** Lifecycle events of every call (received, rejected, started, executed, failed, timedOut, responded). */
  onEvent?: WebhookEventListener;
  /**
   * Reverse proxies in front of the server, whose X-Forwarded-For entries are trusted to find the caller's address.
   * Default: the environment variable PLATFORM_PROXY_HOPS (spec 5), read once here, else 0 (X-Forwarded-For ignored).
   */
  proxyHops?: number;
  /** Supplies the credential of a node with basicAuth, headerAuth or jwtAuth. */
  credentials?: CredentialResolver;
}

export interface ResolvedOptions {
  productionPrefix: string;
  testPrefix: string;
  publicUrl: string | undefined;
  errorHandling: 'respond' | 'next';
  onWorkflowError: (error: WebhookError, context: WorkflowFailureContext) => void;
  limits: PayloadLimits & RequestLimits;
  uploads: { tempDir: string; memoryThreshold: number };
  proxyHops: number;
  credentials: CredentialResolver | undefined;
  deadline: DeadlineSettings;
  onEvent: WebhookEventListener | undefined;
}

const MIB = 1024 * 1024;
const KNOWN_OPTIONS = new Set(['productionPrefix', 'testPrefix', 'publicUrl', 'errorHandling', 'onWorkflowError', 'limits', 'uploads',
  'responseTimeoutMs', 'timeoutStatus', 'onEvent', 'proxyHops', 'credentials']);

export const DEFAULT_LIMITS: Readonly<PayloadLimits & RequestLimits> = Object.freeze({
  bodySize: 16 * MIB,
  binarySize: 200 * MIB,
  fileSize: 200 * MIB,
  totalFileSize: 200 * MIB,
  files: 100,
  fields: 1000,
  parts: 1100,
  fieldSize: MIB,
  fieldNameSize: 200,
  urlLength: 8192,
  headerCount: 100,
  headerSize: 12 * 1024,
});

function fail(name: string, expected: string, value: unknown): never {
  throw new TypeError(`workflow-webhooks: option ${name} must be ${expected}; got ${describe(value)}.`);
}

function describe(value: unknown): string {
  if (typeof value === 'function') return 'a function';
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function prefix(name: string, value: unknown, fallback: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string') fail(name, 'a string', value);
  const trimmed = value.replace(/^\/+|\/+$/g, '');
  if (trimmed === '' || !/^[\w.~-]+(\/[\w.~-]+)*$/.test(trimmed)) {
    fail(name, 'a non-empty path of URL-safe segments such as "webhook"', value);
  }
  return trimmed;
}

function positiveInteger(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) fail(name, 'a positive integer', value);
  return value;
}

function publicUrl(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') return fail('publicUrl', 'an absolute http(s) URL', value);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return fail('publicUrl', 'an absolute http(s) URL', value);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') fail('publicUrl', 'an absolute http(s) URL', value);
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

function group<T extends object>(name: string, value: T | undefined, known: readonly string[]): Partial<T> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(name, 'an object', value);
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) throw new TypeError(`workflow-webhooks: unknown option ${name}.${key}.`);
  }
  return value;
}

function resolveLimits(value: WebhookLimitsOptions | undefined): Readonly<PayloadLimits & RequestLimits> {
  const names = Object.keys(DEFAULT_LIMITS) as (keyof typeof DEFAULT_LIMITS)[];
  const given = group('limits', value, names);
  const limits = { ...DEFAULT_LIMITS };
  for (const name of names) limits[name] = positiveInteger(`limits.${name}`, given[name], DEFAULT_LIMITS[name]);
  return Object.freeze(limits);
}

function resolveUploads(value: WebhookUploadsOptions | undefined): Readonly<ResolvedOptions['uploads']> {
  const given = group('uploads', value, ['tempDir', 'memoryThreshold']);
  const tempDir = given.tempDir ?? tmpdir();
  if (typeof tempDir !== 'string' || !isAbsolute(tempDir)) fail('uploads.tempDir', 'an absolute directory path', tempDir);
  const memoryThreshold = given.memoryThreshold === 0 ? 0 : positiveInteger('uploads.memoryThreshold', given.memoryThreshold, MIB);
  return Object.freeze({ tempDir, memoryThreshold });
}

function resolveDeadline(ms: unknown, status: unknown): DeadlineSettings {
  let timeout = 100_000;
  if (ms !== undefined) {
    if (typeof ms !== 'number' || Number.isNaN(ms) || ms < 0) fail('responseTimeoutMs', 'a number of milliseconds, 0 or Infinity', ms);
    timeout = ms;
  }
  if (status !== undefined && (typeof status !== 'number' || !Number.isInteger(status) || status < 400 || status > 599)) {
    fail('timeoutStatus', 'an HTTP error status from 400 to 599', status);
  }
  return { ms: timeout, status: (status as number | undefined) ?? 524 };
}

/** The option, else PLATFORM_PROXY_HOPS (spec 5), else 0: read once, here. */
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

function optionalFunction<T>(name: string, value: T | undefined): T | undefined {
  if (value !== undefined && typeof value !== 'function') fail(name, 'a function', value);
  return value;
}

function reportToStderr(error: WebhookError, context: WorkflowFailureContext): void {
  process.stderr.write(
    `workflow-webhooks: workflow "${context.workflowId}" (node "${context.nodeName}", ${context.mode}) failed after ` +
      `its caller was answered: [${error.code}] ${error.message}${error.cause instanceof Error ? ` (${error.cause.message})` : ''}\n`,
  );
}

export function resolveOptions(options: WebhookMiddlewareOptions = {}): Readonly<ResolvedOptions> {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) fail('options', 'an object', options);
  for (const name of Object.keys(options)) {
    if (!KNOWN_OPTIONS.has(name)) throw new TypeError(`workflow-webhooks: unknown option ${name}.`);
  }
  const { errorHandling = 'respond', onWorkflowError, limits } = options;
  if (errorHandling !== 'respond' && errorHandling !== 'next') fail('errorHandling', '"respond" or "next"', errorHandling);
  optionalFunction('onWorkflowError', onWorkflowError);
  const productionPrefix = prefix('productionPrefix', options.productionPrefix, 'webhook');
  const testPrefix = prefix('testPrefix', options.testPrefix, 'webhook-test');
  if (testPrefix === productionPrefix) fail('testPrefix', 'different from productionPrefix', testPrefix);
  return Object.freeze({
    productionPrefix,
    testPrefix,
    publicUrl: publicUrl(options.publicUrl),
    errorHandling,
    onWorkflowError: onWorkflowError ?? reportToStderr,
    limits: resolveLimits(limits),
    uploads: resolveUploads(options.uploads),
    deadline: Object.freeze(resolveDeadline(options.responseTimeoutMs, options.timeoutStatus)),
    onEvent: optionalFunction('onEvent', options.onEvent),
    proxyHops: resolveProxyHops(options.proxyHops),
    credentials: optionalFunction('credentials', options.credentials),
  });
}
