/**
 * Where a JSON Schema holds other schemas, and how each applies to the data: to the same value (`allOf`, `$ref`…),
 * to one child of it (`properties/x` to the key x, `prefixItems/0` to the first item), to children by a rule
 * (`additionalProperties`, `items`), or not at all until referred to (`$defs`). The measure of a schema's cost
 * (graph.ts) and the copy that is compiled (compile.ts) both walk a schema through this one list, so a keyword
 * either is followed by both or by neither. Values that are data (`const`, `enum`, `default`, `examples`) are never
 * walked: a `$ref` inside them is text.
 */

export type Draft = '2020-12' | 'draft-07';

/**
 * How a subschema applies: `here` to the same value; `property` to the child under `name`; `index` to the item at
 * `index`; `otherProperty` to a child no `properties` entry names and no pattern matches; `patternProperty` to children
 * whose key matches; `laterItem` to items past the tuple; `everyProperty`/`everyItem` to any child; `propertyName` to a
 * key (a string); `stored` not at all (`$defs`).
 */
export type Applies =
  | { kind: 'here' }
  | { kind: 'property'; name: string }
  | { kind: 'index'; index: number }
  | { kind: 'otherProperty' | 'patternProperty' | 'everyProperty' | 'laterItem' | 'everyItem' | 'propertyName' | 'stored' };

export interface Subschema {
  /** JSON pointer segments from the parent schema. */
  at: readonly string[];
  schema: unknown;
  applies: Applies;
}

const HERE: Applies = { kind: 'here' };
const IN_PLACE_LISTS = ['allOf', 'anyOf', 'oneOf'];
const IN_PLACE_ONE = ['not', 'if', 'then', 'else'];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function entries(value: unknown): [string, unknown][] {
  return isObject(value) ? Object.entries(value) : [];
}

/** The subschemas `schema` itself holds (not theirs), in a fixed order. */
export function subschemasOf(schema: unknown, draft: Draft): Subschema[] {
  if (!isObject(schema)) return [];
  const out: Subschema[] = [];
  const add = (at: string[], child: unknown, applies: Applies): void => {
    if (isObject(child) || typeof child === 'boolean') out.push({ at, schema: child, applies });
  };
  for (const keyword of IN_PLACE_LISTS) {
    const list = schema[keyword];
    if (Array.isArray(list)) list.forEach((child, index) => add([keyword, String(index)], child, HERE));
  }
  for (const keyword of IN_PLACE_ONE) if (keyword in schema) add([keyword], schema[keyword], HERE);
  for (const [name, child] of entries(schema.dependentSchemas)) add(['dependentSchemas', name], child, HERE);
  for (const [name, child] of entries(schema.properties)) add(['properties', name], child, { kind: 'property', name });
  for (const [pattern, child] of entries(schema.patternProperties)) add(['patternProperties', pattern], child, { kind: 'patternProperty' });
  if ('additionalProperties' in schema) add(['additionalProperties'], schema.additionalProperties, { kind: 'otherProperty' });
  if ('unevaluatedProperties' in schema) add(['unevaluatedProperties'], schema.unevaluatedProperties, { kind: 'everyProperty' });
  if ('propertyNames' in schema) add(['propertyNames'], schema.propertyNames, { kind: 'propertyName' });
  if ('contains' in schema) add(['contains'], schema.contains, { kind: 'everyItem' });
  if ('unevaluatedItems' in schema) add(['unevaluatedItems'], schema.unevaluatedItems, { kind: 'everyItem' });
  for (const keyword of ['$defs', 'definitions']) {
    for (const [name, child] of entries(schema[keyword])) add([keyword, name], child, { kind: 'stored' });
  }
  if (draft === '2020-12') {
    if (Array.isArray(schema.prefixItems)) schema.prefixItems.forEach((child, index) => add(['prefixItems', String(index)], child, { kind: 'index', index }));
    if ('items' in schema) add(['items'], schema.items, { kind: 'laterItem' });
  } else {
    for (const [name, child] of entries(schema.dependencies)) add(['dependencies', name], child, HERE);
    if (Array.isArray(schema.items)) schema.items.forEach((child, index) => add(['items', String(index)], child, { kind: 'index', index }));
    else if ('items' in schema) add(['items'], schema.items, { kind: 'everyItem' });
    if ('additionalItems' in schema) add(['additionalItems'], schema.additionalItems, { kind: 'laterItem' });
  }
  return out;
}

/** Whether `applies` reaches a child of the value (rather than the value itself, or nothing). */
export function descends(applies: Applies): boolean {
  return applies.kind !== 'here' && applies.kind !== 'stored';
}
