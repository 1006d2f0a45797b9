/**
 * The places a refused value did not match, as a caller is told them: an object key the schema does not name (one
 * matched by `patternProperties` or `additionalProperties`, chosen by the caller and maybe a secret) is shown as `*`.
 * Which keys a schema names is read once, when it is compiled.
 */
import { subschemasOf, type Draft } from './subschemas.js';

/** One place of the data that did not match, as ajv reports it (structural: no ajv type in the published types). */
export interface SchemaIssue {
  instancePath: string;
  keyword: string;
  message?: string | undefined;
  params: Record<string, unknown>;
}

/** The key names a schema states anywhere (`properties`, `required`, `dependentRequired`, draft-07 `dependencies`). */
export function namedKeysOf(schema: unknown, draft: Draft): ReadonlySet<string> {
  const names = new Set<string>();
  const visit = (node: unknown): void => {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return;
    const keywords = node as Record<string, unknown>;
    for (const keyword of ['properties', 'dependentRequired', 'dependentSchemas', 'dependencies']) {
      const value = keywords[keyword];
      if (typeof value === 'object' && value !== null) for (const [name, entry] of Object.entries(value)) {
        names.add(name);
        if (Array.isArray(entry)) for (const item of entry) if (typeof item === 'string') names.add(item);
      }
    }
    if (Array.isArray(keywords.required)) for (const name of keywords.required) if (typeof name === 'string') names.add(name);
    for (const child of subschemasOf(node, draft)) visit(child.schema);
  };
  visit(schema);
  return names;
}

function decode(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** `path` (a JSON pointer into `data`) with every object key that `named` lacks replaced by `*`. */
export function redactedPath(path: string, data: unknown, named: ReadonlySet<string>): string {
  if (path === '') return path;
  let value = data;
  let out = '';
  for (const segment of path.slice(1).split('/')) {
    const key = decode(segment);
    const inArray = Array.isArray(value);
    out += `/${inArray || named.has(key) ? segment : '*'}`;
    value = typeof value === 'object' && value !== null && Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
  }
  return out;
}

/** The issues with their paths redacted; `params` are dropped, since they may hold the caller's keys or values. */
export function redactedIssues(issues: readonly SchemaIssue[], data: unknown, named: ReadonlySet<string>): SchemaIssue[] {
  return issues.map((issue) => {
    const params: Record<string, unknown> = {};
    // `required` names a property of the schema's: kept so that the answer can point at it.
    if (issue.keyword === 'required' && typeof issue.params.missingProperty === 'string') params.missingProperty = issue.params.missingProperty;
    return { instancePath: redactedPath(issue.instancePath, data, named), keyword: issue.keyword, message: issue.message, params };
  });
}
