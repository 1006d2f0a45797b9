/**
 * What one value can cost a schema, measured when the schema is compiled, so that a schema whose cost has no useful
 * bound is refused at activation rather than found out by a call. Two findings refuse it:
 * - a reference cycle that comes back to the same value without stepping into a child of it (`$ref` to itself
 *   through `anyOf`, a `$dynamicRef` to its own anchor): validation would never end;
 * - recursion with more than one path per level of the data (`anyOf: [{items: {$ref}}, {items: {$ref}}]`): the
 *   subschemas applied to one value double at every level, and a body 40 levels deep costs 2^40 of them.
 * The measure follows one child per level (the worst one), so a tree whose every key has its own schema is linear.
 */
import { descends } from './subschemas.js';
import type { SchemaNode } from './graph.js';

/** Weighted subschema applications one value may cause (its own, at one place of the data); past it, refused. */
export const MAX_APPLICATIONS_PER_VALUE = 20_000;
/** Levels of data the measure follows: the deepest body the payload limits let through by default (limits.bodyDepth). */
export const MEASURED_DEPTH = 64;

/** Nodes in an order where every node comes after all that apply to the same value and lead to it. */
function inPlaceOrder(nodes: readonly SchemaNode[]): number[] | { cycle: number[] } {
  const state = new Uint8Array(nodes.length);
  const order: number[] = [];
  const path: number[] = [];
  for (let start = 0; start < nodes.length; start++) {
    if (state[start] !== 0) continue;
    // Depth-first without recursion: a frame is a node and the index of its next edge.
    const frames: [number, number][] = [[start, 0]];
    state[start] = 1;
    path.push(start);
    while (frames.length > 0) {
      const frame = frames[frames.length - 1] as [number, number];
      const edges = (nodes[frame[0]] as SchemaNode).edges;
      const edge = edges[frame[1]++];
      if (edge === undefined) {
        frames.pop();
        path.pop();
        state[frame[0]] = 2;
        order.push(frame[0]);
      } else if (edge.applies.kind === 'here') {
        if (state[edge.to] === 1) return { cycle: [...path.slice(path.indexOf(edge.to)), edge.to] };
        if (state[edge.to] === 0) {
          state[edge.to] = 1;
          path.push(edge.to);
          frames.push([edge.to, 0]);
        }
      }
    }
  }
  return order.reverse();
}

export type CostFinding = { kind: 'cycle'; path: string[] } | { kind: 'growth'; pointer: string; applications: number; depth: number };

/**
 * Follows the data down MEASURED_DEPTH levels, keeping for every subschema how often it may apply to one value at
 * that level (the worst child each time), and reports the first finding; undefined when the schema is bounded.
 */
export function measureCost(nodes: readonly SchemaNode[]): CostFinding | undefined {
  const order = inPlaceOrder(nodes);
  if (!Array.isArray(order)) return { kind: 'cycle', path: order.cycle.map((node) => (nodes[node] as SchemaNode).pointer) };
  const close = (counts: Float64Array): Float64Array => {
    for (const node of order) {
      const count = counts[node] as number;
      if (count === 0) continue;
      for (const edge of (nodes[node] as SchemaNode).edges) if (edge.applies.kind === 'here') counts[edge.to] = (counts[edge.to] as number) + count;
    }
    return counts;
  };
  let counts = close(Float64Array.from(nodes, (_, index) => (index === 0 ? 1 : 0)));
  for (let depth = 1; depth <= MEASURED_DEPTH; depth++) {
    const next = childCounts(nodes, counts, close);
    let total = 0;
    let worst = 0;
    for (let node = 0; node < nodes.length; node++) {
      total += (next[node] as number) * (nodes[node] as SchemaNode).weight;
      if ((next[node] as number) > (next[worst] as number)) worst = node;
    }
    if (total === 0) return undefined;
    if (total > MAX_APPLICATIONS_PER_VALUE) return { kind: 'growth', pointer: (nodes[worst] as SchemaNode).pointer, applications: total, depth };
    if (next.every((count, node) => count === counts[node])) return undefined;
    counts = next;
  }
  return undefined;
}

/** How often each subschema may apply to one child of a value that `counts` describes: the worst child's counts. */
function childCounts(nodes: readonly SchemaNode[], counts: Float64Array, close: (counts: Float64Array) => Float64Array): Float64Array {
  // What a child no node names gets (rules for other keys, later items, every child), and for each named key or tuple
  // index what changes: its own schemas, less the rule for other keys of the nodes that name it.
  const fresh = { key: new Float64Array(nodes.length), index: new Float64Array(nodes.length) };
  const keyNames = new Float64Array(nodes.length);
  const named = new Map<string, { family: 'key' | 'index'; delta: Float64Array }>();
  const change = (channel: string, family: 'key' | 'index', to: number, count: number): void => {
    let entry = named.get(channel);
    if (entry === undefined) named.set(channel, (entry = { family, delta: new Float64Array(nodes.length) }));
    entry.delta[to] = (entry.delta[to] as number) + count;
  };
  for (let node = 0; node < nodes.length; node++) {
    const count = counts[node] as number;
    if (count === 0) continue;
    const edges = (nodes[node] as SchemaNode).edges.filter((edge) => descends(edge.applies));
    const namesHere = edges.flatMap(({ applies }) => (applies.kind === 'property' ? [`key:${applies.name}`] : []));
    const indexesHere = edges.flatMap(({ applies }) => (applies.kind === 'index' ? [`index:${applies.index}`] : []));
    for (const { to, applies } of edges) {
      if (applies.kind === 'property') change(`key:${applies.name}`, 'key', to, count);
      else if (applies.kind === 'index') change(`index:${applies.index}`, 'index', to, count);
      else if (applies.kind === 'propertyName') keyNames[to] = (keyNames[to] as number) + count;
      else {
        const family = applies.kind === 'otherProperty' || applies.kind === 'patternProperty' || applies.kind === 'everyProperty' ? 'key' : 'index';
        fresh[family][to] = (fresh[family][to] as number) + count;
        if (applies.kind === 'otherProperty') for (const channel of namesHere) change(channel, 'key', to, -count);
        if (applies.kind === 'laterItem') for (const channel of indexesHere) change(channel, 'index', to, -count);
      }
    }
  }
  const worst = new Float64Array(nodes.length);
  const keep = (channelCounts: Float64Array): void => {
    close(channelCounts);
    for (let node = 0; node < nodes.length; node++) if ((channelCounts[node] as number) > (worst[node] as number)) worst[node] = channelCounts[node] as number;
  };
  for (const { family, delta } of named.values()) keep(delta.map((count, node) => count + (fresh[family][node] as number)));
  keep(fresh.key);
  keep(fresh.index);
  keep(keyNames);
  return worst;
}
