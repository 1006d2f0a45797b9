/**
 * workflow-webhooks/definitions: types and validators for node property definitions (spec 2).
 * @module
 */
export * from './types.js';
export type { Finding, Severity, ValidationResult } from './findings.js';
export { validateNodeDescription, validateProperties, type ValidationOptions } from './validate.js';
export { NODE_DESCRIPTION_SCHEMA } from './schema.js';
export { applyHintDefaults, type ResolvedNodeHint } from './hints.js';
export { WEBHOOK_NODE_DESCRIPTION } from './webhook-node-description.js';
