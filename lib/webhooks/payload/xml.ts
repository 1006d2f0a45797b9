/**
 * XML bodies (`*\/xml`, `*+xml`), parsed with fast-xml-parser into the shape the known platform gives: tag names
 * lower-cased, values trimmed strings with runs of white space collapsed to one space, attributes under `$`, the
 * text of an element that also has attributes or children under `_`, single children not wrapped in arrays. Entity
 * expansion is bounded, so a "billion laughs" document is refused, not expanded, and so is element nesting.
 */
import { createRequire } from 'node:module';
import type { XMLParser } from 'fast-xml-parser';
import { WebhookError } from '../../core/errors.js';
import { tooDeep } from './depth.js';
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
let xml: FastXmlParser | undefined;

/**
 * A parser per element depth allowed: the parser refuses deeper elements itself, before it builds the result
 * (which it does recursively). There are as many as the middleware and its waits have distinct `limits.bodyDepth`.
 */
const parsers = new Map<number, XMLParser>();

function parserFor(maxDepth: number): XMLParser {
  let parser = parsers.get(maxDepth);
  if (parser === undefined) {
    // The parser counts the elements open around the one it opens: maxNestedTags n allows n + 1 levels.
    parser = new (xml as FastXmlParser).XMLParser({ ...PARSER_OPTIONS, maxNestedTags: maxDepth - 1 });
    parsers.set(maxDepth, parser);
  }
  return parser;
}

export function isXmlType(mediaType: string): boolean {
  return mediaType.endsWith('/xml') || mediaType.endsWith('+xml');
}

function invalidXml(detail: string, cause?: unknown): WebhookError {
  return new WebhookError('BODY_INVALID_XML', 'Failed to parse the request body as XML.', { hint: detail, cause });
}

/** fast-xml-parser's refusal of elements nested past `maxNestedTags` (it has no code of its own). */
const TOO_DEEP = /nested tags/i;

export function parseXmlBody(bytes: Buffer, charset: string | undefined, maxDepth: number): unknown {
  const text = decodeText(bytes, charset);
  if (text.trim() === '') return {};
  xml ??= createRequire(import.meta.url)('fast-xml-parser') as FastXmlParser;
  const valid = xml.XMLValidator.validate(text);
  if (valid !== true) throw invalidXml(`${valid.err.msg} (line ${valid.err.line}, column ${valid.err.col})`);
  try {
    return parserFor(maxDepth).parse(text) as unknown;
  } catch (error) {
    if (error instanceof Error && TOO_DEEP.test(error.message)) throw tooDeep(maxDepth);
    throw invalidXml(error instanceof Error ? error.message : 'The document could not be read.', error);
  }
}
