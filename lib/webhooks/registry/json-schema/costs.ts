/**
 * Marks a schema's compiled copy with what applying each subschema costs (the hidden keyword of keywords.ts), so that
 * the check charges the call's budget as it goes. Only some subschemas charge: what applies at most once for each time
 * one of them applies is counted into its cost, so the check makes few calls for a bound as tight.
 */
import type { SchemaNode } from './graph.js';
import { COST_KEYWORD, type Cost } from './keywords.js';
import { subschemasOf, type Draft } from './subschemas.js';

/** Keywords that read a string's whole length each time they apply (patterns are charged on their own). */
const LENGTH_KEYWORDS = ['minLength', 'maxLength', 'format'];

/** Subschemas applied to any number of children (items, additionalProperties…): each application is charged. */
const CHARGED_EACH_TIME = new Set(['otherProperty', 'patternProperty', 'everyProperty', 'laterItem', 'everyItem', 'propertyName']);

/**
 * Marks the subschemas of `nodes` (a copy of our own) that charge the budget when they apply, with what that costs:
 * the root, each one applied to any number of children, each one a reference leads to, each one that reads a
 * string's length. What applies at most once per application of one of these (`allOf` branches, one `properties`
 * entry) is added to its cost instead of charging on its own: fewer calls in the compiled check, the same bound.
 */
export function markCosts(nodes: readonly SchemaNode[]): void {
  const lengthReads = (node: SchemaNode): number => {
    const schema = node.schema;
    return typeof schema === 'object' && schema !== null ? LENGTH_KEYWORDS.filter((keyword) => keyword in schema).length : 0;
  };
  const charged = new Set<number>([0]);
  for (const [index, node] of nodes.entries()) {
    if (lengthReads(node) > 0) charged.add(index);
    for (const edge of node.edges) if (edge.reference === true || CHARGED_EACH_TIME.has(edge.applies.kind)) charged.add(edge.to);
  }
  for (const index of charged) {
    const node = nodes[index] as SchemaNode;
    if (typeof node.schema !== 'object' || node.schema === null) continue;
    let units = 0;
    const pending = [index];
    const seen = new Set<number>();
    while (pending.length > 0) {
      const next = pending.pop() as number;
      if (seen.has(next)) continue;
      seen.add(next);
      units += (nodes[next] as SchemaNode).weight;
      for (const edge of (nodes[next] as SchemaNode).edges) {
        if (edge.applies.kind !== 'stored' && edge.reference !== true && !charged.has(edge.to)) pending.push(edge.to);
      }
    }
    const cost: Cost = [units, lengthReads(node)];
    (node.schema as Record<string, unknown>)[COST_KEYWORD] = cost;
  }
}

/** Drops a schema's own keyword named like the cost keyword: it must not set its own cost. */
export function withoutOwnCosts(schema: unknown, draft: Draft): void {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return;
  delete (schema as Record<string, unknown>)[COST_KEYWORD];
  for (const child of subschemasOf(schema, draft)) withoutOwnCosts(child.schema, draft);
}
