/**
 * workflow-webhooks/definitions: types and validators for node property definitions (the fields a node shows in an editor), and the checks of
 * parameter values entered against them.
 * @module workflow-webhooks/definitions
 */
export * from './types.js';
export { FINDING_CATALOGUE, FINDING_CODES, type Finding, type FindingCode, type Severity, type ValidationResult } from './findings.js';
export { validateNodeDescription, validateProperties, type ValidationOptions } from './validate.js';
export { NODE_DESCRIPTION_SCHEMA } from './schema.js';
export { applyHintDefaults, executionOutput, resolveHints, type ExecutionHint, type HintStage, type ResolvedNodeHint } from './hints.js';
export { WEBHOOK_NODE_DESCRIPTION } from './webhook-node-description.js';
export { validateParameterValue, validateParameters, type ParameterIssue, type ValueContext } from './values/validate-value.js';
export { isShown, type DisplayContext } from './values/display.js';
export { checkLocatorValue, extractLocatorValue, resolveLocatorUrl } from './values/resource-locator.js';
export { convertFieldValue, type Converted } from './values/field-types.js';
export {
  applyResourceMapping,
  checkResourceMapperFields,
  resolveMatchingColumns,
  type FieldsOutcome,
  type MappedItems,
  type MapperIssue,
  type MappingValue,
} from './resource-mapper.js';
export { FILTER_OPTION_DEFAULTS, FILTER_OPTION_EXPRESSIONS, resolveFilterOptions, resolveFilterTypeOptions, type FilterRuntimeOptions } from './filter.js';
export { evaluate, ExpressionError, isExpressionValue, resolveExpression, type Variables } from './expression.js';
