/** Reduces a Content-Type header to what the parsers need: the lower-cased media type and its charset. */
export interface ContentType {
  /** `type/subtype`, lower-cased; '' when the header is missing or unreadable. */
  mediaType: string;
  /** Lower-cased charset parameter, when present. */
  charset: string | undefined;
  /** Lower-cased parameters, e.g. `boundary` (its value keeps its case). */
  parameters: Record<string, string>;
}

const MEDIA_TYPE = /^[!#$%&'*+.^\w`|~-]+\/[!#$%&'*+.^\w`|~-]+$/;

export function parseContentType(header: string | undefined): ContentType {
  if (header === undefined) return { mediaType: '', charset: undefined, parameters: {} };
  const [type = '', ...rest] = header.split(';');
  const mediaType = type.trim().toLowerCase();
  const parameters: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const part of rest) {
    const equals = part.indexOf('=');
    if (equals === -1) continue;
    const name = part.slice(0, equals).trim().toLowerCase();
    let value = part.slice(equals + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1).replace(/\\(.)/g, '$1');
    if (name !== '' && !(name in parameters)) parameters[name] = value;
  }
  return {
    mediaType: MEDIA_TYPE.test(mediaType) ? mediaType : '',
    charset: parameters.charset?.toLowerCase(),
    parameters,
  };
}

/** `application/json` and every `*\/*+json` type (the known platform drops the latter; its users complain). */
export function isJsonType(mediaType: string): boolean {
  return mediaType === 'application/json' || mediaType.endsWith('+json') || mediaType === 'text/json';
}
