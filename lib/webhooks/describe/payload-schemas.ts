/**
 * A webhook's payload schemas in the document: each JSON Schema (or the JSON Schema a validator object makes through
 * Standard Schema's `~standard.jsonSchema`, as zod's does) becomes a component the operation's body, query and header
 * parameters point to; a validator that makes none is named as validated but not described, and one this server
 * lacks as what it is: a reason every call to the webhook is refused.
 */
import type { JsonSchema, StandardSchema } from '../../core/schemas.js';
import type { RegisteredWebhook } from '../registry/contract.js';
import type { SchemaCheck, SchemaPart } from '../registry/payload-schemas.js';

/**
 * What a part's schema looks like to the document: a component's name, only that it is checked, or the name of a
 * validator the server lacks (known only when the server's validators are given).
 */
export type DescribedPart = { component: string } | { undescribed: true } | { missing: string };

/** A validator object that may convert itself to JSON Schema (Standard JSON Schema v1). */
type Convertible = StandardSchema & { '~standard': { jsonSchema?: { input?: (options: { target: string }) => Record<string, unknown> } } };

function jsonSchemaOf(check: SchemaCheck, validators: ReadonlyMap<string, StandardSchema> | undefined): JsonSchema | undefined {
  if (check.kind === 'json') return check.schema;
  const converter = (validators?.get(check.name) as Convertible | undefined)?.['~standard'].jsonSchema;
  if (typeof converter?.input !== 'function') return undefined;
  try {
    return converter.input({ target: 'draft-2020-12' });
  } catch {
    // The library cannot say this schema in JSON Schema (a transform, a custom check): it stays undescribed.
    return undefined;
  }
}

/** The schema with its local references (`#/$defs/x`, `#`) made to point inside the component it becomes. */
function rebased(schema: unknown, at: string): unknown {
  if (Array.isArray(schema)) return schema.map((entry) => rebased(entry, at));
  if (typeof schema !== 'object' || schema === null) return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    copy[key] = key === '$ref' && typeof value === 'string' && (value === '#' || value.startsWith('#/')) ? `${at}${value.slice(1)}` : rebased(value, at);
  }
  return copy;
}

const SUFFIX: Record<SchemaPart, string> = { body: 'Body', query: 'Query', headers: 'Headers' };

/**
 * The described parts of a webhook; each described schema is added to `components` under the operation's id and
 * the part (`orderIntakeWebhookPostBody`).
 */
export function describeParts(
  webhook: RegisteredWebhook,
  operationId: string,
  components: Record<string, unknown>,
  validators: ReadonlyMap<string, StandardSchema> | undefined,
): Partial<Record<SchemaPart, DescribedPart>> {
  const described: Partial<Record<SchemaPart, DescribedPart>> = {};
  for (const part of ['body', 'query', 'headers'] as const) {
    const check = webhook.schemas?.[part];
    if (check === undefined) continue;
    if (check.kind === 'named' && validators !== undefined && !validators.has(check.name)) {
      described[part] = { missing: check.name };
      continue;
    }
    const schema = jsonSchemaOf(check, validators);
    if (schema === undefined) {
      described[part] = { undescribed: true };
      continue;
    }
    const component = `${operationId}${SUFFIX[part]}`;
    components[component] = rebased(schema, `#/components/schemas/${component}`);
    described[part] = { component };
  }
  return described;
}

const refTo = (component: string, ...pointer: string[]): { $ref: string } =>
  ({ $ref: `#/components/schemas/${[component, ...pointer.map((key) => key.replace(/~/g, '~0').replace(/\//g, '~1'))].join('/')}` });

/**
 * The operation's parameters from its query and header schemas: the query as one object parameter (form style,
 * exploded: each property a parameter of its own name); each header the schema's `properties` name as one parameter.
 */
export function schemaParameters(parts: Partial<Record<SchemaPart, DescribedPart>>, components: Record<string, unknown>): Record<string, unknown>[] {
  const parameters: Record<string, unknown>[] = [];
  const { query, headers } = parts;
  if (query !== undefined && 'component' in query) {
    parameters.push({ name: 'query', in: 'query', style: 'form', explode: true, schema: refTo(query.component),
      description: 'The query string, checked against the node\'s schema (numbers and booleans read from their text).' });
  }
  if (headers !== undefined && 'component' in headers) {
    const schema = components[headers.component] as { properties?: Record<string, unknown>; required?: unknown } | undefined;
    const required = Array.isArray(schema?.required) ? schema.required : [];
    for (const name of Object.keys(schema?.properties ?? {})) {
      parameters.push({ name, in: 'header', required: required.includes(name), schema: refTo(headers.component, 'properties', name) });
    }
  }
  return parameters;
}

/** The sentence an operation's description adds about its checks. */
export function schemaSentence(parts: Partial<Record<SchemaPart, DescribedPart>>): string | undefined {
  const checked = Object.keys(parts);
  if (checked.length === 0) return undefined;
  const entries = Object.entries(parts);
  const missing = entries.flatMap(([name, part]) => 'missing' in part ? [`the ${name} names the validator ${JSON.stringify(part.missing)}`] : []);
  if (missing.length > 0) {
    return `Every call is refused 500 PAYLOAD_SCHEMA_MISSING before it runs: ${missing.join(' and ')}, which this server does not have `
      + '(the middleware\'s option schemas must hold every validator a workflow names).';
  }
  const undescribed = entries.filter(([, part]) => 'undescribed' in part).map(([name]) => name);
  return `The call's ${checked.join(', ')} ${checked.length === 1 ? 'is' : 'are'} checked against the node's schema before it runs; a call that does not `
    + 'match is answered 422 PAYLOAD_INVALID with errors listing where and what was expected.'
    + (undescribed.length === 0 ? '' : ` The ${undescribed.join(' and ')} ${undescribed.length === 1 ? 'is' : 'are'} validated but not described: `
      + `${undescribed.length === 1 ? 'its validator gives' : 'their validators give'} no JSON Schema.`);
}
