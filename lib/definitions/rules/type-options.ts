/**
 * typeOptions beyond their structure: number ranges that cannot hold, password fields (required at the top level,
 * with default ''), the HTML editor's noDataExpression, a filter's typeValidation, and unknown keys with a "did you
 * mean".
 */
import { describeValue } from '../findings.js';
import { suggestion } from '../suggestion.js';
import { resolveExpression } from '../expression.js';
import { isObject, isTopLevel, typeOptionsOf, type PropertyRule } from './context.js';

/** Every typeOptions key the platform declares (its interface also allows any other, hence warnings only). */
export const KNOWN_TYPE_OPTIONS = [
  'loadOptionsMethod', 'loadOptionsDependsOn', 'loadOptions', 'minValue', 'maxValue', 'numberPrecision', 'multipleValues',
  'multipleValueButtonText', 'sortable', 'fixedCollection', 'minRequiredFields', 'maxAllowedFields', 'password', 'rows',
  'editor', 'editorLanguage', 'editorIsReadOnly', 'sqlDialect', 'codeAutocomplete', 'alwaysOpenEditWindow', 'dateOnly',
  'showAlpha', 'copyButton', 'expirable', 'containerClass', 'sectionHeader', 'buttonConfig', 'calloutAction',
  'resourceMapper', 'filter', 'assignment', 'hideOptionalFields', 'addOptionalFieldButtonText', 'showEvenWhenOptional',
  'binaryDataProperty', 'redactJsonLeaves', 'resolveCredentialJsonLeaves', 'ignoreCredentialExpressionResolveError',
  'searchListMethod', 'searchable', 'searchFilterRequired',
] as const;
const KNOWN = new Set<string>(KNOWN_TYPE_OPTIONS);

export const checkUnknownTypeOptions: PropertyRule = (definition, at, { findings }) => {
  for (const key of Object.keys(typeOptionsOf(definition))) {
    if (KNOWN.has(key)) continue;
    const guess = suggestion(key, KNOWN);
    findings.report('unknown-type-option', at, `typeOptions.${key} is not a known type option${guess === undefined ? '' : `; did you mean ${guess}?`}`, ['typeOptions', key]);
  }
};

export const checkNumberRange: PropertyRule = (definition, at, { findings }) => {
  const { minValue, maxValue } = typeOptionsOf(definition);
  if (typeof minValue === 'number' && typeof maxValue === 'number' && minValue > maxValue) {
    findings.report('min-above-max', at, `typeOptions.minValue ${minValue} is above maxValue ${maxValue}: no number can be entered`, ['typeOptions', 'minValue']);
  }
};

export const checkPassword: PropertyRule = (definition, at, { findings }) => {
  if (definition.type !== 'string' || typeOptionsOf(definition).password !== true) return;
  if (definition.default !== '') {
    findings.report('password-default', at, `a password field's default must be '' (got ${describeValue(definition.default)}): a default would be a shared secret`, ['default']);
  }
  // Inside a collection or a group a field is optional by nature: only a top-level password should be required.
  if (definition.required !== true && isTopLevel(at.pointer)) {
    findings.report('password-not-required', at, 'a password field should be required: true, so that the node never runs with the secret left empty', ['required']);
  }
};

const EDITORS = new Set(['htmlEditor', 'codeNodeEditor', 'jsEditor', 'sqlEditor', 'cssEditor']);

export const checkEditor: PropertyRule = (definition, at, { findings }) => {
  const { editor } = typeOptionsOf(definition);
  if (typeof editor === 'string' && !EDITORS.has(editor)) {
    const guess = suggestion(editor, EDITORS);
    findings.report('unknown-editor', at, `typeOptions.editor '${editor}' is not a known editor${guess === undefined ? '' : `; did you mean ${guess}?`} (the field renders as a plain input)`, ['typeOptions', 'editor']);
  }
};

export const checkHtmlEditor: PropertyRule = (definition, at, { findings }) => {
  if (typeOptionsOf(definition).editor !== 'htmlEditor' || definition.noDataExpression === true) return;
  findings.report('html-editor-expression', at, 'an HTML editor field should set noDataExpression: true: a whole-field expression would replace the HTML; expressions go inside it as {{ }}', ['noDataExpression']);
};

/** typeValidation: 'strict', 'loose', or an expression; a constant one is resolved with the library's evaluator. */
export const checkFilterOptions: PropertyRule = (definition, at, { findings }) => {
  const filter = typeOptionsOf(definition).filter;
  if (!isObject(filter) || typeof filter.typeValidation !== 'string') return;
  const given = filter.typeValidation;
  let resolved: unknown = given;
  if (given.startsWith('=')) {
    try {
      resolved = resolveExpression(given, {});
    } catch {
      // It reads the parameters or the node version: its value is known only when the node runs.
      return;
    }
  }
  if (resolved !== 'strict' && resolved !== 'loose') {
    const shown = given.startsWith('=') ? `'${given}' resolves to ${describeValue(resolved)}` : `'${given}' is`;
    findings.report('filter-type-validation', at, `typeOptions.filter.typeValidation ${shown}, neither 'strict' nor 'loose': conditions would be compared with an unknown type check`, ['typeOptions', 'filter', 'typeValidation']);
  }
};
