/** Conventions real nodes follow (warnings): what helps users, but does not break rendering or running. */
import { isObject, type PropertyRule } from './context.js';

export const checkResourceOperationExpression: PropertyRule = (definition, at, { findings }) => {
  if (definition.type !== 'options' || (definition.name !== 'resource' && definition.name !== 'operation')) return;
  if (definition.noDataExpression !== true) {
    findings.warning('no-data-expression-missing', at, `'${String(definition.name)}' should set noDataExpression: true: other fields are shown by its value, which an expression hides until run time`, ['noDataExpression']);
  }
};

export const checkOperationActions: PropertyRule = (definition, at, { findings }) => {
  if (definition.type !== 'options' || definition.name !== 'operation' || !Array.isArray(definition.options)) return;
  definition.options.forEach((entry, index) => {
    if (isObject(entry) && entry.action === undefined) {
      findings.warning('operation-action-missing', at, `operation option ${index} ('${String(entry.name)}') has no action: the actions panel lists operations by it`, ['options', index]);
    }
  });
};

export const checkRequiredFalse: PropertyRule = (definition, at, { findings }) => {
  if (definition.required === false) {
    findings.warning('required-false', at, 'required: false is the default; leave it out', ['required']);
  }
};
