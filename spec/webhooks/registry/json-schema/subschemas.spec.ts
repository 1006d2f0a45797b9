/**
 * Where a schema holds other schemas and how each applies to the data, in both drafts: the one list the cost measure
 * and the compiled copy both walk, so a keyword it missed would escape the measure and the budget alike. Values that
 * are data (`const`, `enum`, `default`, `examples`) are never walked.
 */
import { expect } from 'chai';
import { subschemasOf, descends } from '../../../../lib/webhooks/registry/json-schema/subschemas.js';

const at = (schema: unknown, draft: '2020-12' | 'draft-07' = '2020-12') =>
  subschemasOf(schema, draft).map(({ at: place, applies }) => `${place.join('/')} ${applies.kind}${'name' in applies ? `:${applies.name}` : ''}${'index' in applies ? `:${applies.index}` : ''}`);

describe('where a schema holds subschemas, and how each applies', () => {
  it('finds every applicator of draft 2020-12, each with how it applies', () => {
    const child = { type: 'string' };
    expect(at({
      allOf: [child], anyOf: [child, true], oneOf: [false], not: child, if: child, then: child, else: child,
      dependentSchemas: { a: child }, properties: { p: child }, patternProperties: { '^x': child }, additionalProperties: child,
      unevaluatedProperties: false, propertyNames: child, contains: child, unevaluatedItems: child, $defs: { d: child },
      definitions: { e: child }, prefixItems: [child, child], items: child,
    })).to.deep.equal([
      'allOf/0 here', 'anyOf/0 here', 'anyOf/1 here', 'oneOf/0 here', 'not here', 'if here', 'then here', 'else here',
      'dependentSchemas/a here', 'properties/p property:p', 'patternProperties/^x patternProperty',
      'additionalProperties otherProperty', 'unevaluatedProperties everyProperty', 'propertyNames propertyName',
      'contains everyItem', 'unevaluatedItems everyItem', '$defs/d stored', 'definitions/e stored',
      'prefixItems/0 index:0', 'prefixItems/1 index:1', 'items laterItem',
    ]);
  });

  it('reads draft-07\'s items, additionalItems and dependencies as draft-07 means them', () => {
    const child = { minimum: 1 };
    expect(at({ items: [child, child], additionalItems: child, dependencies: { a: child, b: ['c'] } }, 'draft-07')).to.deep.equal([
      'dependencies/a here', 'items/0 index:0', 'items/1 index:1', 'additionalItems laterItem',
    ]);
    expect(at({ items: child }, 'draft-07')).to.deep.equal(['items everyItem']);
    expect(at({ items: child, prefixItems: [child] }, 'draft-07')).to.deep.equal(['items everyItem']);
    expect(at({ items: [child], dependencies: { a: child } })).to.deep.equal([]);
  });

  it('walks no value that is data, nor anything in a schema that is not an object', () => {
    expect(at({ const: { properties: { a: {} } }, enum: [{ items: {} }], default: { not: {} }, examples: [{ allOf: [{}] }], properties: { a: 'x', b: 3, c: null } })).to.deep.equal([]);
    for (const schema of [true, false, null, 'string', 3, [{ type: 'string' }]]) expect(at(schema)).to.deep.equal([]);
    expect(at({ allOf: 'x', anyOf: { a: {} }, properties: [], dependentSchemas: null })).to.deep.equal([]);
  });

  it('tells what reaches into a child of the value from what applies to the value itself or waits to be referred to', () => {
    expect(descends({ kind: 'here' })).to.equal(false);
    expect(descends({ kind: 'stored' })).to.equal(false);
    for (const kind of ['otherProperty', 'patternProperty', 'everyProperty', 'laterItem', 'everyItem', 'propertyName'] as const) expect(descends({ kind }), kind).to.equal(true);
    expect(descends({ kind: 'property', name: 'a' })).to.equal(true);
    expect(descends({ kind: 'index', index: 0 })).to.equal(true);
  });
});
