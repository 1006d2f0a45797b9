/**
 * The middleware's `schemas` option: the Standard Schema validator objects (zod, valibot, arktype…) a workflow's
 * `schemas` name. A validator is code, so it cannot travel with the workflow through a store: every instance that
 * serves the workflow is given the same objects under the same names, and one that lacks a name refuses the call.
 */
import { fail } from '../../core/option-checks.js';
import type { StandardSchema } from '../../core/schemas.js';

export interface SchemaMiddlewareOptions {
  /**
   * Validator objects implementing Standard Schema v1, by the name a workflow's `schemas` gives them, e.g.
   * `{ order: z.object({ name: z.string() }) }` for `schemas: { Webhook: { body: 'order' } }`. A call whose part does
   * not pass is answered 422 `PAYLOAD_INVALID`; the run gets the validator's output. Default none.
   */
  schemas?: Record<string, StandardSchema>;
}

/** The validators by name; empty without the option. */
export type NamedValidators = ReadonlyMap<string, StandardSchema>;

export function resolveNamedValidators(value: unknown): NamedValidators {
  if (value === undefined) return new Map();
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail('schemas', 'an object of Standard Schema validators by name', value);
  const named = new Map<string, StandardSchema>();
  for (const [name, validator] of Object.entries(value)) {
    const standard = (validator as Partial<StandardSchema> | null)?.['~standard'];
    if (typeof standard?.validate !== 'function' || standard.version !== 1) {
      fail(`schemas.${name}`, 'a validator implementing Standard Schema v1 (zod 3.24+, valibot 1, arktype 2…), with ~standard.validate', validator);
    }
    named.set(name, validator as StandardSchema);
  }
  return named;
}
