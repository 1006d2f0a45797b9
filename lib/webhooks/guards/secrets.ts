/**
 * Redacts the credentials a call carried, wherever its data leaves the request path for a person or a store (the
 * console's panes, API answers, event stream, curl line and download names; the queue's job data; the call's path in
 * events, recent calls and log lines). One function, `redactSecrets`, so that every such place hides the same things:
 *
 * - by name: the values of headers, query parameters and path parameters whose names carry credentials
 *   (`authorization`, `proxy-authorization`, `cookie`, `set-cookie`, and names made of words such as token, key,
 *   secret, password, signature, session or auth), and of the header the node's own authentication checked;
 * - by value: every value redacted by name, and what it holds (a Bearer token, the password inside Basic
 *   credentials, each cookie's value), wherever it appears again in any string of the data, the workflow's output
 *   included. A value shorter than MIN_MATCHED_LENGTH characters is not looked for inside other strings, where it
 *   would match too much; a string that is exactly the checked header's value (or what it holds) is replaced at any
 *   length. All of a call's values are looked for in one pass over a string (secret-matcher.ts), and where two
 *   overlap, every character of both is hidden.
 *
 * Only names are read from a credential (`checkedHeaderOf`): its secret is never needed to hide it.
 */
import { SIGNATURE_HEADERS, type Authentication, type Item } from '../../core/types.js';
import { secretMatcher, type SecretMatcher } from './secret-matcher.js';

/** What stands where a secret was. */
export const REDACTED = '[redacted]';

/** Secrets shorter than this are not searched for inside other strings. */
export const MIN_MATCHED_LENGTH = 6;

const ALWAYS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie']);

/** Words of a name that say it carries a credential (`x-api-key`, `access_token`, `clientSecret`, `sig`). */
const WORDS = new Set([
  'token', 'secret', 'password', 'passwd', 'pwd', 'passphrase', 'signature', 'sig', 'hmac', 'key', 'apikey', 'auth',
  'authorization', 'authentication', 'session', 'sessionid', 'credential', 'credentials', 'jwt', 'bearer', 'cookie',
]);
/** A word that ends like this carries one too, run together with another word (`accesstoken`, `xapikey`). */
const ENDINGS = /(token|secret|password|apikey)$/;

/** Objects whose keys are names of request data: the rule by name applies inside them, at any depth. */
const NAMED = new Set(['headers', 'query', 'params']);

/**
 * Names already judged: a call's header names repeat from call to call, and judging one splits and tests its words.
 * Bounded in count and in a name's length, so names a caller makes up cannot grow it; emptied when full.
 */
const judged = new Map<string, boolean>();
const MAX_JUDGED = 1000;
const MAX_JUDGED_LENGTH = 100;

/** Whether a header, query parameter or path parameter of this name carries a credential. */
export function isSecretName(name: string): boolean {
  let secret = judged.get(name);
  if (secret === undefined) {
    secret = judgeName(name);
    if (name.length > MAX_JUDGED_LENGTH) return secret;
    if (judged.size >= MAX_JUDGED) judged.clear();
    judged.set(name, secret);
  }
  return secret;
}

function judgeName(name: string): boolean {
  if (ALWAYS.has(name.toLowerCase())) return true;
  return name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase().split(/[^a-z0-9]+/).some((word) => {
    const single = word.endsWith('s') ? word.slice(0, -1) : word;
    return WORDS.has(word) || WORDS.has(single) || ENDINGS.test(single);
  });
}

/**
 * The header a node's authentication checks (lower case), from the credential the host's resolver gives; undefined
 * when the node has none or the credential does not say. Reads header names only.
 */
export function checkedHeaderOf(authentication: Authentication, credential: Record<string, unknown> | undefined): string | undefined {
  switch (authentication) {
    case 'basicAuth':
    case 'jwtAuth':
      return 'authorization';
    case 'headerAuth':
      return typeof credential?.name === 'string' && credential.name !== '' ? credential.name.toLowerCase() : undefined;
    case 'signatureAuth': {
      const scheme = credential?.scheme;
      if (typeof scheme === 'string' && Object.hasOwn(SIGNATURE_HEADERS, scheme)) {
        return SIGNATURE_HEADERS[scheme as keyof typeof SIGNATURE_HEADERS].signature.toLowerCase();
      }
      return scheme === 'custom' && typeof credential?.header === 'string' && credential.header !== '' ? credential.header.toLowerCase() : undefined;
    }
    default:
      return undefined;
  }
}

/** What is secret in one call: found once, from its trigger items, and applied to everything shown of it. */
export interface CallSecrets {
  /** The header the node's authentication checked (lower case), redacted by name beside the named ones. */
  readonly checkedHeader: string | undefined;
  /** Values replaced wherever they appear inside a string, longest first. */
  readonly contained: readonly string[];
  /** Values replaced where a whole string equals them, whatever their length: the checked header's. */
  readonly whole: ReadonlySet<string>;
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : {};
}

function leaves(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (typeof value === 'number' || typeof value === 'bigint') return [String(value)];
  if (Array.isArray(value)) return value.flatMap(leaves);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(leaves);
  return [];
}

/** What a credential's value holds beside itself: a scheme's token, Basic's password, each cookie's value. */
function heldBy(name: string, text: string): string[] {
  const held = [text.trim()];
  if (name === 'cookie' || name === 'set-cookie') {
    // Set-Cookie's first pair is the cookie; the rest are its attributes (Path, Domain), not secrets.
    const pairs = name === 'cookie' ? text.split(';') : text.split(';').slice(0, 1);
    for (const pair of pairs) {
      const at = pair.indexOf('=');
      if (at !== -1) held.push(pair.slice(at + 1).trim().replace(/^"(.*)"$/, '$1'));
    }
    return held;
  }
  // Trimmed first: a pattern that trims itself (`(\S.*?)\s*$`) backtracks over a long run of inner spaces.
  const scheme = /^([\w.+-]+)\s+(\S.*)$/.exec(text.trim());
  if (scheme !== null) {
    const token = scheme[2] as string;
    held.push(token);
    if ((scheme[1] as string).toLowerCase() === 'basic') {
      const decoded = Buffer.from(token, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon !== -1) held.push(decoded, decoded.slice(colon + 1));
    }
  }
  return held;
}

/**
 * The secrets of a call, from its trigger items as the middleware built them (`json.headers`, `json.query`,
 * `json.params`), and the header its node's authentication checked (see checkedHeaderOf).
 */
export function callSecrets(items: readonly Item[], checkedHeader?: string): CallSecrets {
  const checked = checkedHeader?.toLowerCase();
  const found = new Set<string>();
  const whole = new Set<string>();
  for (const item of items) {
    const json = record(item.json);
    for (const [part, values] of [['headers', json.headers], ['query', json.query], ['params', json.params]] as const) {
      for (const [name, value] of Object.entries(record(values))) {
        const lower = name.toLowerCase();
        const isChecked = part === 'headers' && lower === checked;
        if (!isChecked && !isSecretName(name)) continue;
        for (const text of leaves(value)) {
          for (const secret of heldBy(part === 'headers' ? lower : '', text)) {
            if (secret === '') continue;
            found.add(secret);
            // A value as it reads inside a URL the workflow may build or echo.
            found.add(encodeURIComponent(secret));
            if (isChecked) whole.add(secret);
          }
        }
      }
    }
  }
  const contained = [...found].filter((secret) => secret.length >= MIN_MATCHED_LENGTH).sort((a, b) => b.length - a.length);
  return { checkedHeader: checked, contained, whole };
}

/** One matcher per call's secrets, made when its first string is scrubbed; it goes with the call's secrets. */
const matchers = new WeakMap<readonly string[], SecretMatcher>();

/** A matcher of these secrets, made once for them (see secret-matcher.ts). */
export function matcherOf(secrets: readonly string[]): SecretMatcher {
  let matcher = matchers.get(secrets);
  if (matcher === undefined) {
    matcher = secretMatcher(secrets);
    matchers.set(secrets, matcher);
  }
  return matcher;
}

function scrub(text: string, secrets: CallSecrets): string {
  if (secrets.whole.has(text)) return REDACTED;
  return secrets.contained.length === 0 ? text : matcherOf(secrets.contained).replaced(text, REDACTED);
}

function isRedactedName(name: string, part: string, secrets: CallSecrets): boolean {
  return isSecretName(name) || (part === 'headers' && name.toLowerCase() === secrets.checkedHeader);
}

function redact(value: unknown, secrets: CallSecrets, part: string | undefined): unknown {
  if (typeof value === 'string') return scrub(value, secrets);
  if (Array.isArray(value)) return value.map((entry) => redact(entry, secrets, part));
  if (typeof value !== 'object' || value === null) return value;
  // fromEntries defines own keys, so that a key such as `__proto__` stays a plain key.
  return Object.fromEntries(Object.entries(value).map(([name, entry]) => {
    const key = scrub(name, secrets);
    if (part !== undefined && isRedactedName(name, part, secrets)) return [key, REDACTED];
    return [key, redact(entry, secrets, part ?? (NAMED.has(name) ? name : undefined))];
  }));
}

/** No value to look for: redactSecrets then hides by name only. */
const BY_NAME_ONLY: CallSecrets = { checkedHeader: undefined, contained: [], whole: new Set() };

/**
 * A request path (what follows its prefix) as it may be shown: each segment that fills a `:param` of the address's
 * template and that redactSecrets hides by its name (`reset/:token`) is `[redacted]`, the rest as sent. For whatever
 * takes the path alone (the `received` event, so recent calls, call logs and the console's `call` event, and log
 * lines), where the Input pane and the curl line take the redacted `params`.
 */
export function redactPath(rawPath: string, template: string): string {
  const names = template.split('/');
  const segments = rawPath.replace(/\/+$/, '').split('/');
  if (segments.length !== names.length || !template.includes(':')) return rawPath;
  const params: Record<string, string> = {};
  names.forEach((name, index) => { if (name.startsWith(':')) params[name.slice(1)] = segments[index] as string; });
  const shown = redactSecrets({ params }, BY_NAME_ONLY).params;
  return segments.map((segment, index) => {
    const name = names[index] as string;
    return name.startsWith(':') && shown[name.slice(1)] === REDACTED ? REDACTED : segment;
  }).join('/');
}

/**
 * The data with the call's secrets replaced by `[redacted]`: by name inside any `headers`, `query` or `params`
 * object, by value in every string and key. Takes JSON data (what JSON.stringify keeps) and returns a copy.
 */
export function redactSecrets<T>(data: T, secrets: CallSecrets): T {
  return redact(data, secrets, undefined) as T;
}
