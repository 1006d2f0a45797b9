/**
 * The resource mapper at run time ): check the field list a node's mapping method returned, give the
 * definition's noFieldsError when it succeeded with none, map input items onto the fields (converting each value
 * to its FieldType), and resolve the matching columns.
 */
import { joinPointer } from './findings.js';
import { isObject } from './rules/context.js';
import { FIELD_TYPES, type ResourceMapperField, type ResourceMapperTypeOptions } from './types.js';
import { convertFieldValue } from './values/field-types.js';

export interface MapperIssue {
  path: string;
  code: string;
  message: string;
}

const KNOWN_FIELD_TYPES = new Set<string>(FIELD_TYPES);
const BOOLEAN_FIELDS = ['defaultMatch', 'required', 'display'] as const;
const OPTIONAL_BOOLEANS = ['canBeUsedToMatch', 'removed', 'readOnly'] as const;

function checkField(field: unknown, path: string, issues: MapperIssue[]): field is ResourceMapperField {
  const before = issues.length;
  if (!isObject(field)) {
    issues.push({ path, code: 'wrong-type', message: 'a field must be an object' });
    return false;
  }
  for (const name of ['id', 'displayName'] as const) {
    if (typeof field[name] !== 'string') issues.push({ path: joinPointer(path, name), code: 'missing-field', message: `${name} must be a string` });
  }
  for (const name of BOOLEAN_FIELDS) {
    if (typeof field[name] !== 'boolean') issues.push({ path: joinPointer(path, name), code: 'missing-field', message: `${name} must be a boolean` });
  }
  for (const name of OPTIONAL_BOOLEANS) {
    if (field[name] !== undefined && typeof field[name] !== 'boolean') issues.push({ path: joinPointer(path, name), code: 'wrong-type', message: `${name} must be a boolean` });
  }
  if (field.type !== undefined && !KNOWN_FIELD_TYPES.has(field.type as string)) {
    issues.push({ path: joinPointer(path, 'type'), code: 'invalid-value', message: `type must be one of ${FIELD_TYPES.join(', ')}; got ${JSON.stringify(field.type)}` });
  }
  if (field.options !== undefined && !(Array.isArray(field.options) && field.options.every((o) => isObject(o) && typeof o.name === 'string' && 'value' in o))) {
    issues.push({ path: joinPointer(path, 'options'), code: 'wrong-type', message: 'options must be a list of { name, value }' });
  }
  return issues.length === before;
}

export interface FieldsOutcome {
  /** The fields that passed the contract. */
  fields: ResourceMapperField[];
  issues: MapperIssue[];
  /** The definition's noFieldsError, when the call succeeded with no fields. */
  notice?: string;
}

/** Checks what a mapping method returned: `{ fields: [...] }` or the list itself. */
export function checkResourceMapperFields(result: unknown, typeOptions: Partial<ResourceMapperTypeOptions> = {}): FieldsOutcome {
  const list = Array.isArray(result) ? result : isObject(result) ? result.fields : undefined;
  if (!Array.isArray(list)) return { fields: [], issues: [{ path: '/fields', code: 'wrong-type', message: 'the mapping method must return { fields: [...] }' }] };
  const issues: MapperIssue[] = [];
  const fields = list.filter((field, index): field is ResourceMapperField => checkField(field, joinPointer('/fields', index), issues));
  const ids = new Set<string>();
  fields.forEach((field, index) => {
    if (ids.has(field.id)) issues.push({ path: joinPointer('/fields', index, 'id'), code: 'duplicate-id', message: `the id '${field.id}' is used twice` });
    ids.add(field.id);
  });
  if (list.length === 0 && typeof typeOptions.noFieldsError === 'string') return { fields, issues, notice: typeOptions.noFieldsError };
  return { fields, issues };
}

export interface MappingValue {
  mappingMode: 'defineBelow' | 'autoMapInputData';
  value: Record<string, unknown> | null;
}

export interface MappedItems {
  items: Record<string, unknown>[];
  issues: MapperIssue[];
}

function fieldWord(typeOptions: Partial<ResourceMapperTypeOptions>): string {
  const word = typeOptions.fieldWords?.singular ?? 'field';
  return `${word.charAt(0).toUpperCase()}${word.slice(1)}`;
}

function sourceValue(field: ResourceMapperField, mapping: MappingValue, input: Record<string, unknown>): unknown {
  if (mapping.mappingMode === 'defineBelow') return isObject(mapping.value) && Object.hasOwn(mapping.value, field.id) ? mapping.value[field.id] : undefined;
  if (Object.hasOwn(input, field.id)) return input[field.id];
  const byLabel = Object.keys(input).find((key) => key.toLowerCase() === field.displayName.toLowerCase());
  return byLabel === undefined ? undefined : input[byLabel];
}

/**
 * Maps each input item onto the fields: `autoMapInputData` takes input keys equal to a field id (or its label),
 * `defineBelow` the user's values. Hidden (display: false) and removed fields are skipped; values are converted per
 * FieldType; required fields that stay empty are reported in the modes that create rows (add, upsert).
 */
export function applyResourceMapping(typeOptions: Partial<ResourceMapperTypeOptions>, fields: readonly ResourceMapperField[], mapping: MappingValue, inputs: readonly Record<string, unknown>[]): MappedItems {
  const issues: MapperIssue[] = [];
  const usable = fields.filter((field) => field.display !== false && field.removed !== true);
  const creates = typeOptions.mode === 'add' || typeOptions.mode === 'upsert';
  const items = inputs.map((input, index) => {
    const mapped: Record<string, unknown> = {};
    for (const field of usable) {
      const raw = sourceValue(field, mapping, isObject(input) ? input : {});
      const converted = convertFieldValue(field.displayName, raw, field.type, field.options);
      const path = joinPointer('/items', index, field.id);
      if (!converted.ok) {
        issues.push({ path, code: 'wrong-type', message: `Invalid input for '${field.displayName}' [item ${index}]: ${converted.message}` });
        continue;
      }
      if (converted.value === undefined || converted.value === null || converted.value === '') {
        if (creates && field.required) issues.push({ path, code: 'required', message: `${fieldWord(typeOptions)} "${field.id}" is required [item ${index}]` });
        if (converted.value === undefined) continue;
      }
      Object.defineProperty(mapped, field.id, { value: converted.value, enumerable: true, writable: true, configurable: true });
    }
    return mapped;
  });
  return { items, issues };
}

/**
 * The columns that identify the rows to change (update, upsert): the chosen ones, else those with defaultMatch.
 * Only fields that may match (canBeUsedToMatch not false, displayed) count; without multiKeyMatch, one column.
 */
export function resolveMatchingColumns(typeOptions: Partial<ResourceMapperTypeOptions>, fields: readonly ResourceMapperField[], chosen?: readonly string[]): { columns: string[]; issues: MapperIssue[] } {
  if (typeOptions.mode !== 'update' && typeOptions.mode !== 'upsert') return { columns: [], issues: [] };
  const candidates = fields.filter((field) => field.canBeUsedToMatch !== false && field.display !== false);
  const issues: MapperIssue[] = [];
  let columns = chosen === undefined ? candidates.filter((field) => field.defaultMatch).map((field) => field.id) : [...chosen];
  for (const column of columns) {
    if (!candidates.some((field) => field.id === column)) issues.push({ path: '/matchingColumns', code: 'not-matchable', message: `'${column}' cannot be used to match rows` });
  }
  columns = columns.filter((column) => candidates.some((field) => field.id === column));
  if (typeOptions.multiKeyMatch !== true && columns.length > 1) {
    if (chosen === undefined) columns = columns.slice(0, 1);
    else issues.push({ path: '/matchingColumns', code: 'single-key', message: `only one column can be used to match rows; got ${columns.join(', ')}` });
  }
  if (columns.length === 0) issues.push({ path: '/matchingColumns', code: 'no-matching-column', message: `choose the column${typeOptions.multiKeyMatch === true ? 's' : ''} to match rows on` });
  return { columns, issues };
}
