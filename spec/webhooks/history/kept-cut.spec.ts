/**
 * The copy history keeps of a value it could not keep as it is (kept-cut.ts): JSON data at most MAX_KEPT_DEPTH
 * levels deep, in its order, with what JSON cannot hold said in words.
 */
import { expect } from 'chai';
import { cutCopy, DEEPER, MAX_KEPT_DEPTH, REPEATED } from '../../../lib/webhooks/history/kept-cut.js';

describe('the cut copy of a value history could not keep as it is', () => {
  it('keeps arrays and objects down to the depth kept, in their order, and says where it cut', () => {
    let deep: unknown = 'bottom';
    for (let level = 0; level < MAX_KEPT_DEPTH + 10; level += 1) deep = [deep];
    const copy = cutCopy({ b: 1, a: [true, null, 'x'], deep }) as Record<string, unknown>;
    expect(Object.keys(copy)).to.deep.equal(['b', 'a', 'deep']);
    expect(copy.a).to.deep.equal([true, null, 'x']);
    // The copy is level 1 and `deep` level 2: the arrays below it are kept down to the last level, then the mark.
    let here = copy.deep;
    let levels = 1;
    while (Array.isArray(here)) {
      levels += 1;
      here = here[0] as unknown;
    }
    expect(levels).to.equal(MAX_KEPT_DEPTH);
    expect(here).to.equal(DEEPER);
  });

  it('writes a cycle and an object held twice as a mark, a BigInt as its digits, and keeps __proto__ a plain key', () => {
    const value: Record<string, unknown> = JSON.parse('{"__proto__":{"polluted":true},"n":1}') as Record<string, unknown>;
    value.big = 12345678901234567890n;
    value.self = value;
    const shared = { s: 1 };
    value.one = shared;
    value.two = [shared];
    const copy = cutCopy(value) as Record<string, unknown>;
    expect(JSON.stringify(copy)).to.equal(`{"__proto__":{"polluted":true},"n":1,"big":"12345678901234567890","self":"${REPEATED}","one":{"s":1},"two":["${REPEATED}"]}`);
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
  });
});
