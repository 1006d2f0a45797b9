/**
 * Sibling definitions may share a name only when they are never shown together (the known platform uses this for
 * per-resource, per-operation and per-version variants). Reported only when both can certainly be shown at once,
 * for some values of every key they test (all keys, `@version` included), so working real nodes stay silent.
 */
import { joinPointer, locationOf, type Findings } from '../findings.js';
import { isObject } from './context.js';
import { listMatches } from './display-options.js';

type Rules = Record<string, unknown[]>;

function rulesOf(definition: Record<string, unknown>, kind: 'show' | 'hide'): Rules {
  const options = definition.displayOptions;
  const rules = isObject(options) ? options[kind] : undefined;
  if (!isObject(rules)) return {};
  return Object.fromEntries(Object.entries(rules).filter(([, values]) => Array.isArray(values))) as Rules;
}

/** Candidate values of one key: every plain value and condition operand either side mentions. */
function candidates(...lists: (unknown[] | undefined)[]): unknown[] {
  const values: unknown[] = [];
  for (const list of lists) {
    for (const entry of list ?? []) {
      if (isObject(entry) && isObject(entry._cnd)) {
        const operand = Object.values(entry._cnd)[0];
        if (isObject(operand)) values.push(operand.from, operand.to);
        else values.push(operand);
      } else {
        values.push(entry);
      }
    }
  }
  return values;
}

/** True when one value of `key` surely shows both definitions. */
function keyCanHold(key: string, a: { show: Rules; hide: Rules }, b: { show: Rules; hide: Rules }): boolean {
  const shows = [a.show[key], b.show[key]].filter((list): list is unknown[] => list !== undefined);
  const hides = [a.hide[key], b.hide[key]].filter((list): list is unknown[] => list !== undefined);
  return candidates(...shows).some((value) =>
    shows.every((list) => listMatches(list, value) === true) && hides.every((list) => listMatches(list, value) === false));
}

export function canBothShow(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const sideA = { show: rulesOf(a, 'show'), hide: rulesOf(a, 'hide') };
  const sideB = { show: rulesOf(b, 'show'), hide: rulesOf(b, 'hide') };
  const shownKeys = new Set([...Object.keys(sideA.show), ...Object.keys(sideB.show)]);
  return [...shownKeys].every((key) => keyCanHold(key, sideA, sideB));
}

/** Checks one list of siblings (top-level properties, a collection's options, a group's values). */
export function checkSiblingNames(siblings: readonly unknown[], pointer: string, findings: Findings): void {
  const byName = new Map<string, number[]>();
  siblings.forEach((definition, index) => {
    if (!isObject(definition) || typeof definition.name !== 'string') return;
    byName.set(definition.name, [...(byName.get(definition.name) ?? []), index]);
  });
  for (const indexes of byName.values()) {
    for (let i = 0; i < indexes.length; i += 1) {
      for (let j = i + 1; j < indexes.length; j += 1) {
        const first = siblings[indexes[i] as number] as Record<string, unknown>;
        const second = siblings[indexes[j] as number] as Record<string, unknown>;
        if (!canBothShow(first, second)) continue;
        const at = locationOf(joinPointer(pointer, indexes[j] as number), second);
        findings.error('duplicate-name', at, `has the same name as ${pointer.replace(/^\//, '')}/${indexes[i]}, and both can be shown at once; give one another name or make their displayOptions exclusive`, ['name']);
        break;
      }
    }
  }
}
