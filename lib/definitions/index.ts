/**
 * workflow-webhooks/definitions: types and validators for node property definitions.
 * This release ships the element type catalogue; the validators follow.
 * @module
 */

/** The UI element types of spec 2.2, in the spec's order. */
export const PROPERTY_TYPES = [
  'string',
  'number',
  'collection',
  'dateTime',
  'boolean',
  'color',
  'options',
  'multiOptions',
  'filter',
  'assignmentCollection',
  'fixedCollection',
  'resourceLocator',
  'resourceMapper',
  'json',
  'notice',
] as const;

export type PropertyType = (typeof PROPERTY_TYPES)[number];
