/**
 * Conventions real nodes follow (warnings): what helps users, but does not break rendering or running. The resource
 * and operation checks concern the node's own top-level parameters, not a field of that name inside a collection
 * (the operation of a condition row, say).
 */
import { isObject, isTopLevel, type PropertyRule } from './context.js';

export const checkResourceOperationExpression: PropertyRule = (definition, at, { findings }) => {
  if (definition.type !== 'options' || (definition.name !== 'resource' && definition.name !== 'operation') || !isTopLevel(at.pointer)) return;
  if (definition.noDataExpression !== true) {
    findings.report('no-data-expression-missing', at, `'${String(definition.name)}' should set noDataExpression: true: other fields are shown by its value, which an expression hides until run time`, ['noDataExpression']);
  }
};

export const checkOperationActions: PropertyRule = (definition, at, { findings }) => {
  if (definition.type !== 'options' || definition.name !== 'operation' || !Array.isArray(definition.options) || !isTopLevel(at.pointer)) return;
  definition.options.forEach((entry, index) => {
    if (isObject(entry) && entry.action === undefined) {
      findings.report('operation-action-missing', at, `operation option ${index} ('${String(entry.name)}') has no action: the actions panel lists operations by it`, ['options', index]);
    }
  });
};

export const checkRequiredFalse: PropertyRule = (definition, at, { findings }) => {
  if (definition.required === false) {
    findings.report('required-false', at, 'required: false is the default; leave it out', ['required']);
  }
};
