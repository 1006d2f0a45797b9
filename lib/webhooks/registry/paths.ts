/**
 * Webhook paths: normalising what a node registers, decoding what a request asks for, and compiling dynamic
 * `:param` templates once with path-to-regexp.
 */
import { match, type MatchFunction } from 'path-to-regexp';
import { WebhookError } from '../../core/errors.js';

/** A path-to-regexp parameter name; anything else after `:` is refused at activation, not at request time. */
const PARAM_NAME = /^[A-Za-z_$][\w$]*$/;
/** Characters path-to-regexp gives a meaning to; a literal segment has them escaped. */
const PATTERN_SPECIALS = /[{}()[\]+?!:*\\]/g;

/**
 * Normalises a registered path: trims white space, drops leading and trailing slashes, folds repeated slashes.
 * Matching stays case-sensitive, as the known platform's is.
 */
export function normalizeWebhookPath(path: string): string {
  return path.trim().replace(/\/{2,}/g, '/').replace(/^\/+|\/+$/g, '');
}

/** A path is dynamic when one of its segments starts with `:` (the known platform's rule). */
export function isDynamicPath(path: string): boolean {
  return path.startsWith(':') || path.includes('/:');
}

/** The shape of a dynamic path with its parameter names erased: `user/:id` and `user/:name` share one address. */
export function pathShape(path: string): string {
  return path.split('/').map((segment) => (segment.startsWith(':') ? ':' : segment)).join('/');
}

export interface CompiledPath {
  /** Segment count: a request with another count cannot match. */
  segmentCount: number;
  /** First segment when it is literal (the usual webhookId prefix), else undefined. */
  firstLiteral: string | undefined;
  /** Literal segments: more of them makes a template more specific. */
  literalCount: number;
  /** Matches a canonical (decoded then re-encoded) request path; params come back decoded. */
  match: MatchFunction<Record<string, string>>;
}

/** Compiles a normalised dynamic path once. Throws WEBHOOK_INVALID_NODE for a bad parameter name. */
export function compileDynamicPath(path: string): CompiledPath {
  const segments = path.split('/');
  const seen = new Set<string>();
  const pattern = segments.map((segment) => {
    if (!segment.startsWith(':')) return encodeURIComponent(segment).replace(PATTERN_SPECIALS, '\\$&');
    const name = segment.slice(1);
    if (!PARAM_NAME.test(name)) {
      throw new WebhookError('WEBHOOK_INVALID_NODE', `The path "${path}" has an invalid parameter "${segment}".`, {
        hint: 'A path parameter is a whole segment: a colon followed by a name of letters, digits, _ or $ (e.g. "orders/:orderId").',
      });
    }
    if (seen.has(name)) {
      throw new WebhookError('WEBHOOK_INVALID_NODE', `The path "${path}" uses the parameter ":${name}" twice.`);
    }
    seen.add(name);
    return `:${name}`;
  });
  const first = segments[0] ?? '';
  return {
    segmentCount: segments.length,
    firstLiteral: first.startsWith(':') ? undefined : first,
    literalCount: segments.filter((segment) => !segment.startsWith(':')).length,
    match: match<Record<string, string>>(`/${pattern.join('/')}`, { decode: decodeURIComponent }),
  };
}

/** A request path after the prefix, decoded once. */
export interface RequestPath {
  /** Decoded path, the key of static webhooks. */
  decoded: string;
  /** Decoded segments; undefined until needed (a static hit never needs them: see segmentsOf). */
  segments: string[] | undefined;
}

export function segmentsOf(path: RequestPath): string[] {
  path.segments ??= path.decoded.split('/');
  return path.segments;
}

/**
 * Whether a request path is its own decoded form: no trailing slash to trim, nothing percent-encoded, no NUL byte.
 * Nearly every call's path is.
 */
export function isDecodedAlready(rawPath: string): boolean {
  return rawPath.charCodeAt(rawPath.length - 1) !== 47 && !rawPath.includes('%') && !rawPath.includes('\0');
}

/**
 * Decodes a request path (after the prefix, without leading slash). Trailing slashes are ignored.
 * Refuses what no registered path can hold: bad percent-encoding, an encoded `/`, NUL bytes.
 */
export function decodeRequestPath(rawPath: string): RequestPath {
  if (isDecodedAlready(rawPath)) return { decoded: rawPath, segments: undefined };
  const trimmed = rawPath.replace(/\/+$/, '');
  if (!trimmed.includes('%') && !trimmed.includes('\0')) return { decoded: trimmed, segments: undefined };
  const segments = trimmed.split('/').map((segment) => {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch (error) {
      throw new WebhookError('REQUEST_INVALID_PATH', 'The request path has an invalid percent-encoding.', { cause: error });
    }
    if (decoded.includes('/') || decoded.includes('\0')) {
      throw new WebhookError('REQUEST_INVALID_PATH', 'The request path holds an encoded slash or a NUL byte.');
    }
    return decoded;
  });
  return { decoded: segments.join('/'), segments };
}

/** The canonical encoded form a compiled dynamic path is matched against. */
export function canonicalPath(segments: readonly string[]): string {
  return `/${segments.map((segment) => encodeURIComponent(segment)).join('/')}`;
}
