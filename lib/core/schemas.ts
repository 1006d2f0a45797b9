/**
 * Public shapes of payload schemas: what a workflow holds (`schemas`, plain JSON that travels through every store),
 * the Standard Schema validator objects a host attaches in code, and the types an executor takes from them. Nothing
 * here imports a validator library: the Standard Schema shape is structural, so the published types need none.
 */

/** A JSON Schema (draft 2020-12 or draft-07; `$schema` chooses, 2020-12 when absent), or `true`/`false`. */
export type JsonSchema = boolean | { readonly [keyword: string]: unknown };

/**
 * What one part of a call must match: a JSON Schema (data: it travels with the workflow), or the name of a
 * validator object the middleware was given in its `schemas` option (code: every instance must be given it).
 */
export type PayloadSchema = JsonSchema | string;

/** A Webhook node's schemas: the body, the query string and the headers, each checked on its own. */
export interface NodePayloadSchemas {
  body?: PayloadSchema;
  query?: PayloadSchema;
  /** Header names as Node gives them: lower case. */
  headers?: PayloadSchema;
}

/** The path of a Standard Schema issue: property keys, or segments that hold one. */
export type StandardSchemaPath = ReadonlyArray<PropertyKey | { readonly key: PropertyKey }>;

/** One issue a Standard Schema validator reports. */
export interface StandardSchemaIssue {
  readonly message: string;
  readonly path?: StandardSchemaPath | undefined;
}

/** What a Standard Schema validator answers: the validated (maybe transformed) value, or its issues. */
export type StandardSchemaResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<StandardSchemaIssue> };

/**
 * A validator object of any library that implements Standard Schema v1 (zod 3.24+, valibot 1, arktype, effect):
 * the shape the middleware calls, written structurally so that no library's types are needed to use it.
 */
export interface StandardSchema<Input = unknown, Output = Input> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => StandardSchemaResult<Output> | Promise<StandardSchemaResult<Output>>;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
  };
}

/**
 * The value a Standard Schema validator gives back, e.g. `WebhookExecutor<SchemaOutput<typeof orderSchema>>`: the run's
 * `items[0].json.body` is typed as the schema's output (for a JSON Schema written `as const`, json-schema-to-ts's
 * `FromSchema<typeof schema>` gives the type the same way).
 */
export type SchemaOutput<Schema> = Schema extends { readonly '~standard': { readonly types?: infer Types } }
  ? NonNullable<Types> extends { readonly output: infer Output } ? Output : unknown
  : unknown;

/** One place where a refused call did not match its schema: never the value the call sent there. */
export interface PayloadProblem {
  /** JSON pointer into the trigger item's json: `/body/items/0/name`, `/query/page`, `/headers/x-tenant`. */
  path: string;
  /** What was expected there, e.g. `must be integer`. */
  message: string;
}
