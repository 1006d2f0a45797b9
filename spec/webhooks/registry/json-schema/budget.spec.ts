/**
 * One budget of validation work per call: what the body, the query and the headers cost adds up, and the call is
 * refused 422 PAYLOAD_TOO_COSTLY once it is spent, however the work was split among strings and parts.
 */
import { expect } from 'chai';
import { compileJsonSchema } from '../../../../lib/webhooks/registry/json-schema/compile.js';
import { CALL_BUDGET_UNITS, ValidationBudget, withinBudget } from '../../../../lib/webhooks/registry/json-schema/budget.js';

const strings = { type: 'array', items: { type: 'string', pattern: '^[a-z]+$' } };

describe('one budget of validation work per call', () => {
  it('adds up the work of every string, so many cheap strings cost as much as one long one', () => {
    const check = compileJsonSchema(strings, false);
    const budget = new ValidationBudget();
    expect(withinBudget(budget, () => check(Array.from({ length: 100 }, () => 'abc')))).to.equal(true);
    const spent = CALL_BUDGET_UNITS - budget.left;
    const many = Array.from({ length: Math.ceil((2 * CALL_BUDGET_UNITS) / (spent / 100)) }, () => 'abc');
    expect(() => withinBudget(new ValidationBudget(), () => check(many))).to.throw().with.property('code', 'PAYLOAD_TOO_COSTLY');
  });

  it('shares one budget among the parts of a call: each within it alone, together past it', () => {
    const check = compileJsonSchema(strings, false);
    const part = Array.from({ length: 10_000 }, () => 'abcdefgh');
    const alone = new ValidationBudget();
    withinBudget(alone, () => check(part));
    const spent = CALL_BUDGET_UNITS - alone.left;
    expect(spent).to.be.below(CALL_BUDGET_UNITS / 2);
    const parts = Array.from({ length: Math.ceil(CALL_BUDGET_UNITS / spent) + 1 }, () => part);
    const call = new ValidationBudget();
    expect(() => withinBudget(call, () => parts.map((each) => check(each)))).to.throw().with.property('status', 422);
  });

  it('spends the budget to its last unit, and refuses the first unit past it', () => {
    const budget = new ValidationBudget(100);
    withinBudget(budget, () => { budget.charge(100); });
    expect(budget.left).to.equal(0);
    expect(() => budget.charge(1)).to.throw().with.property('code', 'PAYLOAD_TOO_COSTLY');
  });

  it('stops a check still running past its time, whatever units are left, saying so', async () => {
    const budget = new ValidationBudget(1e12, 1);
    budget.charge(20_000);
    await new Promise((resolve) => setTimeout(resolve, 5));
    let refused: unknown;
    try {
      for (let round = 0; round < 10; round++) budget.charge(10_000);
    } catch (error) {
      refused = error;
    }
    expect(refused).to.have.property('code', 'PAYLOAD_TOO_COSTLY');
    expect((refused as Error).message).to.include('1 ms');
  });

  it('turns a stack overflowed by a deep body into a refusal of the call, not a failure of the server', () => {
    expect(() => withinBudget(new ValidationBudget(), () => {
      const deeper = (depth: number): number => (depth === 0 ? 0 : 1 + deeper(depth - 1));
      return deeper(1e7);
    })).to.throw().with.property('code', 'PAYLOAD_TOO_COSTLY');
  });

  it('leaves any other RangeError a fault of its own, not a refusal of the call', () => {
    expect(() => withinBudget(new ValidationBudget(), () => new Array(-1))).to.throw(RangeError, /array length/i);
  });
});
