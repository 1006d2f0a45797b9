/**
 * XML bodies (`*\/xml`, `*+xml`), parsed with fast-xml-parser into the shape the known platform gives: tag names
 * lower-cased, values trimmed strings with runs of white space collapsed to one space, attributes under `$`, the
 * text of an element that also has attributes or children under `_`, single children not wrapped in arrays. Entity
 * expansion is bounded, so a "billion laughs" document is refused, not expanded.
 */
import { createRequire } from 'node:module';
import type { XMLParser } from 'fast-xml-parser';
import { WebhookError } from '../errors.js';
import { decodeText } from './text.js';

type FastXmlParser = typeof import('fast-xml-parser');

const PARSER_OPTIONS: ConstructorParameters<FastXmlParser['XMLParser']>[0] = {
  ignoreAttributes: false,
  attributeNamePrefix: '',
  attributesGroupName: '$',
  textNodeName: '_',
  transformTagName: (name) => name.toLowerCase(),
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  // Runs of two or more white-space characters become one space, as the platform's parser normalizes text.
  tagValueProcessor: (_name, value) => value.replace(/\s{2,}/g, ' ').trim(),
  ignoreDeclaration: true,
  processEntities: { enabled: true, maxEntitySize: 10_000, maxTotalExpansions: 10_000, maxExpandedLength: 1_000_000 },
};

/**
 * fast-xml-parser is loaded by the first XML body, so that hosts whose callers never send XML never load it. It is
 * required, not imported: the body parsers run synchronously once the bytes are in, and a module already loaded costs
 * one variable read.
 */
let xml: { parser: XMLParser; validator: FastXmlParser['XMLValidator'] } | undefined;

function loadXml(): NonNullable<typeof xml> {
  const { XMLParser, XMLValidator } = createRequire(import.meta.url)('fast-xml-parser') as FastXmlParser;
  return { parser: new XMLParser(PARSER_OPTIONS), validator: XMLValidator };
}

export function isXmlType(mediaType: string): boolean {
  return mediaType.endsWith('/xml') || mediaType.endsWith('+xml');
}

function invalidXml(detail: string, cause?: unknown): WebhookError {
  return new WebhookError('BODY_INVALID_XML', 'Failed to parse the request body as XML.', { hint: detail, cause });
}

export function parseXmlBody(bytes: Buffer, charset: string | undefined): unknown {
  const text = decodeText(bytes, charset);
  if (text.trim() === '') return {};
  const { parser, validator } = xml ??= loadXml();
  const valid = validator.validate(text);
  if (valid !== true) throw invalidXml(`${valid.err.msg} (line ${valid.err.line}, column ${valid.err.col})`);
  try {
    return parser.parse(text) as unknown;
  } catch (error) {
    throw invalidXml(error instanceof Error ? error.message : 'The document could not be read.', error);
  }
}
