/**
 * Validate: check a call's body, query and headers against its webhook's schemas, after the payload is parsed and
 * before any run (or job) exists; a mismatch throws 422 `PAYLOAD_INVALID` here. JSON Schemas were compiled at
 * activation; validators named by the workflow come from the middleware's `schemas` option. Values that arrive as
 * strings (query, headers, form and multipart fields, XML) are read as the types the schema says; a JSON body is
 * checked as sent. The run gets what passed: coerced values, or a Standard Schema validator's output.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { WebhookError } from '../../core/errors.js';
import type { StandardSchema, StandardSchemaResult } from '../../core/schemas.js';
import type { Kind } from '../body/body-types.js';
import type { RegisteredWebhook } from '../registry/contract.js';
import { ValidationBudget, withinBudget } from '../registry/json-schema/budget.js';
import { SCHEMA_PARTS, type JsonSchemaCheck, type NamedSchemaCheck, type ResolvedPayloadSchemas, type SchemaPart } from '../registry/payload-schemas.js';
import { Problems } from './problems.js';
import type { NamedValidators } from './settings.js';

export type { NamedValidators, SchemaMiddlewareOptions } from './settings.js';
export { resolveNamedValidators } from './settings.js';

/** The parts of a call a schema checks; `body` and `query` are replaced by what passed. */
export interface CheckedParts {
  body: unknown;
  query: Record<string, unknown>;
  headers: IncomingHttpHeaders;
  /** How the body was parsed; undefined when the call had none (or a host parser read it). */
  bodyKind: Kind | undefined;
}

/** Body kinds whose values are strings whatever they mean. */
const STRING_VALUED: ReadonlySet<Kind | undefined> = new Set<Kind | undefined>(['form', 'multipart', 'xml']);

function missing(webhook: RegisteredWebhook, part: SchemaPart, name: string): WebhookError {
  return new WebhookError('PAYLOAD_SCHEMA_MISSING',
    `Webhook node "${webhook.nodeName}" of workflow "${webhook.workflowId}" checks its ${part} with the validator "${name}", which this server was not given.`, {
      hint: `Give every instance the same schemas option: createWebhookMiddleware(registry, executor, { schemas: { ${JSON.stringify(name)}: … } }).`,
    });
}

function inputOf(parts: CheckedParts, part: SchemaPart): unknown {
  if (part === 'body') return parts.body;
  if (part === 'query') return parts.query;
  // A check of the headers may coerce them; the run keeps the headers as they came.
  return { ...parts.headers };
}

/** Checks a part against its compiled JSON Schema; the problems are added only when there are some. */
function checkJson(check: JsonSchemaCheck, part: SchemaPart, parts: CheckedParts, problems: Problems | undefined): Problems | undefined {
  const validate = part === 'body' && !STRING_VALUED.has(parts.bodyKind) && check.exact !== undefined ? check.exact : check.coercing;
  if (validate(inputOf(parts, part))) return problems;
  const found = problems ?? new Problems();
  found.addJsonIssues(part, validate.errors);
  return found;
}

/** Takes a validator's answer: the part's new value, or its issues. */
function take(result: StandardSchemaResult<unknown>, part: SchemaPart, input: unknown, parts: CheckedParts, problems: Problems | undefined): Problems | undefined {
  if (result.issues !== undefined) {
    const found = problems ?? new Problems();
    found.addStandardIssues(part, result.issues, input);
    return found;
  }
  if (part === 'body') parts.body = result.value;
  else if (part === 'query' && typeof result.value === 'object' && result.value !== null) parts.query = result.value as Record<string, unknown>;
  return problems;
}

function validatorOf(check: NamedSchemaCheck, part: SchemaPart, validators: NamedValidators, webhook: RegisteredWebhook): StandardSchema {
  const validator = validators.get(check.name);
  if (validator === undefined) throw missing(webhook, part, check.name);
  return validator;
}

function refuse(problems: Problems | undefined): void {
  const error = problems?.error();
  if (error !== undefined) throw error;
}

/**
 * Checks the call's parts against the webhook's schemas; throws (or rejects with) 422 `PAYLOAD_INVALID` listing
 * the places that did not match, in every part, or 422 `PAYLOAD_TOO_COSTLY` when the JSON Schema checks of the call
 * together would cost more than `workUnits` (`limits.schemaWork`). Synchronous unless a validator answers with a promise.
 */
export function checkPayload(webhook: RegisteredWebhook, schemas: ResolvedPayloadSchemas, parts: CheckedParts, validators: NamedValidators, workUnits: number): Promise<void> | undefined {
  // Nothing is made for a call that matches: the problems only once one is found.
  let problems: Problems | undefined;
  let pending: Promise<void>[] | undefined;
  // One budget for all of the call's JSON Schema checks: a body, its query and its headers share it.
  let budget: ValidationBudget | undefined;
  for (const part of SCHEMA_PARTS) {
    const check = schemas[part];
    if (check === undefined) continue;
    if (check.kind === 'json') {
      budget ??= new ValidationBudget(workUnits);
      problems = withinBudget(budget, () => checkJson(check, part, parts, problems));
      continue;
    }
    const input = inputOf(parts, part);
    const result = validatorOf(check, part, validators, webhook)['~standard'].validate(input);
    if (result instanceof Promise) (pending ??= []).push(result.then((settled) => { problems = take(settled, part, input, parts, problems); }));
    else problems = take(result, part, input, parts, problems);
  }
  if (pending === undefined) {
    refuse(problems);
    return undefined;
  }
  return Promise.all(pending).then(() => { refuse(problems); });
}
