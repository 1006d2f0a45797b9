/**
 * validateProperties() and validateNodeDescription(): the schema first (structure, all errors at once), then the
 * named rules on every definition, nested ones included. They never throw, whatever the input.
 */
import { Findings, joinPointer, locationOf, type ValidationResult } from './findings.js';
import { checkCollectionOptions, checkFixedCollectionGroups } from './rules/collections.js';
import { isObject, type MethodNames, type PropertyRule, type RuleContext } from './rules/context.js';
import { checkOperationActions, checkRequiredFalse, checkResourceOperationExpression } from './rules/conventions.js';
import { checkDefault, checkNumberDefaultRange, checkOptionsDefault } from './rules/defaults.js';
import { checkDisplayOptions } from './rules/display-options.js';
import { versionsOf } from './rules/display-sets.js';
import { checkElementType } from './rules/element-type.js';
import { checkOptionsSource, checkOptionValuesUnique } from './rules/options.js';
import { checkDisplayValues } from './rules/reachability.js';
import { checkResourceLocator } from './rules/resource-locator.js';
import { checkResourceMapper } from './rules/resource-mapper.js';
import { checkSiblingNames } from './rules/siblings.js';
import { checkEditor, checkFilterOptions, checkHtmlEditor, checkNumberRange, checkPassword, checkUnknownTypeOptions } from './rules/type-options.js';
import { checkStructure } from './structure.js';
import type { NodeMethods } from './types.js';

export interface ValidationOptions {
  /** The node's methods (names, or the methods object of a JS description): method names are then checked. */
  methods?: NodeMethods;
  /**
   * The node version(s) to judge `@version` conditions by. Defaults to the description's `version`, else its
   * `defaultVersion`; when none is known, every version is possible.
   */
  version?: number | readonly number[];
  /** Turns every warning into an error. */
  strict?: boolean;
}

const RULES: PropertyRule[] = [
  checkElementType, checkDefault, checkOptionsDefault, checkNumberDefaultRange, checkOptionsSource, checkOptionValuesUnique,
  checkUnknownTypeOptions, checkNumberRange, checkPassword, checkEditor, checkHtmlEditor, checkFilterOptions, checkCollectionOptions,
  checkFixedCollectionGroups, checkResourceLocator, checkResourceMapper, checkDisplayOptions, checkDisplayValues,
  checkResourceOperationExpression, checkOperationActions, checkRequiredFalse,
];

/** Deeper than any real node nests; also stops cyclic JS descriptions. */
const MAX_DEPTH = 32;

function namesOf(value: unknown): ReadonlySet<string> | undefined {
  if (Array.isArray(value)) return new Set(value.filter((name): name is string => typeof name === 'string'));
  if (isObject(value)) return new Set(Object.keys(value));
  return undefined;
}

export function methodNames(methods: unknown): MethodNames | undefined {
  if (!isObject(methods)) return undefined;
  return {
    loadOptions: namesOf(methods.loadOptions),
    listSearch: namesOf(methods.listSearch),
    resourceMapping: namesOf(methods.resourceMapping),
    localResourceMapping: namesOf(methods.localResourceMapping),
  };
}

function walkDefinition(definition: unknown, pointer: string, context: RuleContext, depth: number): void {
  if (!isObject(definition)) return;
  const at = locationOf(pointer, definition);
  for (const rule of RULES) rule(definition, at, context);
  if (depth >= MAX_DEPTH) {
    context.findings.report('too-deep', at, `nests more than ${MAX_DEPTH} levels (is the description cyclic?)`);
    return;
  }
  const { options } = definition;
  if (!Array.isArray(options)) return;
  if (definition.type === 'collection') walkList(options, joinPointer(pointer, 'options'), context, depth + 1);
  if (definition.type === 'fixedCollection') {
    options.forEach((group, index) => {
      if (isObject(group) && Array.isArray(group.values)) walkList(group.values, joinPointer(pointer, 'options', index, 'values'), context, depth + 1);
    });
  }
  if (definition.type === 'options' || definition.type === 'multiOptions') {
    options.forEach((entry, index) => {
      if (isObject(entry)) checkDisplayOptions(entry, locationOf(joinPointer(pointer, 'options', index), entry), context);
    });
  }
}

function walkList(list: readonly unknown[], pointer: string, context: RuleContext, depth: number): void {
  checkSiblingNames(list, pointer, context);
  list.forEach((definition, index) => walkDefinition(definition, joinPointer(pointer, index), context, depth));
}

function guarded(findings: Findings, work: () => void): ValidationResult {
  try {
    work();
  } catch (error) {
    // Only a hostile input (a cyclic or exotic JS object) gets here; it is reported, never thrown.
    findings.add('unreadable', '', `the input could not be checked: ${error instanceof Error ? error.message : String(error)}`);
  }
  return findings.result();
}

/** Checks a list of property definitions (paths start at `/properties`). */
export function validateProperties(definitions: unknown, options: ValidationOptions = {}): ValidationResult {
  const findings = new Findings(options.strict === true);
  return guarded(findings, () => {
    if (!Array.isArray(definitions)) {
      findings.add('wrong-type', '/properties', 'properties must be an array of property definitions');
      return;
    }
    checkStructure(definitions, 'properties', '/properties', findings);
    const context = { findings, methods: methodNames(options.methods), versions: versionsOf({}, options.version), root: definitions };
    walkList(definitions, '/properties', context, 0);
  });
}

/** Checks a whole node description: its properties, hints and method names, `@version` judged by its versions. */
export function validateNodeDescription(description: unknown, options: Omit<ValidationOptions, 'methods'> = {}): ValidationResult {
  const findings = new Findings(options.strict === true);
  return guarded(findings, () => {
    if (!isObject(description)) {
      findings.add('wrong-type', '', 'a node description must be an object with properties');
      return;
    }
    checkStructure(description, 'description', '', findings);
    if (Array.isArray(description.properties)) {
      const context = { findings, methods: methodNames(description.methods), versions: versionsOf(description, options.version), root: description.properties };
      walkList(description.properties, '/properties', context, 0);
    }
  });
}
