/**
 * `enum`, `const` and `uniqueItems` compare JSON values as JSON Schema says (keys in any order, 1 and 1.0 alike), in
 * time linear in the data, and a body's own `valueOf` or `toString` key is data like any other.
 */
import { expect } from 'chai';
import { compileJsonSchema } from '../../../../lib/webhooks/registry/json-schema/compile.js';
import { canonicalText } from '../../../../lib/webhooks/registry/json-schema/keywords.js';
import { ValidationBudget, withinBudget } from '../../../../lib/webhooks/registry/json-schema/budget.js';

describe('enum, const and uniqueItems in linear time', () => {
  it('gives equal JSON values one text, whatever the order of their keys', () => {
    expect(canonicalText({ b: [1, { d: 1, c: 2 }], a: 'x' })).to.equal(canonicalText({ a: 'x', b: [1, { c: 2, d: 1 }] }));
    expect(canonicalText({ a: 1 })).to.not.equal(canonicalText({ a: '1' }));
    expect(canonicalText([null])).to.not.equal(canonicalText(['null']));
  });

  it('matches an enum or a const of objects by JSON equality', () => {
    const check = compileJsonSchema({ enum: [{ a: 1, b: [2] }, 'x', 3] }, false);
    expect(check({ b: [2], a: 1 })).to.equal(true);
    expect(check({ a: 1, b: [2], c: 0 })).to.equal(false);
    expect(check('x')).to.equal(true);
    expect(check(3.0)).to.equal(true);
    expect(check('3')).to.equal(false);
    expect(check.errors?.[0]?.message).to.equal('must be equal to one of the allowed values');
    const constant = compileJsonSchema({ const: { a: [1, 2] } }, false);
    expect(constant({ a: [1, 2] })).to.equal(true);
    expect(constant({ a: [2, 1] })).to.equal(false);
  });

  it('finds duplicate items among objects whose keys come in another order, and none among distinct ones', () => {
    const check = compileJsonSchema({ type: 'array', uniqueItems: true }, false);
    expect(check([{ a: 1, b: 2 }, { b: 2, a: 1 }])).to.equal(false);
    expect(check([{ a: 1 }, { a: '1' }, 1, '1', [1], null, 'null'])).to.equal(true);
    expect(check(Array.from({ length: 20_000 }, (_, index) => ({ id: index })))).to.equal(true);
  });

  it('refuses, and does not throw on, a body whose objects hold their own valueOf and toString', () => {
    const unique = compileJsonSchema({ type: 'array', uniqueItems: true }, false);
    expect(unique([{ valueOf: 'x', toString: 'y' }, { valueOf: 'x', toString: 'y' }])).to.equal(false);
    expect(compileJsonSchema({ const: { a: 1 } }, false)({ valueOf: 1, a: 1 })).to.equal(false);
    expect(compileJsonSchema({ enum: [{ a: 1 }] }, false)({ toString: 'a' })).to.equal(false);
  });

  it('charges the call\'s budget by the size of what it compares', () => {
    const check = compileJsonSchema({ type: 'array', uniqueItems: true }, false);
    const small = new ValidationBudget();
    withinBudget(small, () => check([{ a: 1 }, { a: 2 }]));
    const large = new ValidationBudget();
    withinBudget(large, () => check(Array.from({ length: 1_000 }, (_, index) => ({ a: index }))));
    expect(large.left).to.be.below(small.left - 1_000);
  });
});
