/**
 * One order, said three ways: as a JSON Schema (data in the workflow), a zod schema and a valibot schema (validator
 * objects given to the middleware). Each takes a body `{ name: string (a capital first), qty: integer ≥ 1, gift?:
 * boolean }`, a query `{ page: integer ≥ 1 }` and headers `{ x-tenant: lower-case letters }`; the validator libraries
 * read form strings themselves (their own coercion), as the JSON Schema is read with ajv's.
 */
import * as v from 'valibot';
import { z } from 'zod';
import type { NodePayloadSchemas, StandardSchema, WorkflowWebhooks } from '../../lib/index.js';

export const ORDER_JSON_SCHEMA = {
  type: 'object',
  required: ['name', 'qty'],
  properties: {
    name: { type: 'string', pattern: '^[A-Z]' },
    qty: { type: 'integer', minimum: 1 },
    gift: { type: 'boolean' },
  },
} as const;

const zodInteger = z.coerce.number().int().min(1);
const valibotInteger = v.pipe(v.union([v.number(), v.pipe(v.string(), v.decimal(), v.transform(Number))]), v.integer(), v.minValue(1));

export const ORDER_ZOD = z.object({
  name: z.string().regex(/^[A-Z]/),
  qty: zodInteger,
  gift: z.union([z.boolean(), z.stringbool()]).optional(),
});

export const ORDER_VALIBOT = v.object({
  name: v.pipe(v.string(), v.regex(/^[A-Z]/)),
  qty: valibotInteger,
  gift: v.optional(v.union([v.boolean(), v.pipe(v.picklist(['true', 'false']), v.transform((text) => text === 'true'))])),
});

export interface Flavour {
  name: string;
  /** What the workflow holds for each node: the JSON Schemas, or the validators' names. */
  schemas: { body: NodePayloadSchemas; query: NodePayloadSchemas; headers: NodePayloadSchemas };
  /** The middleware's `schemas` option. */
  validators: Record<string, StandardSchema>;
}

export const FLAVOURS: Flavour[] = [
  {
    name: 'JSON Schema',
    schemas: {
      body: { body: ORDER_JSON_SCHEMA },
      query: { query: { type: 'object', required: ['page'], properties: { page: { type: 'integer', minimum: 1 } } } },
      headers: { headers: { type: 'object', required: ['x-tenant'], properties: { 'x-tenant': { type: 'string', pattern: '^[a-z]+$' } } } },
    },
    validators: {},
  },
  {
    name: 'zod',
    schemas: { body: { body: 'order' }, query: { query: 'page' }, headers: { headers: 'tenant' } },
    validators: {
      order: ORDER_ZOD,
      page: z.object({ page: zodInteger }),
      tenant: z.object({ 'x-tenant': z.string().regex(/^[a-z]+$/) }),
    },
  },
  {
    name: 'valibot',
    schemas: { body: { body: 'order' }, query: { query: 'page' }, headers: { headers: 'tenant' } },
    validators: {
      order: ORDER_VALIBOT,
      page: v.object({ page: valibotInteger }),
      tenant: v.object({ 'x-tenant': v.pipe(v.string(), v.regex(/^[a-z]+$/)) }),
    },
  },
];

/** A workflow with three lastNode webhooks (`body`, `query`, `headers`), each checked by one of the flavour's schemas. */
export function schemaWorkflow(flavour: Flavour, workflowId = 'wf-schemas'): WorkflowWebhooks {
  return {
    workflowId,
    nodes: [
      { name: 'Body', parameters: { path: 'body', httpMethod: 'POST', responseMode: 'lastNode' } },
      { name: 'Query', parameters: { path: 'query', httpMethod: 'GET', responseMode: 'lastNode' } },
      { name: 'Headers', parameters: { path: 'headers', httpMethod: 'POST', responseMode: 'lastNode' } },
    ],
    schemas: { Body: flavour.schemas.body, Query: flavour.schemas.query, Headers: flavour.schemas.headers },
  };
}
