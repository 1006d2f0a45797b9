/**
 * Middleware options: validated and defaulted once, at the factory, into one frozen object. Nothing deeper reads
 * raw options or environment variables. A bad option throws a TypeError naming it.
 */
import type { WebhookError } from './errors.js';
import type { RegisteredWebhook, WebhookKind } from './types.js';

/** Where a failure happened that no HTTP answer can carry (the caller already got its response). */
export interface WorkflowFailureContext {
  workflowId: string;
  nodeName: string;
  mode: WebhookKind;
  webhook: RegisteredWebhook;
}

export interface WebhookLimitsOptions {
  /** Largest buffered (JSON, form, text) body in bytes. Default 16 MiB, as the known platform. */
  bodySize?: number;
}

export interface WebhookMiddlewareOptions {
  /** First path segment of production addresses. Default `webhook`. */
  productionPrefix?: string;
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
}

export interface ResolvedOptions {
  productionPrefix: string;
  publicUrl: string | undefined;
  errorHandling: 'respond' | 'next';
  onWorkflowError: (error: WebhookError, context: WorkflowFailureContext) => void;
  limits: { bodySize: number };
}

const MIB = 1024 * 1024;
const KNOWN_OPTIONS = new Set(['productionPrefix', 'publicUrl', 'errorHandling', 'onWorkflowError', 'limits']);

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
  const { errorHandling = 'respond', onWorkflowError, limits = {} } = options;
  if (errorHandling !== 'respond' && errorHandling !== 'next') fail('errorHandling', '"respond" or "next"', errorHandling);
  if (onWorkflowError !== undefined && typeof onWorkflowError !== 'function') {
    fail('onWorkflowError', 'a function', onWorkflowError);
  }
  if (typeof limits !== 'object' || limits === null) fail('limits', 'an object', limits);
  return Object.freeze({
    productionPrefix: prefix('productionPrefix', options.productionPrefix, 'webhook'),
    publicUrl: publicUrl(options.publicUrl),
    errorHandling,
    onWorkflowError: onWorkflowError ?? reportToStderr,
    limits: Object.freeze({ bodySize: positiveInteger('limits.bodySize', limits.bodySize, 16 * MIB) }),
  });
}
