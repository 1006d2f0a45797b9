/**
 * What a refused call is told: the places that did not match (JSON pointers into the trigger item's json) and what
 * was expected there, at most MAX_PROBLEMS of them, never a value the call sent (it may be a secret). ajv's messages
 * name only the schema's side; a Standard Schema library's message may quote the value, so the value is cut out.
 */
import { PayloadInvalidError } from '../../core/errors.js';
import type { PayloadProblem, StandardSchemaIssue } from '../../core/schemas.js';
import type { SchemaIssue } from '../registry/json-schema/compile.js';
import type { SchemaPart } from '../registry/payload-schemas.js';
import { withoutCallerValues } from './caller-text.js';

/** The answer lists at most this many places; a schema can say more about a large body than anyone reads. */
export const MAX_PROBLEMS = 20;

function escapeSegment(key: PropertyKey): string {
  return String(key).replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The problems found so far, bounded: adding to a full list does nothing. */
export class Problems {
  readonly list: PayloadProblem[] = [];
  readonly #seen = new Set<string>();
  readonly parts = new Set<SchemaPart>();

  add(part: SchemaPart, path: string, message: string): void {
    this.parts.add(part);
    const key = `${path}\n${message}`;
    if (this.list.length >= MAX_PROBLEMS || this.#seen.has(key)) return;
    this.#seen.add(key);
    this.list.push({ path, message });
  }

  /** ajv's issues: `required` points at the missing property, which the schema names. */
  addJsonIssues(part: SchemaPart, issues: readonly SchemaIssue[] | null | undefined): void {
    for (const issue of issues ?? []) {
      const base = `/${part}${issue.instancePath}`;
      if (issue.keyword === 'required' && typeof issue.params.missingProperty === 'string') {
        this.add(part, `${base}/${escapeSegment(issue.params.missingProperty)}`, 'is required');
      } else {
        this.add(part, base, issue.message ?? `must pass "${issue.keyword}"`);
      }
    }
  }

  /** A Standard Schema validator's issues, its messages without the values they name. */
  addStandardIssues(part: SchemaPart, issues: readonly StandardSchemaIssue[], input: unknown): void {
    if (issues.length > 0) this.parts.add(part);
    for (const issue of issues) {
      // A large body can bring a million issues: past a full list, cleaning their messages is work for nobody.
      if (this.list.length >= MAX_PROBLEMS) return;
      const keys = (issue.path ?? []).map((segment) => (typeof segment === 'object' ? segment.key : segment));
      const path = `/${part}${keys.map((key) => `/${escapeSegment(key)}`).join('')}`;
      const message = typeof issue.message === 'string' && issue.message !== '' ? issue.message : 'is not valid';
      this.add(part, path, withoutCallerValues(message, issue, input));
    }
  }

  /** The 422, or undefined when nothing was found. */
  error(): PayloadInvalidError | undefined {
    if (this.list.length === 0) return undefined;
    const parts = [...this.parts];
    const named = parts.length === 1 ? parts[0] as string : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1] as string}`;
    // `headers` is plural on its own: "The call's headers do not match".
    const verb = parts.length === 1 && parts[0] !== 'headers' ? 'does' : 'do';
    return new PayloadInvalidError(`The call's ${named} ${verb} not match the webhook's schema.`, this.list,
      'Send what the schema describes: each entry of errors is a place in the call (a JSON pointer into /body, /query or /headers) and what it must be.');
  }
}
