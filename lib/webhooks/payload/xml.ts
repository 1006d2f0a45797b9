/**
 * XML bodies (`*\/xml`, `*+xml`), parsed with fast-xml-parser into the shape the known platform gives: tag names
 * lower-cased, values trimmed strings with runs of white space collapsed to one space, attributes under `$`, the
 * text of an element that also has attributes or children under `_`, single children not wrapped in arrays. An
 * entity defined with plain text is expanded, within bounds; one defined with other entities (the shape of a "billion
 * laughs" document) is refused 400, since the parser would leave it unexpanded and the workflow would get its name for
 * its text; element nesting is bounded too.
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

/**
 * The first entity of the document's DOCTYPE whose value holds a reference (`&name;`, `&#65;`), which fast-xml-parser
 * skips; undefined when there is none. One pass over the DOCTYPE's declarations (up to its `]>`, so that the text of
 * a CDATA section is never read as one): each is read once, from its name to its closing quote.
 */
export function entityDefinedByEntities(text: string): string | undefined {
  const doctype = text.indexOf('<!DOCTYPE');
  if (doctype === -1) return undefined;
  const subsetEnd = /\]\s*>/g;
  subsetEnd.lastIndex = doctype;
  const end = subsetEnd.exec(text)?.index ?? text.length;
  const declaration = /<!ENTITY\s+([^\s"'>]+)\s+(["'])/y;
  for (let at = text.indexOf('<!ENTITY', doctype); at !== -1 && at < end; at = text.indexOf('<!ENTITY', at)) {
    declaration.lastIndex = at;
    const found = declaration.exec(text);
    if (found === null) {
      at += 1;
      continue;
    }
    const start = declaration.lastIndex;
    const close = text.indexOf(found[2] as string, start);
    if (close === -1) return undefined;
    if (text.slice(start, close).includes('&')) return found[1];
    at = close + 1;
  }
  return undefined;
}

/** fast-xml-parser's refusal of elements nested past `maxNestedTags` (it has no code of its own). */
const TOO_DEEP = /nested tags/i;

export function parseXmlBody(bytes: Buffer, charset: string | undefined, maxDepth: number): unknown {
  const text = decodeText(bytes, charset);
  if (text.trim() === '') return {};
  xml ??= createRequire(import.meta.url)('fast-xml-parser') as FastXmlParser;
  const valid = xml.XMLValidator.validate(text);
  if (valid !== true) throw invalidXml(`${valid.err.msg} (line ${valid.err.line}, column ${valid.err.col})`);
  const nested = entityDefinedByEntities(text);
  if (nested !== undefined) {
    throw invalidXml(`The entity "${nested}" is defined with another entity, which is not expanded (a document of such entities can grow `
      + 'to gigabytes): define each entity with plain text.');
  }
  try {
    return parserFor(maxDepth).parse(text) as unknown;
  } catch (error) {
    if (error instanceof Error && TOO_DEEP.test(error.message)) throw tooDeep(maxDepth);
    throw invalidXml(error instanceof Error ? error.message : 'The document could not be read.', error);
  }
}
