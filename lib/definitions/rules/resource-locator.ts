/**
 * Resource locator modes: each named and labelled, of type string or list, unique by name; a list mode
 * names its search method (and that method exists when the node's methods are known); validation regexes compile;
 * extractValue compiles with exactly one capture group (the platform throws at run time otherwise); a mode's `url`
 * is an expression, so that the entered value can be put into the link.
 */
import { captureGroups, compileRegex } from './regex.js';
import { isObject, type PropertyRule, type RuleContext } from './context.js';
import type { Findings, Location } from '../findings.js';

/**
 * A mode's url is an expression (`=…`); `''` means no link. The editor first puts the value in for the literal text
 * `{{$value}}`, then resolves the url as an expression: a plain url with only that placeholder still works, any other
 * `{{ }}` in a plain url is shown as written.
 */
function checkModeUrl(mode: Record<string, unknown>, index: number, at: Location, findings: Findings): void {
  const { url } = mode;
  if (typeof url !== 'string' || url === '' || url.startsWith('=')) return;
  const where = ['modes', index, 'url'];
  if (url.replaceAll('{{$value}}', '').includes('{{')) {
    findings.report('mode-url-unresolved', at, `mode '${String(mode.name)}' url does not start with '=', so its {{ }} are not resolved and the link shows them as written; write '=${url}'`, where);
  } else if (url.includes('{{$value}}')) {
    findings.report('mode-url-not-expression', at, `mode '${String(mode.name)}' url is not an expression; it works only because the editor puts the value in for {{$value}}: write '=${url}'`, where);
  } else {
    findings.report('mode-url-not-expression', at, `mode '${String(mode.name)}' url is not an expression: every value opens this one address; write it as an expression with {{$value}}, the entered value`, where);
  }
}

function checkMode(mode: Record<string, unknown>, index: number, at: Location, { findings, methods }: RuleContext): void {
  const where = ['modes', index];
  const search = isObject(mode.typeOptions) ? mode.typeOptions.searchListMethod : undefined;
  if (mode.type === 'list') {
    if (typeof search !== 'string' || search === '') {
      findings.report('list-mode-without-search-method', at, `mode '${String(mode.name)}' is a list but has no typeOptions.searchListMethod to fill it`, [...where, 'typeOptions']);
    } else if (methods?.listSearch !== undefined && !methods.listSearch.has(search)) {
      findings.report('unknown-method', at, `mode '${String(mode.name)}' searches with '${search}', which is not in the node's methods.listSearch`, [...where, 'typeOptions', 'searchListMethod']);
    }
  }
  if (Array.isArray(mode.validation)) {
    mode.validation.forEach((validation, v) => {
      const regex = isObject(validation) && isObject(validation.properties) ? validation.properties.regex : undefined;
      if (typeof regex !== 'string') return;
      const compiled = compileRegex(regex);
      if (typeof compiled === 'string') {
        findings.report('regex-invalid', at, `mode '${String(mode.name)}' validation ${v} regex does not compile: ${compiled}`, [...where, 'validation', v, 'properties', 'regex']);
      }
    });
  }
  checkModeUrl(mode, index, at, findings);
  const given = isObject(mode.extractValue) ? mode.extractValue.regex : undefined;
  const extract = given instanceof RegExp ? given.source : given;
  if (given !== undefined && typeof extract !== 'string') {
    findings.report('wrong-type', at, `mode '${String(mode.name)}' extractValue regex must be a string (or a RegExp)`, [...where, 'extractValue', 'regex']);
  } else if (typeof extract === 'string') {
    const compiled = compileRegex(extract);
    if (typeof compiled === 'string') {
      findings.report('regex-invalid', at, `mode '${String(mode.name)}' extractValue regex does not compile: ${compiled}`, [...where, 'extractValue', 'regex']);
    } else if (captureGroups(compiled) !== 1) {
      findings.report('extract-value-groups', at, `mode '${String(mode.name)}' extractValue regex has ${captureGroups(compiled)} capture groups; it needs exactly one, the ID`, [...where, 'extractValue', 'regex']);
    }
  }
}

export const checkResourceLocator: PropertyRule = (definition, at, context) => {
  if (definition.type !== 'resourceLocator') return;
  const { findings } = context;
  if (!Array.isArray(definition.modes) || definition.modes.length === 0) {
    findings.report('modes-missing', at, 'a resource locator needs modes (list, id, url, …)', ['modes']);
    return;
  }
  const names = new Map<string, number>();
  definition.modes.forEach((mode, index) => {
    if (!isObject(mode)) return;
    if (typeof mode.name === 'string') {
      const first = names.get(mode.name);
      if (first === undefined) names.set(mode.name, index);
      else findings.report('mode-name-duplicate', at, `modes ${first} and ${index} are both named '${mode.name}'`, ['modes', index, 'name']);
    }
    checkMode(mode, index, at, context);
  });
  const chosen = isObject(definition.default) ? definition.default.mode : undefined;
  if (typeof chosen === 'string' && !names.has(chosen)) {
    findings.report('default-mode-unknown', at, `default mode '${chosen}' is not one of the modes ${[...names.keys()].map((n) => `'${n}'`).join(', ')}`, ['default', 'mode']);
  }
};
