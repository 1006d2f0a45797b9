/**
 * Structural checks with ajv: the schema is compiled once, at first use, with allErrors so that every problem is
 * reported at once. ajv's errors become findings with JSON-pointer paths and messages an author understands.
 */
import { createRequire } from 'node:module';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { describeValue, Findings, joinPointer, locationOf, type FindingCode } from './findings.js';
import { ELEMENT_TYPE_NAMES, NODE_DESCRIPTION_SCHEMA } from './schema.js';

type Kind = 'description' | 'properties';
let ajv: import('ajv').Ajv | undefined;
const compiled: Partial<Record<Kind, ValidateFunction>> = {};

/**
 * The validator of one kind, compiled at its first use (a host that checks only descriptions never compiles the
 * properties validator). ajv is loaded here too, not when the entry point is imported: the middleware and hosts that
 * only use the types or the values' checks never load it. Required, not imported, because the validators are
 * synchronous. The generated code is not optimised, and our own schema is not checked against the meta-schema (a
 * test compiles it strictly): both make the first validation faster, which matters more for a one-off lint (about
 * 500 descriptions) than the little they cost per validation.
 */
function validator(kind: Kind): ValidateFunction {
  const cached = compiled[kind];
  if (cached !== undefined) return cached;
  if (ajv === undefined) {
    const { Ajv } = createRequire(import.meta.url)('ajv') as typeof import('ajv');
    ajv = new Ajv({ allErrors: true, strict: false, validateSchema: false, code: { optimize: false } });
    ajv.addSchema(NODE_DESCRIPTION_SCHEMA);
  }
  const made = kind === 'description'
    ? ajv.getSchema(NODE_DESCRIPTION_SCHEMA.$id) as ValidateFunction
    : ajv.compile({ type: 'array', items: { $ref: `${NODE_DESCRIPTION_SCHEMA.$id}#/definitions/property` } });
  compiled[kind] = made;
  return made;
}

/** The value at a JSON pointer of the input (to name the definition an error is about). */
function at(root: unknown, pointer: string): unknown {
  let value = root;
  for (const segment of pointer.split('/').slice(1)) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string, unknown>)[segment.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return value;
}

/** The nearest enclosing list item (a definition, an option entry, a mode, a hint) names the message. */
function owner(root: unknown, pointer: string): { pointer: string; value: unknown } {
  const segments = pointer.split('/');
  for (let end = segments.length; end > 1; end -= 1) {
    if (!/^\d+$/.test(segments[end - 1] ?? '')) continue;
    const candidate = segments.slice(0, end).join('/');
    const value = at(root, candidate);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return { pointer: candidate, value };
  }
  return { pointer: '', value: root };
}

function article(type: string): string {
  return `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
}

function message(error: ErrorObject, field: string, value: unknown): { code: FindingCode; text: string } {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required': return { code: 'missing-field', text: `${String(params.missingProperty)} is missing` };
    case 'type': return { code: 'wrong-type', text: `${field} must be ${String(params.type).split(',').map(article).join(' or ')}; got ${describeValue(value)}` };
    case 'enum': return { code: 'invalid-value', text: `${field} must be one of ${(params.allowedValues as unknown[]).map((v) => `'${String(v)}'`).join(', ')}; got ${describeValue(value)}` };
    case 'const': return { code: 'invalid-value', text: `${field} must be '${String(params.allowedValue)}'; got ${describeValue(value)}` };
    case 'minimum': return { code: 'out-of-range', text: `${field} must be at least ${String(params.limit)}; got ${describeValue(value)}` };
    case 'minItems': return { code: 'out-of-range', text: `${field} must not be empty` };
    default: return { code: 'invalid-structure', text: `${field} ${error.message ?? 'is invalid'}` };
  }
}

/** Runs the schema on a whole description, or on a properties array at `base`. */
export function checkStructure(input: unknown, kind: Kind, base: string, findings: Findings): boolean {
  const validate = validator(kind);
  if (validate(input)) return true;
  for (const error of validate.errors ?? []) {
    // `if` only says which branch failed; the branch's own errors follow. Display rules have their own rule
    // (rules/display-options.ts) with clearer messages.
    if (error.keyword === 'if' || error.keyword === 'propertyNames' || /\/(display|disabled)Options\//.test(error.instancePath)) continue;
    // The element type too (rules/element-type.ts): its enum is there for editors' completion.
    if (error.keyword === 'enum' && (error.params as { allowedValues?: unknown }).allowedValues === ELEMENT_TYPE_NAMES) continue;
    const pointer = error.keyword === 'required'
      ? joinPointer(error.instancePath, String((error.params as { missingProperty: string }).missingProperty))
      : error.instancePath;
    const enclosing = owner(input, error.keyword === 'required' ? error.instancePath : pointer);
    // A number field without a default starts empty on the platform: rules/defaults.ts warns instead.
    if (pointer.endsWith('/default') && error.keyword === 'required' && (enclosing.value as { type?: unknown } | undefined)?.type === 'number') continue;
    const field = pointer.slice(enclosing.pointer.length).replace(/^\//, '').replace(/\//g, '.') || 'the value';
    const { code, text } = message(error, field, at(input, pointer));
    const location = locationOf(`${base}${enclosing.pointer}`, enclosing.value);
    findings.add(code, `${base}${pointer}`, `${location.label}: ${text}`);
  }
  return false;
}
