/**
 * Where a refused value did not match, as the caller is told it: keys the schema names and array indexes as they are,
 * any other object key (the caller's own, maybe a secret) as `*`, and nothing of ajv's params that could hold a value.
 */
import { expect } from 'chai';
import { compileJsonSchema } from '../../../../lib/webhooks/registry/json-schema/compile.js';
import { redactedPath } from '../../../../lib/webhooks/registry/json-schema/issues.js';

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
});
