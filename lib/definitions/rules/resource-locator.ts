/**
 * Resource locator modes: each named and labelled, of type string or list, unique by name; a list mode
 * names its search method (and that method exists when the node's methods are known); validation regexes compile;
 * extractValue compiles with exactly one capture group (the platform throws at run time otherwise).
 */
import { captureGroups, compileRegex } from './regex.js';
import { isObject, type PropertyRule, type RuleContext } from './context.js';
import type { Location } from '../findings.js';

function checkMode(mode: Record<string, unknown>, index: number, at: Location, { findings, methods }: RuleContext): void {
  const where = ['modes', index];
  const search = isObject(mode.typeOptions) ? mode.typeOptions.searchListMethod : undefined;
  if (mode.type === 'list') {
    if (typeof search !== 'string' || search === '') {
      findings.error('list-mode-without-search-method', at, `mode '${String(mode.name)}' is a list but has no typeOptions.searchListMethod to fill it`, [...where, 'typeOptions']);
    } else if (methods?.listSearch !== undefined && !methods.listSearch.has(search)) {
      findings.error('unknown-method', at, `mode '${String(mode.name)}' searches with '${search}', which is not in the node's methods.listSearch`, [...where, 'typeOptions', 'searchListMethod']);
    }
  }
  if (Array.isArray(mode.validation)) {
    mode.validation.forEach((validation, v) => {
      const regex = isObject(validation) && isObject(validation.properties) ? validation.properties.regex : undefined;
      if (typeof regex !== 'string') return;
      const compiled = compileRegex(regex);
      if (typeof compiled === 'string') {
        findings.error('regex-invalid', at, `mode '${String(mode.name)}' validation ${v} regex does not compile: ${compiled}`, [...where, 'validation', v, 'properties', 'regex']);
      }
    });
  }
  const given = isObject(mode.extractValue) ? mode.extractValue.regex : undefined;
  const extract = given instanceof RegExp ? given.source : given;
  if (given !== undefined && typeof extract !== 'string') {
    findings.error('wrong-type', at, `mode '${String(mode.name)}' extractValue regex must be a string (or a RegExp)`, [...where, 'extractValue', 'regex']);
  } else if (typeof extract === 'string') {
    const compiled = compileRegex(extract);
    if (typeof compiled === 'string') {
      findings.error('regex-invalid', at, `mode '${String(mode.name)}' extractValue regex does not compile: ${compiled}`, [...where, 'extractValue', 'regex']);
    } else if (captureGroups(compiled) !== 1) {
      findings.error('extract-value-groups', at, `mode '${String(mode.name)}' extractValue regex has ${captureGroups(compiled)} capture groups; it needs exactly one, the ID`, [...where, 'extractValue', 'regex']);
    }
  }
}

export const checkResourceLocator: PropertyRule = (definition, at, context) => {
  if (definition.type !== 'resourceLocator') return;
  const { findings } = context;
  if (!Array.isArray(definition.modes) || definition.modes.length === 0) {
    findings.error('modes-missing', at, 'a resource locator needs modes (list, id, url, …)', ['modes']);
    return;
  }
  const names = new Map<string, number>();
  definition.modes.forEach((mode, index) => {
    if (!isObject(mode)) return;
    if (typeof mode.name === 'string') {
      const first = names.get(mode.name);
      if (first === undefined) names.set(mode.name, index);
      else findings.error('mode-name-duplicate', at, `modes ${first} and ${index} are both named '${mode.name}'`, ['modes', index, 'name']);
    }
    checkMode(mode, index, at, context);
  });
  const chosen = isObject(definition.default) ? definition.default.mode : undefined;
  if (typeof chosen === 'string' && !names.has(chosen)) {
    findings.error('default-mode-unknown', at, `default mode '${chosen}' is not one of the modes ${[...names.keys()].map((n) => `'${n}'`).join(', ')}`, ['default', 'mode']);
  }
};
