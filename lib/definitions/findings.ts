/**
 * What the validators report: findings with a JSON-pointer path, a stable code, a severity and a message that
 * names the definition it is about, e.g. `properties/4 (options 'speed'): default 'fast' is not one of …`.
 */
export type Severity = 'error' | 'warning';

/**
 * Every code a finding can have, with its severity. A code never changes its meaning, so tools may switch on it.
 * An error is what the platform renders or runs wrongly; a warning is what it tolerates, or a convention of
 * working nodes. `strict` turns every warning into an error.
 */
export const FINDING_CATALOGUE = {
  // Structure (the JSON Schema): a field missing, of the wrong type, a value not allowed, a number or list too small.
  'missing-field': 'error', 'wrong-type': 'error', 'invalid-value': 'error', 'out-of-range': 'error', 'invalid-structure': 'error',
  // Element types.
  'unknown-type': 'error', 'platform-only-type': 'warning',
  // Defaults the platform gets wrong.
  'default-wrong-shape': 'error', 'default-not-an-option': 'error', 'required-check-defeated': 'error',
  // Defaults the platform tolerates.
  'options-default-container': 'warning', 'default-zero': 'warning', 'number-default-not-number': 'warning',
  'default-not-object': 'warning', 'collection-default-not-empty': 'warning', 'default-out-of-range': 'warning',
  'notice-default-not-empty': 'warning',
  // Options, collections and method names.
  'options-missing': 'error', 'option-value-ambiguous': 'error', 'option-value-duplicate': 'warning', 'groups-missing': 'error',
  'group-name-duplicate': 'error', 'unknown-method': 'error',
  // typeOptions.
  'min-above-max': 'error', 'password-default': 'error', 'filter-type-validation': 'error', 'password-not-required': 'warning',
  'unknown-type-option': 'warning', 'unknown-editor': 'warning', 'html-editor-expression': 'warning',
  // Resource locator and resource mapper.
  'modes-missing': 'error', 'mode-name-duplicate': 'error', 'list-mode-without-search-method': 'error', 'default-mode-unknown': 'error',
  'regex-invalid': 'error', 'extract-value-groups': 'error', 'mode-url-unresolved': 'error', 'mode-url-not-expression': 'warning',
  'resource-mapper-default': 'error', 'resource-mapper-method': 'error', 'multi-key-match-in-add': 'warning', 'auto-map-default': 'warning',
  // Display options and sibling names.
  'display-options-invalid': 'error', 'invalid-condition': 'error', 'unknown-condition-operator': 'error', 'duplicate-name': 'error',
  'duplicate-name-possible': 'warning', 'display-value-unknown': 'warning', 'display-value-not-string': 'warning',
  // Conventions of working nodes.
  'no-data-expression-missing': 'warning', 'operation-action-missing': 'warning', 'required-false': 'warning',
  // Inputs that cannot be walked: nested past the depth bound (a cycle), or a hostile object that throws when read.
  'too-deep': 'error', 'unreadable': 'error',
} as const satisfies Record<string, Severity>;

export const FINDING_CODES = Object.keys(FINDING_CATALOGUE) as (keyof typeof FINDING_CATALOGUE)[];

export type FindingCode = keyof typeof FINDING_CATALOGUE;

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
  // Most segments are indexes or plain names: skip the replacing, which every definition would pay for.
  if (typeof segment === 'number') return String(segment);
  return segment.includes('~') || segment.includes('/') ? segment.replace(/~/g, '~0').replace(/\//g, '~1') : segment;
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

function labelOf(pointer: string, definition: unknown): string {
  const { type, name, displayName } = (typeof definition === 'object' && definition !== null ? definition : {}) as Record<string, unknown>;
  // Only definitions (named things) are described by type and name; a hint's `type` is its colour.
  const named = typeof name === 'string' || typeof displayName === 'string';
  const what = named ? [typeof type === 'string' ? type : undefined, typeof name === 'string' ? `'${name}'` : undefined].filter(Boolean).join(' ') : '';
  const where = pointer.replace(/^\//, '') || '(root)';
  return what === '' ? where : `${where} (${what})`;
}

/** The label is made only when a finding needs it: most definitions have none. */
class LazyLocation implements Location {
  #label: string | undefined;
  constructor(readonly pointer: string, private readonly definition: unknown) {}
  get label(): string {
    return (this.#label ??= labelOf(this.pointer, this.definition));
  }
}

export function locationOf(pointer: string, definition: unknown): Location {
  return new LazyLocation(pointer, definition);
}

/** Collects findings, each with its code's severity; `strict` makes every warning an error. */
export class Findings {
  readonly errors: Finding[] = [];
  readonly warnings: Finding[] = [];
  readonly #seen = new Set<string>();

  constructor(readonly strict = false) {}

  add(code: FindingCode, path: string, message: string): void {
    const key = `${code} ${path} ${message}`;
    if (this.#seen.has(key)) return;
    this.#seen.add(key);
    const severity: Severity = this.strict ? 'error' : FINDING_CATALOGUE[code];
    (severity === 'error' ? this.errors : this.warnings).push({ path, code, severity, message });
  }

  /** A finding about the definition at `at`, pointing `subpath` below it. */
  report(code: FindingCode, at: Location, message: string, subpath: (string | number)[] = []): void {
    this.add(code, joinPointer(at.pointer, ...subpath), `${at.label}: ${message}`);
  }

  result(): ValidationResult {
    return { valid: this.errors.length === 0, errors: this.errors, warnings: this.warnings };
  }
}
