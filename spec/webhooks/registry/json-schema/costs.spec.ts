/**
 * What a check charges the call's budget: each subschema that applies to any number of children charges each time,
 * with what applies once beside it counted in; a string read for its length charges by its length; a schema cannot
 * set its own cost lower.
 */
import { expect } from 'chai';
import type { JsonSchema } from '../../../../lib/index.js';
import { ValidationBudget, withinBudget } from '../../../../lib/webhooks/registry/json-schema/budget.js';
import { compileJsonSchema } from '../../../../lib/webhooks/registry/json-schema/compile.js';

function spent(schema: JsonSchema, data: unknown): number {
  const budget = new ValidationBudget(1e12);
  withinBudget(budget, () => compileJsonSchema(schema, false)(data));
  return 1e12 - budget.left;
}

const list = (count: number, item: unknown = 1): unknown[] => Array.from({ length: count }, () => item);

describe('what a check charges the call\'s budget', () => {
  it('charges an items subschema once per item, and everything applied with it each time', () => {
    const plain = { type: 'array', items: { type: 'integer' } };
    const perItem = spent(plain, list(101)) - spent(plain, list(100));
    expect(perItem).to.be.above(0);
    expect(spent(plain, list(1_100)) - spent(plain, list(100))).to.equal(1_000 * perItem);
    const heavier = { type: 'array', items: { type: 'integer', allOf: [{ minimum: 0 }, { maximum: 9 }], properties: { a: { type: 'string' } } } };
    expect(spent(heavier, list(101)) - spent(heavier, list(100))).to.be.above(perItem + 3);
  });

  it('charges every rule for children each time it applies: additional and pattern properties, contains, property names', () => {
    for (const schema of [
      { type: 'object', additionalProperties: { type: 'integer' } },
      { type: 'object', patternProperties: { '^k': { type: 'integer' } } },
      { type: 'object', propertyNames: { maxLength: 9 } },
    ]) {
      const object = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, index) => [`k${index}`, 1]));
      expect(spent(schema, object(200)), JSON.stringify(schema)).to.be.above(spent(schema, object(100)) + 99);
    }
    const contains = { type: 'array', contains: { const: 2 } };
    expect(spent(contains, list(200))).to.be.above(spent(contains, list(100)) + 99);
  });

  it('charges a definition each time a reference reaches it, so recursion costs in proportion to the depth it follows', () => {
    const schema = { $defs: { node: { type: 'object', properties: { next: { $ref: '#/$defs/node' } } } }, $ref: '#/$defs/node' };
    let deep: unknown = {};
    let deeper: unknown = {};
    for (let level = 0; level < 10; level++) deep = { next: deep };
    for (let level = 0; level < 20; level++) deeper = { next: deeper };
    expect(spent(schema, deeper) - spent(schema, deep)).to.be.at.least(10);
  });

  it('charges a string read for its length by its length, and one that is only typed by nothing more', () => {
    const measured = { type: 'string', maxLength: 1_000_000 };
    expect(spent(measured, 'x'.repeat(32_000)) - spent(measured, 'x')).to.be.at.least(999);
    const typed = { type: 'string' };
    expect(spent(typed, 'x'.repeat(32_000))).to.equal(spent(typed, 'x'));
  });

  it('keeps a schema from setting its own cost: a keyword of the cost\'s name changes nothing', () => {
    const own = { type: 'array', workflowWebhooksCost: [0, 0], items: { type: 'integer', workflowWebhooksCost: [0, 0] } };
    const plain = { type: 'array', items: { type: 'integer' } };
    expect(spent(own, list(100)) - spent(own, list(0))).to.equal(spent(plain, list(100)) - spent(plain, list(0)));
  });

  it('compiles boolean subschemas, which have no keyword to charge with', () => {
    expect(compileJsonSchema({ type: 'array', items: true, prefixItems: [false] }, false)([])).to.equal(true);
    expect(compileJsonSchema({ type: 'array', items: true, prefixItems: [false] }, false)([1])).to.equal(false);
  });
});
