/**
 * A Webhook node's payload schemas (`workflow.schemas[nodeName]`), resolved once at activation: each JSON Schema
 * compiled (a schema ajv refuses refuses the workflow, with ajv's message and where the schema is), each name of a
 * code-side validator kept as a name, looked up by the middleware that serves the call.
 */
import { WebhookError } from '../../core/errors.js';
import type { JsonSchema, NodePayloadSchemas } from '../../core/schemas.js';
import type { WebhookNode, WorkflowWebhooks } from '../../core/types.js';
import { compiledOnFirstUse, compileJsonSchema, type CompiledCheck } from './json-schema/compile.js';

/** The parts of a call a schema can check, in the order they are checked and reported. */
export const SCHEMA_PARTS = ['body', 'query', 'headers'] as const;
export type SchemaPart = (typeof SCHEMA_PARTS)[number];

/** A JSON Schema, compiled: `exact` checks a JSON body as sent; `coercing` reads strings as the types the schema says. */
export interface JsonSchemaCheck {
  kind: 'json';
  /** The schema as the workflow holds it (the OpenAPI document carries it). */
  schema: JsonSchema;
  /** For a body: undefined for query and headers, whose values are always strings. */
  exact: CompiledCheck | undefined;
  coercing: CompiledCheck;
}

/** A validator object the middleware holds under `name` (its `schemas` option). */
export interface NamedSchemaCheck {
  kind: 'named';
  name: string;
}

export type SchemaCheck = JsonSchemaCheck | NamedSchemaCheck;

/** A node's checks by part; absent parts are not checked. */
export type ResolvedPayloadSchemas = Partial<Record<SchemaPart, SchemaCheck>>;

/** `owner` names whose schemas they are: `Workflow "wf"`, `Wait "Approve"`. */
function invalid(owner: string, where: string, message: string, hint: string): WebhookError {
  return new WebhookError('WEBHOOK_INVALID_NODE', `${owner}: ${where} ${message}.`, { hint });
}

const SCHEMA_HINT = 'A schema is a JSON Schema (draft 2020-12, or draft-07 with its $schema) or the name of a validator given to the middleware\'s schemas option.';

function resolvePart(owner: string, where: string, part: SchemaPart, given: unknown): SchemaCheck {
  if (typeof given === 'string') {
    if (given.trim() === '') throw invalid(owner, where, 'is an empty validator name', SCHEMA_HINT);
    return { kind: 'named', name: given };
  }
  try {
    const schema = given as JsonSchema;
    if (part !== 'body') return { kind: 'json', schema, exact: undefined, coercing: compileJsonSchema(schema, true) };
    // JSON bodies are the usual case: the coercing check waits for the first form, multipart or XML call.
    return { kind: 'json', schema, exact: compileJsonSchema(schema, false), coercing: compiledOnFirstUse(schema, true) };
  } catch (error) {
    throw invalid(owner, where, `cannot be compiled: ${(error as Error).message}`, SCHEMA_HINT);
  }
}

/**
 * One address's schemas `{ body?, query?, headers? }` (`given`, found at `where`), compiled; undefined when there
 * are none. Throws WEBHOOK_INVALID_NODE naming the owner and the place.
 */
export function resolvePayloadSchemas(owner: string, where: string, given: unknown): ResolvedPayloadSchemas | undefined {
  if (given === undefined) return undefined;
  if (typeof given !== 'object' || given === null || Array.isArray(given)) throw invalid(owner, where, 'must be an object { body?, query?, headers? }', SCHEMA_HINT);
  const parts = given as NodePayloadSchemas & Record<string, unknown>;
  const unknown = Object.keys(parts).find((key) => !(SCHEMA_PARTS as readonly string[]).includes(key));
  if (unknown !== undefined) throw invalid(owner, `${where}.${unknown}`, 'is not a part a schema checks (body, query, headers)', SCHEMA_HINT);
  const resolved: ResolvedPayloadSchemas = {};
  for (const part of SCHEMA_PARTS) {
    if (parts[part] !== undefined) resolved[part] = resolvePart(owner, `${where}.${part}`, part, parts[part]);
  }
  return Object.keys(resolved).length === 0 ? undefined : Object.freeze(resolved);
}

/** The node's schemas (`workflow.schemas[node.name]`), compiled; undefined when the workflow gives it none. */
export function resolveNodeSchemas(workflow: WorkflowWebhooks, node: WebhookNode): ResolvedPayloadSchemas | undefined {
  const all: unknown = workflow.schemas;
  if (all === undefined || all === null) return undefined;
  const owner = `Workflow "${workflow.workflowId}"`;
  if (typeof all !== 'object' || Array.isArray(all)) throw invalid(owner, 'schemas', 'must be an object of Webhook node names', 'schemas: { "<node name>": { body?, query?, headers? } }.');
  const given: unknown = Object.hasOwn(all, node.name) ? (all as Record<string, unknown>)[node.name] : undefined;
  return resolvePayloadSchemas(owner, `schemas[${JSON.stringify(node.name)}]`, given);
}

/** Names in `schemas` that no Webhook node of the workflow has: a typo would leave a node unchecked, so it is refused. */
export function refuseStraySchemas(workflow: WorkflowWebhooks): void {
  const all: unknown = workflow.schemas;
  if (typeof all !== 'object' || all === null || Array.isArray(all)) return;
  const names = new Set(workflow.nodes.map((node) => node.name));
  const stray = Object.keys(all).find((name) => !names.has(name));
  if (stray !== undefined) {
    throw invalid(`Workflow "${workflow.workflowId}"`, `schemas[${JSON.stringify(stray)}]`, 'names no node of the workflow',
      `Key schemas by the Webhook node's name: ${[...names].map((name) => JSON.stringify(name)).join(', ')}.`);
  }
}
