/**
 * Where a refused value did not match, as the caller is told it: keys the schema names and array indexes as they are,
 * any other object key (the caller's own, maybe a secret) as `*`, and nothing of ajv's params that could hold a value.
 */
import { expect } from 'chai';
import { compileJsonSchema } from '../../../../lib/webhooks/registry/json-schema/compile.js';
import { namedKeysOf, redactedIssues, redactedPath } from '../../../../lib/webhooks/registry/json-schema/issues.js';

describe('the places a refusal names', () => {
  it('keeps the keys the schema names and array indexes, and shows any other key as *', () => {
    const check = compileJsonSchema({
      type: 'object',
      properties: { items: { type: 'array', items: { type: 'object', additionalProperties: { type: 'integer' } } } },
      patternProperties: { '^x-': { type: 'string' } },
    }, false);
    expect(check({ items: [{ sk_live_secret: 'no' }], 'x-4111111111111111': 1 })).to.equal(false);
    const paths = (check.errors ?? []).map((issue) => issue.instancePath);
    expect(paths).to.include('/items/0/*');
    expect(paths).to.include('/*');
    expect(JSON.stringify(check.errors)).to.not.match(/sk_live|4111/);
  });

  it('tells an object key made of digits from an array index by the data, not by its shape', () => {
    expect(redactedPath('/0/1234', [{ 1234: 'x' }], new Set())).to.equal('/0/*');
    expect(redactedPath('/list/1234', { list: Array.from({ length: 1235 }) }, new Set(['list']))).to.equal('/list/1234');
  });

  it('keeps a required property\'s name, which the schema gives, so the answer can point at it', () => {
    const check = compileJsonSchema({ type: 'object', required: ['name'] }, false);
    expect(check({ other: 1 })).to.equal(false);
    expect(check.errors?.[0]?.params).to.deep.equal({ missingProperty: 'name' });
  });

  it('lists up to every place of a small refused value, though the check itself stops at the first', () => {
    const check = compileJsonSchema({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' }, c: { type: 'string' } } }, false);
    expect(check({ a: 1, b: 2, c: 3 })).to.equal(false);
    expect(check.errors?.map((issue) => issue.instancePath)).to.deep.equal(['/a', '/b', '/c']);
  });

  it('counts as named every key a schema states: properties, required, dependentRequired and dependentSchemas', () => {
    const named = namedKeysOf({
      properties: { name: {} },
      required: ['id', 7],
      dependentRequired: { card: ['billing', 8] },
      dependentSchemas: { coupon: { properties: { code: {} } } },
      allOf: [{ properties: { deep: {} } }],
    }, '2020-12');
    expect([...named].sort()).to.deep.equal(['billing', 'card', 'code', 'coupon', 'deep', 'id', 'name']);
  });

  it('counts the keys of draft-07 dependencies, in both their list and schema forms', () => {
    const named = namedKeysOf({ dependencies: { card: ['billing'], coupon: { properties: { code: {} } } } }, 'draft-07');
    expect([...named].sort()).to.deep.equal(['billing', 'card', 'code', 'coupon']);
  });

  it('reads no names from keywords that hold something other than names', () => {
    expect([...namedKeysOf({ properties: null, required: 'name', dependentRequired: 'x' }, '2020-12')]).to.deep.equal([]);
  });

  for (const [keyword, schema] of [
    ['dependentRequired', { dependentRequired: { token: ['other'] } }],
    ['dependentSchemas', { dependentSchemas: { token: { required: ['other'] } } }],
    ['required', { required: ['token'] }],
  ] as const) {
    it(`shows a key that the schema names only in ${keyword} in the place refused, and any other key as *`, () => {
      const check = compileJsonSchema({ type: 'object', additionalProperties: { type: 'string' }, ...schema }, false);
      expect(check({ token: 1, other: 'x', sk_live_secret: 2 })).to.equal(false);
      expect((check.errors ?? []).map((issue) => issue.instancePath).sort()).to.deep.equal(['/*', '/token']);
    });
  }

  it('shows a key that a draft-07 schema names only in dependencies in the place refused', () => {
    const check = compileJsonSchema({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      additionalProperties: { type: 'string' },
      dependencies: { token: ['other'], coupon: { required: ['other'] } },
    }, false);
    expect(check({ token: 1, coupon: 2, other: 'x', sk_live_secret: 3 })).to.equal(false);
    expect((check.errors ?? []).map((issue) => issue.instancePath).sort()).to.deep.equal(['/*', '/coupon', '/token']);
  });

  it('keeps a named key holding / or ~ as the pointer writes it, and looks inside it', () => {
    const check = compileJsonSchema({
      type: 'object',
      properties: { 'a/b': { type: 'object', properties: { 'c~d': { type: 'array', items: { type: 'string' } } }, additionalProperties: { type: 'string' } } },
    }, false);
    expect(check({ 'a/b': { 'c~d': ['x', 1], secret: 2 } })).to.equal(false);
    expect((check.errors ?? []).map((issue) => issue.instancePath).sort()).to.deep.equal(['/a~1b/*', '/a~1b/c~0d/1']);
    expect(redactedPath('/x~01y', { 'x~1y': 1 }, new Set(['x~1y']))).to.equal('/x~01y');
    expect(redactedPath('/x~01y', { 'x~1y': 1 }, new Set(['x/y']))).to.equal('/*');
  });

  it('points at the whole value when the whole value did not match', () => {
    expect(redactedPath('', { a: 1 }, new Set())).to.equal('');
    const check = compileJsonSchema({ type: 'object' }, false);
    expect(check('sk_live_secret')).to.equal(false);
    expect(check.errors?.map((issue) => issue.instancePath)).to.deep.equal(['']);
  });

  it('drops every param that could hold a value or key sent, keeping only the missing property of required', () => {
    const issues = redactedIssues([
      { instancePath: '', keyword: 'required', message: "must have required property 'name'", params: { missingProperty: 'name', extra: 'sk_live_secret' } },
      { instancePath: '', keyword: 'required', message: 'must have required property', params: { missingProperty: 7 } },
      { instancePath: '', keyword: 'additionalProperties', message: 'must NOT have additional properties', params: { additionalProperty: 'sk_live_secret' } },
      { instancePath: '', keyword: 'dependentRequired', message: 'must have property other', params: { missingProperty: 'sk_live_secret', property: 'x' } },
    ], {}, new Set(['name']));
    expect(issues).to.deep.equal([
      { instancePath: '', keyword: 'required', message: "must have required property 'name'", params: { missingProperty: 'name' } },
      { instancePath: '', keyword: 'required', message: 'must have required property', params: {} },
      { instancePath: '', keyword: 'additionalProperties', message: 'must NOT have additional properties', params: {} },
      { instancePath: '', keyword: 'dependentRequired', message: 'must have property other', params: {} },
    ]);
  });
});
