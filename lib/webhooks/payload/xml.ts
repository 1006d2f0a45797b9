/**
 * XML bodies (`*\/xml`, `*+xml`), parsed with fast-xml-parser into the shape the known platform gives: tag names
 * lower-cased, values trimmed strings, attributes under `$`, single children not wrapped in arrays. Entity
 * expansion is bounded, so a "billion laughs" document is refused, not expanded.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { WebhookError } from '../errors.js';
import { decodeText } from './text.js';

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  attributesGroupName: '$',
  transformTagName: (name) => name.toLowerCase(),
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  ignoreDeclaration: true,
  processEntities: { enabled: true, maxEntitySize: 10_000, maxTotalExpansions: 10_000, maxExpandedLength: 1_000_000 },
});

export function isXmlType(mediaType: string): boolean {
  return mediaType.endsWith('/xml') || mediaType.endsWith('+xml');
}

function invalidXml(detail: string, cause?: unknown): WebhookError {
  return new WebhookError('BODY_INVALID_XML', 'Failed to parse the request body as XML.', { hint: detail, cause });
}

export function parseXmlBody(bytes: Buffer, charset: string | undefined): unknown {
  const text = decodeText(bytes, charset);
  if (text.trim() === '') return {};
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw invalidXml(`${valid.err.msg} (line ${valid.err.line}, column ${valid.err.col})`);
  try {
    return parser.parse(text) as unknown;
  } catch (error) {
    throw invalidXml(error instanceof Error ? error.message : 'The document could not be read.', error);
  }
}
