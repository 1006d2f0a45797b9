/**
 * What the validators report: findings with a JSON-pointer path, a stable code, a severity and a message that
 * names the definition it is about, e.g. `properties/4 (options 'speed'): default 'fast' is not one of …`.
 */
export type Severity = 'error' | 'warning';

/** Every code a finding can have; a code never changes its meaning, so tools may switch on it. */
export const FINDING_CODES = [
  // Structure (the JSON Schema): a field missing, of the wrong type, a value not allowed, a number or list too small.
  'missing-field', 'wrong-type', 'invalid-value', 'out-of-range', 'invalid-structure',
  // Element types and defaults.
  'unknown-type', 'platform-only-type', 'default-wrong-shape', 'default-not-an-option', 'default-not-object',
  'default-out-of-range', 'collection-default-not-empty',
  // Options, collections and method names.
  'options-missing', 'option-value-duplicate', 'groups-missing', 'group-name-duplicate', 'unknown-method',
  // typeOptions.
  'min-above-max', 'password-default', 'password-not-required', 'unknown-type-option', 'unknown-editor', 'html-editor-expression',
  // Resource locator and resource mapper.
  'modes-missing', 'mode-name-duplicate', 'list-mode-without-search-method', 'default-mode-unknown', 'regex-invalid',
  'extract-value-groups', 'resource-mapper-default', 'resource-mapper-method', 'multi-key-match-in-add', 'auto-map-default',
  // Display options and sibling names.
  'display-options-invalid', 'invalid-condition', 'unknown-condition-operator', 'duplicate-name',
  // Conventions of working nodes.
  'no-data-expression-missing', 'operation-action-missing', 'required-false',
  // Inputs that cannot be walked: nested past the depth bound (a cycle), or a hostile object that throws when read.
  'too-deep', 'unreadable',
] as const;

export type FindingCode = (typeof FINDING_CODES)[number];

export interface Finding {
  /** JSON pointer into the validated input, e.g. `/properties/3/typeOptions/rows`. */
  path: string;
  code: FindingCode;
  severity: Severity;
  message: string;
}

export interface ValidationResult {
  /** No errors (warnings allowed). */
  valid: boolean;
  errors: Finding[];
  warnings: Finding[];
}

/** Escapes one JSON-pointer segment (RFC 6901). */
export function pointerSegment(segment: string | number): string {
  return String(segment).replace(/~/g, '~0').replace(/\//g, '~1');
}

export function joinPointer(base: string, ...segments: (string | number)[]): string {
  return segments.reduce<string>((path, segment) => `${path}/${pointerSegment(segment)}`, base);
}

/** Where a definition sits, and how a message names it. */
export interface Location {
  pointer: string;
  /** `properties/4 (options 'speed')` */
  label: string;
}

export function describeValue(value: unknown): string {
  if (typeof value === 'string') return `'${value.length > 60 ? `${value.slice(0, 57)}...` : value}'`;
  if (value === undefined) return 'undefined';
  try {
    const json = JSON.stringify(value);
    return json.length > 60 ? `${json.slice(0, 57)}...` : json;
  } catch {
    return typeof value;
  }
}

export function locationOf(pointer: string, definition: unknown): Location {
  const { type, name, displayName } = (typeof definition === 'object' && definition !== null ? definition : {}) as Record<string, unknown>;
  // Only definitions (named things) are described by type and name; a hint's `type` is its colour.
  const named = typeof name === 'string' || typeof displayName === 'string';
  const what = named ? [typeof type === 'string' ? type : undefined, typeof name === 'string' ? `'${name}'` : undefined].filter(Boolean).join(' ') : '';
  const where = pointer.replace(/^\//, '') || '(root)';
  return { pointer, label: what === '' ? where : `${where} (${what})` };
}

/** Collects findings; `strict` turns recommendations (`recommendation()`) into errors. */
export class Findings {
  readonly errors: Finding[] = [];
  readonly warnings: Finding[] = [];
  readonly #seen = new Set<string>();

  constructor(readonly strict = false) {}

  add(severity: Severity, code: FindingCode, path: string, message: string): void {
    const key = `${code} ${path} ${message}`;
    if (this.#seen.has(key)) return;
    this.#seen.add(key);
    (severity === 'error' ? this.errors : this.warnings).push({ path, code, severity, message });
  }

  error(code: FindingCode, at: Location, message: string, subpath: (string | number)[] = []): void {
    this.add('error', code, joinPointer(at.pointer, ...subpath), `${at.label}: ${message}`);
  }

  warning(code: FindingCode, at: Location, message: string, subpath: (string | number)[] = []): void {
    this.add('warning', code, joinPointer(at.pointer, ...subpath), `${at.label}: ${message}`);
  }

  /** A recommendation of the spec: a warning, or an error in strict mode. */
  recommendation(code: FindingCode, at: Location, message: string, subpath: (string | number)[] = []): void {
    (this.strict ? this.error : this.warning).call(this, code, at, message, subpath);
  }

  result(): ValidationResult {
    return { valid: this.errors.length === 0, errors: this.errors, warnings: this.warnings };
  }
}
