/**
 * The graph of a schema's subschemas and references, built when the schema is compiled to find where `$ref` and
 * `$dynamicRef` resolve: the measure of what the schema can make one value cost (measure.ts) walks it. A subschema
 * is a node; an edge says whether its target applies to the same value or to a child of it. References resolve as
 * JSON Schema says (`$id` bases, JSON pointers, `$anchor`, `$dynamicAnchor`), inside the schema only; one that does
 * not resolve has no edge here, and ajv refuses it when it compiles the schema.
 */
import { subschemasOf, type Applies, type Draft } from './subschemas.js';

export interface SchemaNode {
  /** JSON pointer from the root, as `#/$defs/a`: how a refusal names the place. */
  pointer: string;
  /** The subschema itself (an object, or `true`/`false`). */
  schema: unknown;
  /** Keywords it holds: more keywords, more work each time it applies. */
  weight: number;
  /** `reference` for a `$ref` or `$dynamicRef`: a call of its own in the compiled check. */
  edges: { to: number; applies: Applies; reference?: true }[];
}

/** Where references resolve against, for a schema whose root has no `$id`. */
const DEFAULT_BASE = 'https://schema.invalid/payload';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function withoutHash(uri: string): string {
  const hash = uri.indexOf('#');
  return hash < 0 ? uri : uri.slice(0, hash);
}

function resolveUri(reference: string, base: string): string | undefined {
  try {
    return new URL(reference, base).href;
  } catch {
    return undefined;
  }
}

interface Pending {
  node: number;
  schema: Record<string, unknown>;
  base: string;
}

/** Every subschema of `root` as a node (the root is node 0), with its applications and resolved references. */
export function schemaGraph(root: unknown, draft: Draft): SchemaNode[] {
  const nodes: SchemaNode[] = [];
  const byPointer = new Map<string, number>();
  /** Each resource (`$id`, and the root) by its URI, with the pointer where it starts. */
  const resources = new Map<string, string>();
  const anchors = new Map<string, number>();
  const dynamicAnchors = new Map<string, number[]>();
  const pending: Pending[] = [];

  const visit = (schema: unknown, pointer: string, parentBase: string): number => {
    const id = nodes.length;
    const keywords = isObject(schema) ? Object.keys(schema).length : 0;
    nodes.push({ pointer: `#${pointer}`, schema, weight: 1 + keywords, edges: [] });
    byPointer.set(pointer, id);
    if (!isObject(schema)) return id;
    let base = parentBase;
    const ownId = schema.$id;
    if (typeof ownId === 'string' && !(draft === 'draft-07' && ownId.startsWith('#'))) {
      base = resolveUri(ownId, parentBase) ?? parentBase;
      resources.set(withoutHash(base), pointer);
    } else if (typeof ownId === 'string') {
      anchors.set(`${withoutHash(base)}${ownId}`, id);
    }
    if (typeof schema.$anchor === 'string') anchors.set(`${withoutHash(base)}#${schema.$anchor}`, id);
    if (typeof schema.$dynamicAnchor === 'string') {
      anchors.set(`${withoutHash(base)}#${schema.$dynamicAnchor}`, id);
      dynamicAnchors.set(schema.$dynamicAnchor, [...(dynamicAnchors.get(schema.$dynamicAnchor) ?? []), id]);
    }
    pending.push({ node: id, schema, base });
    for (const child of subschemasOf(schema, draft)) {
      const to = visit(child.schema, `${pointer}/${child.at.map(escapePointer).join('/')}`, base);
      (nodes[id] as SchemaNode).edges.push({ to, applies: child.applies });
    }
    return id;
  };
  resources.set(DEFAULT_BASE, '');
  visit(root, '', DEFAULT_BASE);

  const resolve = (reference: string, base: string): number | undefined => {
    const uri = resolveUri(reference, base);
    if (uri === undefined) return undefined;
    const hash = uri.indexOf('#');
    const fragment = hash < 0 ? '' : decodeURIComponent(uri.slice(hash + 1));
    const start = resources.get(withoutHash(uri));
    if (fragment === '' || fragment.startsWith('/')) return start === undefined ? undefined : byPointer.get(`${start}${fragment}`);
    return anchors.get(uri);
  };
  for (const { node, schema, base } of pending) {
    const edges = (nodes[node] as SchemaNode).edges;
    for (const keyword of ['$ref', '$dynamicRef']) {
      const reference = schema[keyword];
      if (typeof reference !== 'string') continue;
      const targets = new Set<number>();
      const resolved = resolve(reference, base);
      if (resolved !== undefined) targets.add(resolved);
      // A dynamic reference may land on any schema that declares the same dynamic anchor.
      const name = reference.startsWith('#') ? reference.slice(1) : undefined;
      if (keyword === '$dynamicRef' && name !== undefined) for (const target of dynamicAnchors.get(name) ?? []) targets.add(target);
      for (const to of targets) edges.push({ to, applies: { kind: 'here' }, reference: true });
    }
  }
  return nodes;
}
