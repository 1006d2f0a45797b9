/**
 * Compiles a webhook's JSON Schema with ajv, once, when its workflow is activated (never per call): draft 2020-12, or
 * draft-07 when `$schema` says so. A schema is data from a workflow that may have been imported, so it is bounded
 * before ajv sees it (size, nesting) and its patterns are made safe to run (schema-patterns.ts). `format` is checked
 * for the formats of ajv-formats whose checks take time in proportion to the string (CHECKED_FORMATS); any other
 * format is an annotation. ajv is loaded by the first schema, not by importing the middleware.
 */
import { createRequire } from 'node:module';
import type { Ajv as AjvInstance, Options as AjvOptions } from 'ajv';
import type { FormatName, FormatsPlugin } from 'ajv-formats';
import type { JsonSchema } from '../../core/schemas.js';
import { boundedPattern } from './schema-patterns.js';

/** A schema's JSON text may hold at most this many characters. */
export const MAX_SCHEMA_SIZE = 64 * 1024;
/** A schema may nest objects and arrays at most this deep. */
export const MAX_SCHEMA_DEPTH = 32;

/** One place of the data that did not match, as ajv reports it (structural: no ajv type in the published types). */
export interface SchemaIssue {
  instancePath: string;
  keyword: string;
  message?: string | undefined;
  params: Record<string, unknown>;
}

/** A compiled schema: true when the data matches; else its issues are on `errors`. */
export interface CompiledCheck {
  (data: unknown): boolean;
  errors?: SchemaIssue[] | null | undefined;
}

/**
 * The formats a schema's `format` checks (ajv-formats' full checks: a date that exists, not only its shape). Left
 * out: `url` (its pattern backtracks: 2.7 s on a crafted 64 KiB string) and `regex` (it would compile a caller's
 * string as a regular expression).
 */
export const CHECKED_FORMATS: readonly FormatName[] = [
  'date', 'time', 'date-time', 'iso-time', 'iso-date-time', 'duration', 'uri', 'uri-reference', 'uri-template',
  'email', 'hostname', 'ipv4', 'ipv6', 'uuid', 'json-pointer', 'json-pointer-uri-fragment', 'relative-json-pointer',
  'byte', 'int32', 'int64', 'float', 'double', 'password', 'binary',
];

type Draft = '2020-12' | 'draft-07';
const instances = new Map<string, AjvInstance>();

function ajvFor(draft: Draft, coerce: boolean): AjvInstance {
  const key = `${draft} ${coerce}`;
  let ajv = instances.get(key);
  if (ajv !== undefined) return ajv;
  const require = createRequire(import.meta.url);
  const options: AjvOptions = {
    // Every mismatch at once (bounded by the body limits), in the answer's bounded list.
    allErrors: true,
    // Unknown keywords (`example`, `x-…`) and formats outside CHECKED_FORMATS are annotations, as JSON Schema says.
    strict: false,
    validateFormats: true,
    logger: false,
    // A schema's $id is not kept: two workflows may use the same one for different schemas.
    addUsedSchema: false,
    coerceTypes: coerce,
    code: { regExp: boundedPattern },
  };
  if (draft === '2020-12') {
    const { Ajv2020 } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
    ajv = new Ajv2020(options);
  } else {
    const { Ajv } = require('ajv') as typeof import('ajv');
    ajv = new Ajv(options);
  }
  const addFormats = require('ajv-formats') as FormatsPlugin;
  addFormats(ajv, { mode: 'full', formats: [...CHECKED_FORMATS], keywords: false });
  instances.set(key, ajv);
  return ajv;
}

/** The draft a schema is written in, from its `$schema`; undefined for one ajv is not set up for. */
function draftOf(schema: JsonSchema): Draft | undefined {
  const declared = typeof schema === 'object' ? schema.$schema : undefined;
  if (declared === undefined) return '2020-12';
  if (typeof declared !== 'string') return undefined;
  if (/json-schema\.org\/draft\/2020-12\/schema#?$/.test(declared)) return '2020-12';
  if (/json-schema\.org\/draft-07\/schema#?$/.test(declared)) return 'draft-07';
  return undefined;
}

/** Why a schema's JSON text is too large to compile, or undefined. */
function oversized(text: string): string | undefined {
  if (text.length > MAX_SCHEMA_SIZE) return `is larger than ${MAX_SCHEMA_SIZE} characters of JSON`;
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === '\\') i++;
      else if (char === '"') inString = false;
    } else if (char === '"') {
      inString = true;
    } else if (char === '{' || char === '[') {
      deepest = Math.max(deepest, ++depth);
    } else if (char === '}' || char === ']') {
      depth--;
    }
  }
  return deepest > MAX_SCHEMA_DEPTH ? `nests deeper than ${MAX_SCHEMA_DEPTH} levels` : undefined;
}

/** Schemas compiled lately, by coercion and JSON text (which holds the draft): a registry resolves a workflow more than once. */
const recent = new Map<string, CompiledCheck>();
const RECENT = 256;

/**
 * Compiles a schema, with type coercion for parts whose values arrive as strings (query, headers, forms); throws an
 * Error whose message says what is wrong (ajv's own message where ajv refuses it).
 */
export function compileJsonSchema(schema: JsonSchema, coerce: boolean): CompiledCheck {
  if (typeof schema !== 'boolean' && (typeof schema !== 'object' || schema === null || Array.isArray(schema))) {
    throw new Error('is neither a JSON Schema (an object or a boolean) nor the name of a validator');
  }
  // A wait's schemas are resolved with every call to its address: a schema seen lately costs its JSON text only.
  const text = JSON.stringify(schema);
  const key = `${coerce} ${text}`;
  const cached = recent.get(key);
  if (cached !== undefined) return cached;
  const size = oversized(text);
  if (size !== undefined) throw new Error(size);
  const draft = draftOf(schema);
  if (draft === undefined) throw new Error('has a $schema other than draft 2020-12 (https://json-schema.org/draft/2020-12/schema) or draft-07 (http://json-schema.org/draft-07/schema#)');
  const ajv = ajvFor(draft, coerce);
  // ajv holds what it compiled by the schema object; a copy of our own is compiled and let go again.
  const own = JSON.parse(text) as object | boolean;
  try {
    const check = ajv.compile(own) as CompiledCheck;
    if (recent.size >= RECENT) recent.delete(recent.keys().next().value as string);
    recent.set(key, check);
    return check;
  } finally {
    if (typeof own === 'object') ajv.removeSchema(own);
  }
}
