/**
 * Compiles a webhook's JSON Schema with ajv, once, when its workflow is activated (never per call): draft 2020-12, or
 * draft-07 when `$schema` says so. A schema is data from a workflow that may have been imported, so before ajv sees
 * it its text is bounded and its cost measured (bounds.ts); ajv then compiles a copy whose subschemas charge the
 * call's budget (costs.ts, budget.ts), whose patterns run on RE2 (patterns.ts), and whose `$ref`s are calls rather
 * than inlined copies, so that compile time and code grow with the schema's text. A check stops at its first mismatch; only a refused value is checked again for up to 20 places.
 * ajv is loaded by the first schema, not by importing the middleware.
 */
import { createRequire } from 'node:module';
import type { Ajv as AjvInstance, Options as AjvOptions } from 'ajv';
import type { FormatName, FormatsPlugin } from 'ajv-formats';
import type { JsonSchema } from '../../../core/schemas.js';
import { crowded, oversized, unbounded, wordy } from './bounds.js';
import { ValidationBudget, withinBudget } from './budget.js';
import { markCosts, withoutOwnCosts } from './costs.js';
import { schemaGraph } from './graph.js';
import { namedKeysOf, redactedIssues, type SchemaIssue } from './issues.js';
import { addLinearKeywords } from './keywords.js';
import { linearPattern } from './patterns.js';
import type { Draft } from './subschemas.js';

export type { SchemaIssue } from './issues.js';
export { MAX_SCHEMA_DEPTH, MAX_SCHEMA_SIZE } from './bounds.js';

/** Units a refused value's second check (for up to 20 places) may cost; past them, the first place found is told. */
export const REPORT_BUDGET_UNITS = 100_000;
/** Issues of a refused value turned into places: enough for 20 distinct ones after keys are hidden. */
const LISTED_ISSUES = 200;

/**
 * A compiled schema: true when the data matches; else `errors` holds where it did not (up to 20 places, object keys
 * the schema does not name shown as `*`). Charged to the budget of the call being checked, or to a budget of its own;
 * throws `PAYLOAD_TOO_COSTLY` when that runs out.
 */
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

const instances = new Map<string, AjvInstance>();

function ajvFor(draft: Draft, coerce: boolean, allErrors: boolean): AjvInstance {
  const key = `${draft} ${coerce} ${allErrors}`;
  let ajv = instances.get(key);
  if (ajv !== undefined) return ajv;
  const require = createRequire(import.meta.url);
  const options: AjvOptions = {
    allErrors,
    // Unknown keywords (`example`, `x-…`) and formats outside CHECKED_FORMATS are annotations, as JSON Schema says.
    strict: false,
    validateFormats: true,
    logger: false,
    // A schema's $id is not kept: two workflows may use the same one for different schemas.
    addUsedSchema: false,
    coerceTypes: coerce,
    // A $ref is a call: inlined, a definition referred to from 50 places was compiled 50 times (20 s for 11.7 KB).
    inlineRefs: false,
    // ajv's optimiser of generated code takes time that grows faster than the schema (1.4 s for 1 400 properties).
    code: { regExp: linearPattern, optimize: false },
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
  addLinearKeywords(ajv);
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

/** Schemas compiled lately, by coercion and JSON text (which holds the draft): a registry resolves a workflow more than once. */
const recent = new Map<string, CompiledCheck>();
const RECENT = 256;

/** ajv's compiled function for `own` (removed from ajv again: ajv holds what it compiled by the schema object). */
function ajvCompile(ajv: AjvInstance, own: object | boolean): (data: unknown) => boolean {
  try {
    return ajv.compile(own);
  } finally {
    if (typeof own === 'object') ajv.removeSchema(own);
  }
}

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
  const own = JSON.parse(text) as object | boolean;
  withoutOwnCosts(own, draft);
  const nodes = schemaGraph(own, draft);
  const why = crowded(nodes) ?? wordy(nodes) ?? unbounded(nodes);
  if (why !== undefined) throw new Error(why);
  const named = namedKeysOf(own, draft);
  markCosts(nodes);
  const first = ajvCompile(ajvFor(draft, coerce, false), own) as ((data: unknown) => boolean) & { errors?: SchemaIssue[] | null };
  // The check for every place is compiled when a value is first refused: most schemas never need it.
  let everyPlace: (((data: unknown) => boolean) & { errors?: SchemaIssue[] | null }) | undefined;
  const places = (data: unknown): SchemaIssue[] => {
    everyPlace ??= ajvCompile(ajvFor(draft, coerce, true), JSON.parse(JSON.stringify(own)) as object);
    const all = everyPlace;
    try {
      return withinBudget(new ValidationBudget(REPORT_BUDGET_UNITS), () => (all(data) ? [] : all.errors ?? []));
    } catch {
      // Listing every place would cost more than a refusal should: the first one found is told.
      return [];
    }
  };
  const check: CompiledCheck = (data) => withinBudget(undefined, () => {
    if (first(data)) {
      check.errors = null;
      return true;
    }
    const found = places(data);
    // Past the first issues nothing is listed (20 places at most): the rest are not walked into the data.
    check.errors = redactedIssues((found.length > 0 ? found : first.errors ?? []).slice(0, LISTED_ISSUES), data, named);
    return false;
  });
  if (recent.size >= RECENT) recent.delete(recent.keys().next().value as string);
  recent.set(key, check);
  return check;
}

/**
 * A check compiled when it is first used, for a schema already compiled once the other way (a body's coercing check,
 * needed only by form, multipart and XML calls): activation pays for one compile, not two.
 */
export function compiledOnFirstUse(schema: JsonSchema, coerce: boolean): CompiledCheck {
  let compiled: CompiledCheck | undefined;
  const check: CompiledCheck = (data) => {
    compiled ??= compileJsonSchema(schema, coerce);
    const valid = compiled(data);
    check.errors = compiled.errors;
    return valid;
  };
  return check;
}
