/** fixedCollection groups: named, labelled, holding definitions, with names unique among siblings. */
import { isObject, type PropertyRule } from './context.js';

export const checkFixedCollectionGroups: PropertyRule = (definition, at, { findings }) => {
  if (definition.type !== 'fixedCollection') return;
  if (!Array.isArray(definition.options)) {
    findings.report('groups-missing', at, 'a fixedCollection needs options: a list of groups { name, displayName, values }', ['options']);
    return;
  }
  const seen = new Map<string, number>();
  definition.options.forEach((group, index) => {
    if (!isObject(group) || typeof group.name !== 'string') return;
    const first = seen.get(group.name);
    if (first === undefined) seen.set(group.name, index);
    else findings.report('group-name-duplicate', at, `groups ${first} and ${index} are both named '${group.name}': their values would overwrite each other`, ['options', index, 'name']);
  });
};

export const checkCollectionOptions: PropertyRule = (definition, at, { findings }) => {
  if (definition.type === 'collection' && !Array.isArray(definition.options)) {
    findings.report('options-missing', at, 'a collection needs options: the list of fields the user can add', ['options']);
  }
};
