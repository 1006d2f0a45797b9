/** The element type: one of the 15 every host renders (PROPERTY_TYPES); a platform-only type is a warning, anything else an error. */
import { PLATFORM_ONLY_TYPES, PROPERTY_TYPES } from '../types.js';
import type { PropertyRule } from './context.js';

const SPEC = new Set<string>(PROPERTY_TYPES);
const PLATFORM = new Set<string>(PLATFORM_ONLY_TYPES);

export const checkElementType: PropertyRule = (definition, at, { findings }) => {
  const { type } = definition;
  if (typeof type !== 'string' || SPEC.has(type)) return;
  if (PLATFORM.has(type)) {
    findings.report('platform-only-type', at, `type '${type}' is not one of the 15 element types: the platform has it, but other hosts may not render it`, ['type']);
    return;
  }
  findings.report('unknown-type', at, `type '${type}' is not an element type; use one of ${PROPERTY_TYPES.join(', ')}`, ['type']);
};
