/**
 * The options of describing, checked once: those of `describeWebhooks()` and the middleware's `openApi` option
 * (which `options.ts` resolves through here at the factory). A bad one throws a TypeError naming it, as every other
 * option does; an unknown one is refused.
 */
import type { DocumentSettings } from './document.js';
import type { CredentialLookup } from './security.js';
import { resolveRateLimits, type RateLimitPolicy } from '../../core/rate-limits.js';
import type { StandardSchema } from '../../core/schemas.js';

export interface DescribeWebhooksOptions {
  /**
   * Where the middleware is mounted, as callers reach it: `https://api.example.com/api/automation` (what the
   * middleware's `publicUrl` says), or a path from the host's root such as `/api/automation`. Paths follow it with
   * the production prefix: `/webhook/orders/{id}`. A base URL that ends with the prefix already
   * (`…/api/automation/webhook`) is taken as where the addresses start: paths then follow it without the prefix.
   */
  baseUrl: string;
  /** The document's title. Default `Webhooks`. */
  title?: string;
  /** The version of the described API (the host's, not this package's). Default `1.0.0`. */
  version?: string;
  /** The document's description. Default: a paragraph on what it describes and how errors are answered. */
  description?: string;
  /** The middleware's `productionPrefix`, when it is not `webhook`. */
  productionPrefix?: string;
  /** The middleware's `timeoutStatus`, when it is not 524. */
  timeoutStatus?: number;
  /** The middleware's `waitingPrefix` (`webhook-waiting` by default), to describe the resume addresses of waiting runs. Default: not described. */
  waitingPrefix?: string;
  /**
   * The middleware's `credentials` resolver: it names the header of header auth and the sender's scheme of a signed
   * webhook, which the registry does not know. Only names are read from what it returns, never a secret.
   */
  credentials?: CredentialLookup;
  /** The middleware's `rateLimit.default`, so that addresses limited by it are described with their 429. Default: none. */
  rateLimit?: RateLimitPolicy | readonly RateLimitPolicy[];
  /**
   * The middleware's `schemas` validators: one that converts itself to JSON Schema (Standard JSON Schema, as zod's
   * does) is described like a JSON Schema; the others as validated but not described. Default none.
   */
  schemas?: Record<string, StandardSchema>;
}

/** The middleware option `openApi`: the document served at `path` below the mount, answered to GET and HEAD. */
export interface OpenApiRouteOptions {
  /** Below the middleware's mount, outside its webhook prefixes. Default `/openapi.json`. */
  path?: string;
  title?: string;
  version?: string;
  description?: string;
}

export type ResolvedOpenApiRoute = Required<Omit<OpenApiRouteOptions, 'description'>> & { description: string | undefined };

function invalid(name: string, expected: string, value: unknown): never {
  let shown: string;
  try {
    shown = typeof value === 'function' ? 'a function' : JSON.stringify(value) ?? String(value);
  } catch {
    shown = String(value);
  }
  throw new TypeError(`workflow-webhooks: option ${name} must be ${expected}; got ${shown}.`);
}

function objectOf(name: string, value: unknown, known: readonly string[]): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) invalid(name, 'an object', value);
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) throw new TypeError(`workflow-webhooks: unknown option ${name}.${key}.`);
  }
  return value as Record<string, unknown>;
}

function text(name: string, value: unknown, fallback: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || value.trim() === '') invalid(name, 'a non-empty string', value);
  return value;
}

const SEGMENTS = /^[\w.~-]+(\/[\w.~-]+)*$/;

function baseUrlOf(value: unknown): string {
  if (typeof value === 'string' && value.startsWith('/') && !value.startsWith('//') && !/[?#\s]/.test(value)) return value.replace(/\/+$/, '') || '/';
  let url: URL | undefined;
  try {
    url = typeof value === 'string' ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    invalid('baseUrl', 'an absolute http(s) URL or a path from the host\'s root, where the middleware is mounted', value);
  }
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

/** The validators by name; a value that is not a validator object is refused as the middleware's option is. */
function validatorsOf(value: unknown): ReadonlyMap<string, StandardSchema> {
  const named = new Map<string, StandardSchema>();
  for (const [name, validator] of Object.entries(objectOf('schemas', value, Object.keys(value as object)))) {
    if (typeof (validator as Partial<StandardSchema> | null)?.['~standard']?.validate !== 'function') {
      invalid(`schemas.${name}`, 'a validator implementing Standard Schema v1', validator);
    }
    named.set(name, validator as StandardSchema);
  }
  return named;
}

export function describeSettings(options: DescribeWebhooksOptions): DocumentSettings {
  const given = objectOf('describeWebhooks', options,
    ['baseUrl', 'title', 'version', 'description', 'productionPrefix', 'timeoutStatus', 'credentials', 'waitingPrefix', 'rateLimit', 'schemas']);
  const waitingPrefix = given.waitingPrefix === undefined ? undefined : String(given.waitingPrefix).replace(/^\/+|\/+$/g, '');
  if (waitingPrefix !== undefined && (typeof given.waitingPrefix !== 'string' || !SEGMENTS.test(waitingPrefix))) {
    invalid('waitingPrefix', 'a non-empty path of URL-safe segments such as "webhook-waiting"', given.waitingPrefix);
  }
  const prefix = given.productionPrefix === undefined ? 'webhook' : String(given.productionPrefix).replace(/^\/+|\/+$/g, '');
  if (given.productionPrefix !== undefined && (typeof given.productionPrefix !== 'string' || !SEGMENTS.test(prefix))) {
    invalid('productionPrefix', 'a non-empty path of URL-safe segments such as "webhook"', given.productionPrefix);
  }
  const status = given.timeoutStatus ?? 524;
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 400 || status > 599 || status === 401 || status === 407) {
    invalid('timeoutStatus', 'an HTTP error status from 400 to 599 other than 401 and 407 (they need an authentication challenge)', status);
  }
  if (given.credentials !== undefined && typeof given.credentials !== 'function') invalid('credentials', 'a function', given.credentials);
  const baseUrl = baseUrlOf(given.baseUrl);
  // A base URL that names the prefix already (`…/automation/webhook`) is where the addresses start: paths follow it.
  const named = baseUrl.toLowerCase().endsWith(`/${prefix.toLowerCase()}`);
  return {
    baseUrl,
    title: text('title', given.title, 'Webhooks'),
    version: text('version', given.version, '1.0.0'),
    description: given.description === undefined ? undefined : text('description', given.description, ''),
    productionPrefix: named ? '' : prefix,
    // Resume addresses sit beside the production prefix: a base URL that names that prefix leaves them out.
    waitingPrefix: named ? undefined : waitingPrefix,
    timeoutStatus: status,
    credentials: given.credentials as CredentialLookup | undefined,
    rateLimit: resolveRateLimits(given.rateLimit, 'rateLimit', invalid, false) || undefined,
    validators: given.schemas === undefined ? undefined : validatorsOf(given.schemas),
  };
}

/** The middleware's `openApi` option; its path may not lie inside a webhook prefix, whose addresses are workflows'. */
export function resolveOpenApiRoute(value: unknown, prefixes: readonly string[]): ResolvedOpenApiRoute | undefined {
  if (value === undefined) return undefined;
  const given = objectOf('openApi', value, ['path', 'title', 'version', 'description']);
  const path = given.path ?? '/openapi.json';
  if (typeof path !== 'string' || !path.startsWith('/') || !SEGMENTS.test(path.slice(1))) {
    invalid('openApi.path', 'a path below the mount such as "/openapi.json"', path);
  }
  // Prefixes match in any letter case, as the request stage reads them.
  const lower = path.toLowerCase();
  if (prefixes.some((prefix) => lower === `/${prefix.toLowerCase()}` || lower.startsWith(`/${prefix.toLowerCase()}/`))) {
    invalid('openApi.path', `a path outside the webhook prefixes (${prefixes.join(', ')})`, path);
  }
  return Object.freeze({
    path,
    title: text('openApi.title', given.title, 'Webhooks'),
    version: text('openApi.version', given.version, '1.0.0'),
    description: given.description === undefined ? undefined : text('openApi.description', given.description, ''),
  });
}
