/**
 * Which control renders which element type: the 15 element types every host renders, and a note for the platform's other types.
 */
import { booleanControl, colorControl, dateTimeControl, jsonControl, noticeControl, numberControl, stringControl, unknownControl } from './controls-basic.js';
import { collectionControl, fixedCollectionControl } from './controls-collections.js';
import { assignmentCollectionControl, filterControl } from './controls-conditions.js';
import { resourceLocatorControl } from './controls-locator.js';
import { resourceMapperControl } from './controls-mapper.js';
import { multiOptionsControl, optionsControl } from './controls-options.js';
import type { ControlFactory, Definition } from './types.js';

const CONTROLS: Record<string, ControlFactory> = {
  string: stringControl,
  number: numberControl,
  collection: collectionControl,
  dateTime: dateTimeControl,
  boolean: booleanControl,
  color: colorControl,
  options: optionsControl,
  multiOptions: multiOptionsControl,
  filter: filterControl,
  assignmentCollection: assignmentCollectionControl,
  fixedCollection: fixedCollectionControl,
  resourceLocator: resourceLocatorControl,
  resourceMapper: resourceMapperControl,
  json: jsonControl,
  notice: noticeControl,
};

export function controlFor(definition: Definition): ControlFactory {
  const type = typeof definition.type === 'string' ? definition.type : '';
  return Object.hasOwn(CONTROLS, type) ? CONTROLS[type]! : unknownControl;
}
