/**
 * Sibling definitions may share a name only when they are never shown together: the known platform uses this
 * for per-resource, per-operation and per-version variants. Two that are certainly shown at once (one's display
 * conditions lie inside the other's) are an error, since the editor shows two fields writing one value; two that
 * only may be (their conditions meet on keys that may depend on each other) are a warning. Types that hold no
 * value (a notice, a button) never clash.
 */
import { joinPointer, locationOf } from '../findings.js';
import { isObject, type RuleContext } from './context.js';
import { shownTogether, type Together } from './display-sets.js';

const VALUELESS_TYPES = new Set(['notice', 'callout', 'button', 'curlImport']);

/** Checks one list of siblings (top-level properties, a collection's options, a group's values). */
export function checkSiblingNames(siblings: readonly unknown[], pointer: string, context: RuleContext): void {
  const byName = new Map<string, number[]>();
  siblings.forEach((definition, index) => {
    if (!isObject(definition) || typeof definition.name !== 'string' || VALUELESS_TYPES.has(definition.type as string)) return;
    const indexes = byName.get(definition.name);
    if (indexes === undefined) byName.set(definition.name, [index]);
    else indexes.push(index);
  });
  const scope = { versions: context.versions, topLevel: pointer === '/properties' };
  for (const indexes of byName.values()) {
    if (indexes.length === 1) continue;
    for (let j = 1; j < indexes.length; j += 1) {
      const second = siblings[indexes[j] as number] as Record<string, unknown>;
      let worst: { relation: Together; index: number } | undefined;
      for (let i = 0; i < j && worst?.relation !== 'certain'; i += 1) {
        const relation = shownTogether(siblings[indexes[i] as number] as Record<string, unknown>, second, scope);
        if (relation !== 'never' && worst === undefined) worst = { relation, index: indexes[i] as number };
        else if (relation === 'certain') worst = { relation, index: indexes[i] as number };
      }
      if (worst === undefined) continue;
      const at = locationOf(joinPointer(pointer, indexes[j] as number), second);
      const other = `${pointer.replace(/^\//, '')}/${worst.index}`;
      if (worst.relation === 'certain') {
        context.findings.report('duplicate-name', at, `has the same name as ${other}, and whenever one of them is shown the other is too: the editor shows two fields that write one value; rename one or make their displayOptions exclusive`, ['name']);
      } else {
        context.findings.report('duplicate-name-possible', at, `has the same name as ${other}, and their displayOptions do not keep them apart (unless the keys they test depend on each other); make them exclusive if both could be shown`, ['name']);
      }
    }
  }
}
