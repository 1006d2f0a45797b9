/**
 * The checks every option goes through at the factory: each failure is a TypeError that names the option, says
 * what it must be and shows what it got.
 */
import bytes from 'bytes';
import type { CallTelemetry } from './events.js';

export function fail(name: string, expected: string, value: unknown): never {
  throw new TypeError(`workflow-webhooks: option ${name} must be ${expected}; got ${describeValue(value)}.`);
}

export function describeValue(value: unknown): string {
  if (typeof value === 'function') return 'a function';
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

export function prefix(name: string, value: unknown, fallback: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string') fail(name, 'a string', value);
  const trimmed = value.replace(/^\/+|\/+$/g, '');
  if (trimmed === '' || !/^[\w.~-]+(\/[\w.~-]+)*$/.test(trimmed)) {
    fail(name, 'a non-empty path of URL-safe segments such as "webhook"', value);
  }
  return trimmed;
}

export function positiveInteger(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) fail(name, 'a positive integer', value);
  return value;
}

export function publicUrl(value: unknown): string | undefined {
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

export function group<T extends object>(name: string, value: T | undefined, known: readonly string[]): Partial<T> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(name, 'an object', value);
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) throw new TypeError(`workflow-webhooks: unknown option ${name}.${key}.`);
  }
  return value;
}

const HOST_NAME = /^(\*\.)?[a-z\d]([a-z\d-]*[a-z\d])?(\.[a-z\d]([a-z\d-]*[a-z\d])?)*(:\d{1,5})?$|^\[[\da-f:.]+\](:\d{1,5})?$/;

/** Host names a call may be addressed to: `api.example.com`, `api.example.com:8443`, `*.example.com`, `[::1]`. */
export function allowedHosts(value: unknown): readonly string[] | undefined {
  if (value === undefined) return undefined;
  const expected = 'a non-empty array of host names such as ["api.example.com", "*.example.com"]';
  if (!Array.isArray(value) || value.length === 0) return fail('allowedHosts', expected, value);
  return Object.freeze(value.map((entry: unknown) => {
    const name = typeof entry === 'string' ? entry.trim().toLowerCase() : '';
    if (!HOST_NAME.test(name)) fail('allowedHosts', `${expected} (no scheme, no path)`, entry);
    return name;
  }));
}

/** A size as body-parser and multer users write it: bytes as a number, or a string with a unit (`'500kb'`, `'1.5mb'`). */
export type ByteSize = number | string;

/**
 * A size in bytes from a number or a string with a unit (`b`, `kb`, `mb`, `gb`, `tb`; 1 kb = 1024 bytes, case and
 * a space before the unit do not matter). `zeroAllowed`: 0 is a valid size (turns the thing off).
 */
export function byteSize(name: string, value: unknown, fallback: number, zeroAllowed = false): number {
  if (value === undefined) return fallback;
  const expected = `a size in bytes: a positive integer or a string such as "500kb" or "1.5mb"${zeroAllowed ? ' (or 0)' : ''}`;
  const parsed = typeof value === 'string' && /^\s*\d+(\.\d+)?\s*(b|kb|mb|gb|tb|pb)?\s*$/i.test(value) ? bytes.parse(value) : value;
  if (typeof parsed !== 'number' || !Number.isSafeInteger(parsed) || parsed < 0 || (parsed === 0 && !zeroAllowed)) fail(name, expected, value);
  return parsed;
}

/** The `telemetry` option: something that hears a call's events and runs its workflow in the call's context. */
export function resolveTelemetry(value: CallTelemetry | undefined): CallTelemetry | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || typeof value.onEvent !== 'function' || typeof value.within !== 'function') {
    fail('telemetry', 'an object with onEvent() and within() (webhookTelemetry() of workflow-webhooks/opentelemetry)', value);
  }
  return value;
}
