/**
 * What a user entered, checked against the definitions: required fields, value shapes per type,
 * option values, number ranges and precision (the platform checks these only in its editor; we check them
 * everywhere), resource locator modes and validations, and nested collections. Parameters not shown for the values
 * entered are neither required nor validated. Expressions (`=…`) are only known at run time and are skipped.
 */
import { joinPointer } from '../findings.js';
import { isObject, typeOptionsOf } from '../rules/context.js';
import { isExpressionValue } from '../expression.js';
import type { FieldType, OptionEntry } from '../types.js';
import { isShown } from './display.js';
import { convertFieldValue } from './field-types.js';
import { checkLocatorValue } from './resource-locator.js';

export interface ParameterIssue {
  /** JSON pointer into the values, e.g. `/options/limit`. */
  path: string;
  /** The definition's displayName (or name). */
  parameter: string;
  code: string;
  message: string;
}

export interface ValueContext {
  /** The node's version, for `@version` display conditions. */
  version?: number;
  /** The node's top-level parameters, for `/name` display conditions (defaults to the values given). */
  root?: Readonly<Record<string, unknown>>;
  /** Where the value sits, as a JSON pointer (default: `/<name>`). */
  path?: string;
}

type Definition = Record<string, unknown>;
type Report = (code: string, message: string, path?: string) => void;

function isEmpty(type: unknown, value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (type === 'multiOptions') return Array.isArray(value) && value.length === 0;
  if (type === 'resourceLocator') return isObject(value) ? (value.value === '' || value.value === undefined || value.value === null) : value === '';
  return value === '' && ['string', 'dateTime', 'options', 'color', 'json', 'number'].includes(type as string);
}

function optionValues(definition: Definition): unknown[] | undefined {
  if (!Array.isArray(definition.options) || typeOptionsOf(definition).loadOptionsMethod !== undefined) return undefined;
  return definition.options.filter(isObject).map((entry) => entry.value);
}

function checkNumber(definition: Definition, value: unknown, report: Report): void {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    report('wrong-type', `'${label(definition)}' expects a number but we got ${JSON.stringify(value)}`);
    return;
  }
  const { minValue, maxValue, numberPrecision } = typeOptionsOf(definition);
  if (typeof minValue === 'number' && value < minValue) report('below-minimum', `Value must be at least ${minValue}`);
  if (typeof maxValue === 'number' && value > maxValue) report('above-maximum', `Value must be at most ${maxValue}`);
  if (typeof numberPrecision === 'number' && Number.isInteger(numberPrecision)) {
    const decimals = /\.(\d+)$/.exec(String(value))?.[1]?.length ?? (/e-(\d+)$/.exec(String(value)) ? Infinity : 0);
    if (decimals > numberPrecision) report('too-precise', `Value may have at most ${numberPrecision} decimal place${numberPrecision === 1 ? '' : 's'}`);
  }
}

function checkOptions(definition: Definition, value: unknown, report: Report, path: string): void {
  const values = optionValues(definition);
  const list = (found: unknown): string => `'${label(definition)}' expects one of the following values: [${(values ?? []).map(String).join(', ')}] but we got '${String(found)}'`;
  if (definition.type === 'options') {
    if (values !== undefined && !values.includes(value)) report('not-an-option', list(value));
    return;
  }
  if (!Array.isArray(value)) {
    report('wrong-type', `'${label(definition)}' expects an array of values`);
    return;
  }
  value.forEach((entry, index) => {
    if (values !== undefined && !isExpressionValue(entry) && !values.includes(entry)) report('not-an-option', list(entry), joinPointer(path, index));
  });
}

function label(definition: Definition): string {
  return String(definition.displayName ?? definition.name ?? 'value');
}

const SHAPES: Record<string, (value: unknown) => boolean> = {
  string: (v) => typeof v === 'string',
  boolean: (v) => typeof v === 'boolean',
  color: (v) => typeof v === 'string',
  dateTime: (v) => typeof v === 'string' && (v === '' || !Number.isNaN(Date.parse(v))),
  collection: isObject,
  fixedCollection: isObject,
  filter: isObject,
  assignmentCollection: isObject,
  resourceMapper: (v) => isObject(v) && (v.mappingMode === 'defineBelow' || v.mappingMode === 'autoMapInputData'),
  json: (v) => {
    if (typeof v !== 'string') return typeof v === 'object';
    try { JSON.parse(v); return true; } catch { return false; }
  },
};

function checkShape(definition: Definition, value: unknown, report: Report): boolean {
  const type = String(definition.type);
  const multiple = typeOptionsOf(definition).multipleValues === true && type === 'string';
  const test = SHAPES[type];
  if (test === undefined || test(value) || (multiple && Array.isArray(value))) return true;
  const wanted: Record<string, string> = { json: 'valid JSON', dateTime: 'a date and time (ISO 8601)', resourceMapper: '{ mappingMode, value }' };
  report('wrong-type', `'${label(definition)}' expects ${wanted[type] ?? `a${/^[aeiou]/.test(type) ? 'n' : ''} ${type}`} but we got ${JSON.stringify(value) ?? 'undefined'}`);
  return false;
}

function checkChildren(definition: Definition, value: Record<string, unknown>, path: string, context: Required<Pick<ValueContext, 'root'>> & ValueContext, issues: ParameterIssue[]): void {
  if (definition.type === 'collection' && Array.isArray(definition.options)) {
    for (const child of definition.options.filter(isObject)) {
      if (typeof child.name !== 'string' || !Object.hasOwn(value, child.name)) continue;
      issues.push(...validateParameterValue(child, value[child.name], { ...context, path: joinPointer(path, child.name) }));
    }
    return;
  }
  if (definition.type !== 'fixedCollection' || !Array.isArray(definition.options)) return;
  for (const group of definition.options.filter(isObject)) {
    if (typeof group.name !== 'string' || !Object.hasOwn(value, group.name) || !Array.isArray(group.values)) continue;
    const entries = value[group.name];
    const list = Array.isArray(entries) ? entries : [entries];
    list.forEach((entry, index) => {
      const at = Array.isArray(entries) ? joinPointer(path, group.name as string, index) : joinPointer(path, group.name as string);
      if (!isObject(entry)) {
        issues.push({ path: at, parameter: String(group.displayName ?? group.name), code: 'wrong-type', message: `'${String(group.displayName ?? group.name)}' expects an object` });
        return;
      }
      issues.push(...validateParameters(group.values as Definition[], entry, { ...context, path: at }));
    });
  }
}

/** Issues of one parameter's value (its display is the caller's business; see validateParameters). */
export function validateParameterValue(definition: unknown, value: unknown, context: ValueContext = {}): ParameterIssue[] {
  if (!isObject(definition)) return [];
  const path = context.path ?? joinPointer('', String(definition.name ?? ''));
  const issues: ParameterIssue[] = [];
  const report: Report = (code, message, at = path) => issues.push({ path: at, parameter: label(definition), code, message });
  if (isEmpty(definition.type, value)) {
    if (definition.required === true) report('required', `Parameter "${label(definition)}" is required.`);
    return issues;
  }
  if (isExpressionValue(value)) return issues;
  switch (definition.type) {
    case 'number': checkNumber(definition, value, report); break;
    case 'options':
    case 'multiOptions': checkOptions(definition, value, report, path); break;
    case 'resourceLocator': for (const issue of checkLocatorValue(definition, value)) report(issue.code, issue.message); break;
    default:
      if (checkShape(definition, value, report) && isObject(value)) {
        checkChildren(definition, value, path, { ...context, root: context.root ?? {} }, issues);
      }
  }
  if (typeof definition.validateType === 'string') {
    const converted = convertFieldValue(label(definition), value, definition.validateType as FieldType, definition.options as OptionEntry[] | undefined);
    if (!converted.ok) report('wrong-type', converted.message);
  }
  return issues;
}

/** Issues of a set of parameters: only the ones shown for the values entered are required or validated. */
export function validateParameters(definitions: unknown, values: unknown, context: ValueContext = {}): ParameterIssue[] {
  if (!Array.isArray(definitions)) return [];
  const siblings = isObject(values) ? values : {};
  const root = context.root ?? siblings;
  const base = context.path ?? '';
  const issues: ParameterIssue[] = [];
  for (const definition of definitions) {
    if (!isObject(definition) || typeof definition.name !== 'string') continue;
    if (!isShown(definition, { siblings, root, version: context.version })) continue;
    const value = Object.hasOwn(siblings, definition.name) ? siblings[definition.name] : undefined;
    issues.push(...validateParameterValue(definition, value, { ...context, root, path: joinPointer(base, definition.name) }));
  }
  return issues;
}
