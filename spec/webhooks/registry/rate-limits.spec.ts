/**
 * The in-process rate limit store (the memory registry's, and the middleware's own) stays bounded whatever callers
 * send: expired budgets go as calls arrive, and at the bound a new caller shares its scope's overflow budget while
 * every budget already open keeps its count, so a flood of invented keys can neither grow memory nor reset anyone.
 */
import { expect } from 'chai';
import type { RateLimitCharge } from '../../../lib/index.js';
import { InProcessRateLimits } from '../../../lib/webhooks/registry/rate-limits.js';

const caller = (name: string, limit = 2, windowMs = 1000, maxKeys = 1_000_000): RateLimitCharge =>
  ({ budget: `scope/${name}`, scope: 'scope', limit, windowMs, maxKeys });

describe('the in-process rate limit store', () => {
  it('holds at most maxBudgets budgets: a flood of 10 000 new callers shares one overflow budget, and the first caller keeps its count', () => {
    const store = new InProcessRateLimits(100);
    expect(store.charge([caller('first')], 0).remaining).to.deep.equal([1]);
    const flood = Array.from({ length: 10_000 }, (_, index) => store.charge([caller(`invented-${index}`)], 1));
    expect(store.size).to.equal(101);
    // 99 got budgets of their own; the rest share the overflow budget, which lets its 2 calls through.
    expect(flood.filter((answer) => answer.allowed)).to.have.length(99 + 2);
    const first = store.charge([caller('first')], 2);
    expect([first.allowed, first.remaining]).to.deep.equal([true, [0]]);
  });

  it('drops budgets whose window ended, so the bound is reached by live callers only', () => {
    const store = new InProcessRateLimits(10);
    for (let index = 0; index < 10; index += 1) store.charge([caller(`early-${index}`)], 0);
    expect(store.size).to.equal(10);
    const late = store.charge([caller('late')], 1000);
    expect([late.allowed, late.remaining, store.size]).to.deep.equal([true, [1], 1]);
  });

  it('keeps windows of different lengths apart, each ending on time', () => {
    const store = new InProcessRateLimits();
    const short = caller('short', 1, 1000);
    const long = caller('long', 1, 60_000);
    store.charge([short, long], 0);
    expect(store.charge([short], 999).allowed).to.equal(false);
    expect(store.charge([short], 1000).allowed).to.equal(true);
    expect(store.charge([long], 59_999).resetMs).to.deep.equal([1]);
    expect(store.charge([long], 60_000).allowed).to.equal(true);
  });

  it('opens at most maxKeys caller budgets per scope and window, then new callers share one', () => {
    const store = new InProcessRateLimits();
    const answers = ['a', 'b', 'c', 'd', 'e'].map((name) => store.charge([caller(name, 1, 1000, 2)], 0).allowed);
    expect(answers).to.deep.equal([true, true, true, false, false]);
    // A new window of the scope: budgets of their own again.
    expect(store.charge([caller('f', 1, 1000, 2)], 1000).allowed).to.equal(true);
  });
});
