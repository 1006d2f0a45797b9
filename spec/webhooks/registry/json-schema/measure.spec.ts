/**
 * What one value can cost a schema, measured at compile: a schema that refers back to the same value, or recurses
 * through more than one path per level of the data, is refused with the place; trees, lists and recursion with one
 * path per level are not.
 */
import { expect } from 'chai';
import { schemaGraph } from '../../../../lib/webhooks/registry/json-schema/graph.js';
import { measureCost, MAX_APPLICATIONS_PER_VALUE } from '../../../../lib/webhooks/registry/json-schema/measure.js';

const measure = (schema: unknown, draft: '2020-12' | 'draft-07' = '2020-12') => measureCost(schemaGraph(schema, draft));

describe('the cost of a schema, measured at compile', () => {
  it('accepts recursion with one path per level: a tree whose keys each have one schema, a linked list, a menu', () => {
    expect(measure({ $defs: { node: { type: 'object', properties: { left: { $ref: '#/$defs/node' }, right: { $ref: '#/$defs/node' } } } }, $ref: '#/$defs/node' })).to.equal(undefined);
    expect(measure({ $defs: { list: { properties: { next: { $ref: '#/$defs/list' } }, additionalProperties: { $ref: '#/$defs/list' } } }, $ref: '#/$defs/list' })).to.equal(undefined);
    expect(measure({ type: 'array', items: { $ref: '#' }, prefixItems: [{ $ref: '#' }] })).to.equal(undefined);
    expect(measure({ $schema: 'http://json-schema.org/draft-07/schema#', definitions: { item: { properties: { children: { type: 'array', items: { $ref: '#/definitions/item' } } } } }, $ref: '#/definitions/item' }, 'draft-07')).to.equal(undefined);
  });

  it('refuses recursion through two paths per level, naming the subschema that multiplies', () => {
    const finding = measure({ $defs: { a: { anyOf: [{ items: { $ref: '#/$defs/a' } }, { items: { $ref: '#/$defs/a' } }] } }, $ref: '#/$defs/a' });
    expect(finding).to.include({ kind: 'growth', pointer: '#/$defs/a' });
    expect(finding?.kind === 'growth' && finding.applications).to.be.above(MAX_APPLICATIONS_PER_VALUE);
  });

  it('refuses a key that two rules of one schema send to the recursion (a named property and a pattern)', () => {
    expect(measure({ $defs: { a: { properties: { x: { $ref: '#/$defs/a' } }, patternProperties: { '^x': { $ref: '#/$defs/a' } } } }, $ref: '#/$defs/a' })?.kind).to.equal('growth');
    expect(measure({ $defs: { a: { items: { $ref: '#/$defs/a' }, contains: { $ref: '#/$defs/a' } } }, $ref: '#/$defs/a' })?.kind).to.equal('growth');
  });

  it('refuses a reference back to the same value, through a combinator, an anchor or a $dynamicRef', () => {
    expect(measure({ $defs: { a: { anyOf: [{ $ref: '#/$defs/a' }] } }, $ref: '#/$defs/a' })).to.deep.equal({ kind: 'cycle', path: ['#/$defs/a', '#/$defs/a/anyOf/0', '#/$defs/a'] });
    expect(measure({ $defs: { a: { $anchor: 'here', not: { $ref: '#here' } } }, $ref: '#/$defs/a' })?.kind).to.equal('cycle');
    expect(measure({ $dynamicAnchor: 'x', $dynamicRef: '#x' })?.kind).to.equal('cycle');
    expect(measure({ $id: 'https://example.test/root', $defs: { b: { $id: 'b.json', allOf: [{ $ref: 'b.json' }] } }, $ref: 'b.json' })?.kind).to.equal('cycle');
  });

  it('accepts a reference used from many places, since each is a call and not a copy', () => {
    const $defs: Record<string, unknown> = { d0: { type: 'string' } };
    for (let level = 1; level < 12; level++) $defs[`d${level}`] = { properties: Object.fromEntries(Array.from({ length: 10 }, (_, index) => [`p${index}`, { $ref: `#/$defs/d${level - 1}` }])) };
    expect(measure({ $defs, $ref: '#/$defs/d11' })).to.equal(undefined);
  });

  it('counts what several schemas apply to one value at the same level, and refuses past the bound', () => {
    const wide = { allOf: Array.from({ length: 30 }, () => ({ items: { allOf: Array.from({ length: 30 }, () => ({ items: { allOf: Array.from({ length: 30 }, () => ({ minimum: 1 })) } })) } })) };
    expect(measure(wide)?.kind).to.equal('growth');
    expect(measure({ allOf: Array.from({ length: 30 }, () => ({ items: { minimum: 1 } })) })).to.equal(undefined);
  });
});
