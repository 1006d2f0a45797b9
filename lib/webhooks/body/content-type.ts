/**
 * Reduces a Content-Type header to what the parsers need: the lower-cased media type, its charset and its
 * parameters. The header is read by the `content-type` package, so quoted values keep their `;` and escapes.
 */
import { parse } from 'content-type';

export interface ContentType {
  /** `type/subtype`, lower-cased; '' when the header is missing or unreadable. */
  mediaType: string;
  /** Lower-cased charset parameter, when present. */
  charset: string | undefined;
  /** Parameters by lower-cased name, e.g. `boundary` (its value keeps its case); the first of repeated names wins. */
  parameters: Record<string, string>;
}

const MEDIA_TYPE = /^[!#$%&'*+.^\w`|~-]+\/[!#$%&'*+.^\w`|~-]+$/;

const NONE: ContentType = Object.freeze({ mediaType: '', charset: undefined, parameters: Object.freeze(Object.create(null) as Record<string, string>) });

/**
 * Callers send a handful of distinct headers (`application/json`, a form, `text/plain; charset=utf-8`): each is
 * parsed once. The cache is bounded, and its entries frozen, since every call that sent the header shares them.
 */
const parsedHeaders = new Map<string, ContentType>();
const MAX_CACHED = 256;

export function parseContentType(header: string | undefined): ContentType {
  if (header === undefined) return NONE;
  let parsed = parsedHeaders.get(header);
  if (parsed === undefined) {
    parsed = readContentType(header);
    // A multipart boundary is new with every call: caching it would only push the others out. Such a result is
    // the call's own, so only the shared ones are frozen.
    if (header.includes('boundary')) return parsed;
    Object.freeze(parsed.parameters);
    Object.freeze(parsed);
    if (parsedHeaders.size >= MAX_CACHED) parsedHeaders.delete(parsedHeaders.keys().next().value as string);
    parsedHeaders.set(header, parsed);
  }
  return parsed;
}

function readContentType(header: string): ContentType {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(header);
  } catch {
    // Whatever a caller sends must not fail the call here: an unreadable type is treated as no type (binary data).
    return NONE;
  }
  const { type } = parsed;
  // Copied into an object without any prototype, so that a `__proto__` parameter is a plain key and reaches nothing.
  const parameters = Object.assign(Object.create(null) as Record<string, string>, parsed.parameters);
  return { mediaType: MEDIA_TYPE.test(type) ? type : '', charset: parameters.charset?.toLowerCase(), parameters };
}

/** `application/json` and every `*\/*+json` type (the known platform drops the latter; its users complain). */
export function isJsonType(mediaType: string): boolean {
  return mediaType === 'application/json' || mediaType.endsWith('+json') || mediaType === 'text/json';
}
