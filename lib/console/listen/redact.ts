/**
 * Which request headers carry credentials: their values never leave the server in captured test data (the page,
 * the curl line). Standard ones by name, and any header whose name says it holds a token, key, secret, signature,
 * password or session.
 */
const ALWAYS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie']);
const SECRET_WORDS = /(^|[-_])(token|secret|signature|api-?key|key|auth|authorization|password|passwd|session|credential)s?($|[-_])/i;

export const REDACTED = '[redacted]';

export function isSecretHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return ALWAYS.has(lower) || SECRET_WORDS.test(lower);
}

/** The headers object of a trigger item with every secret value replaced. */
export function redactHeaders(headers: unknown): unknown {
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) return headers;
  return Object.fromEntries(Object.entries(headers as Record<string, unknown>)
    .map(([name, value]) => [name, isSecretHeader(name) ? REDACTED : value]));
}
