/**
 * The registry conformance suite, rate limits, for registries that offer the optional `chargeRateLimits` (their
 * harness says so): a budget lets `limit` calls through per window and refuses the rest until its window has passed;
 * a call's budgets are charged all together or not at all; past `maxKeys` new callers of a scope share one budget;
 * and racing calls on several instances get exactly `limit` through between them. Where a registry offers
 * `addRateLimitCalls`, calls counted without it are added to their budgets.
 */
import { expect } from 'chai';
import type { RateLimitCharge, RateLimitResult, WebhookRegistry } from 'workflow-webhooks';
import type { RegistryFixture } from './fixture.js';

type Counting = WebhookRegistry & Required<Pick<WebhookRegistry, 'chargeRateLimits'>>;

function counting(registry: WebhookRegistry): Counting {
  expect(registry.chargeRateLimits, 'the harness says this registry counts rate limits').to.be.a('function');
  return registry as Counting;
}

/** A minute: no window passes by itself while a test runs, however slow the machine; the tests move the clock. */
const WINDOW_MS = 60_000;

/** A budget of its own scope (address-wide) unless a scope is given: `limit` calls per `windowMs`. */
function budget(id: string, limit: number, windowMs = WINDOW_MS, scope = id, maxKeys = 100): RateLimitCharge {
  return { budget: id, scope, limit, windowMs, maxKeys };
}

/** A fresh id per test: peers of one store share budgets, and a spec run must not meet an earlier run's. */
let next = 0;
const fresh = (name: string): string => `${name}-${process.pid}-${(next += 1)}`;

export function describeRateLimits(fixture: RegistryFixture, hasPeers: boolean, addsCalls: boolean): void {
  describe('chargeRateLimits()', () => {
    it('lets limit calls through in a window, refuses the next without counting it, and lets calls through again once the window passed', async () => {
      const registry = counting(fixture.registry);
      const one = [budget(fresh('orders'), 3)];
      await fixture.withRateLimitClock(async (advance) => {
        const answers: RateLimitResult[] = [];
        for (let call = 0; call < 5; call += 1) answers.push(await registry.chargeRateLimits(one));
        expect(answers.map((answer) => [answer.allowed, answer.remaining[0]])).to.deep.equal([[true, 2], [true, 1], [true, 0], [false, 0], [false, 0]]);
        for (const answer of answers) expect(answer.resetMs[0]).to.be.within(1, WINDOW_MS);
        await advance(WINDOW_MS - 1000);
        expect((await registry.chargeRateLimits(one)).allowed, 'a second before the window ends').to.equal(false);
        await advance(1000);
        const again = await registry.chargeRateLimits(one);
        expect([again.allowed, again.remaining[0]]).to.deep.equal([true, 2]);
        expect(again.resetMs[0], 'a new window').to.be.above(WINDOW_MS - 1000);
      });
    });

    it('says how much of the window is left, the same window for every call in it', async () => {
      const registry = counting(fixture.registry);
      const one = [budget(fresh('window'), 10)];
      await fixture.withRateLimitClock(async (advance) => {
        const first = await registry.chargeRateLimits(one);
        await advance(20_000);
        const later = await registry.chargeRateLimits(one);
        await advance(20_000);
        const last = await registry.chargeRateLimits(one);
        expect(first.resetMs[0]).to.be.within(1, WINDOW_MS);
        // As much less as the clock moved on (and the real time the calls took on a store that measures it too): no
        // call of the window starts it again.
        expect(later.resetMs[0]).to.be.within(1, (first.resetMs[0] as number) - 20_000);
        expect(last.resetMs[0]).to.be.within(1, (first.resetMs[0] as number) - 40_000);
      });
    });

    it('charges every budget of a call or none: a call one budget refuses leaves the others as they were', async () => {
      const registry = counting(fixture.registry);
      const tight = budget(fresh('tight'), 1);
      const loose = budget(fresh('loose'), 5);
      expect((await registry.chargeRateLimits([tight, loose])).allowed).to.equal(true);
      const refused = await registry.chargeRateLimits([tight, loose]);
      expect([refused.allowed, refused.remaining]).to.deep.equal([false, [0, 4]]);
      const alone = [];
      for (let call = 0; call < 5; call += 1) alone.push(await registry.chargeRateLimits([loose]));
      expect(alone.map((answer) => answer.remaining[0])).to.deep.equal([3, 2, 1, 0, 0]);
      expect(alone.map((answer) => answer.allowed)).to.deep.equal([true, true, true, true, false]);
    });

    it('keeps budgets apart: one spent budget refuses nobody else', async () => {
      const registry = counting(fixture.registry);
      const scope = fresh('per-caller');
      const ada = budget(`${scope}-ada`, 1, WINDOW_MS, scope);
      const bob = budget(`${scope}-bob`, 1, WINDOW_MS, scope);
      expect((await registry.chargeRateLimits([ada])).allowed).to.equal(true);
      expect((await registry.chargeRateLimits([ada])).allowed).to.equal(false);
      expect((await registry.chargeRateLimits([bob])).allowed).to.equal(true);
    });

    it('gives callers past maxKeys in a window one shared budget, and keeps the budgets opened before', async () => {
      const registry = counting(fixture.registry);
      const scope = fresh('crowded');
      const caller = (name: string): RateLimitCharge => budget(`${scope}-${name}`, 2, WINDOW_MS, scope, 2);
      expect((await registry.chargeRateLimits([caller('first')])).allowed).to.equal(true);
      expect((await registry.chargeRateLimits([caller('second')])).allowed).to.equal(true);
      // Two budgets are open: every further new caller spends from the one overflow budget (2 calls).
      const crowd = [];
      for (const name of ['third', 'fourth', 'fifth', 'sixth']) crowd.push((await registry.chargeRateLimits([caller(name)])).allowed);
      expect(crowd).to.deep.equal([true, true, false, false]);
      const first = await registry.chargeRateLimits([caller('first')]);
      expect([first.allowed, first.remaining[0]]).to.deep.equal([true, 0]);
    });

    it(`lets exactly limit of 90 racing calls through${hasPeers ? ', whichever of three instances they ask' : ''}`, async () => {
      const instances = [counting(fixture.registry), ...(hasPeers ? [await fixture.peer(), await fixture.peer()].map(counting) : [])];
      const shared = [budget(fresh('race'), 17)];
      const answers = await Promise.all(Array.from({ length: 90 }, (_, index) => (instances[index % instances.length] as Counting).chargeRateLimits(shared)));
      const through = answers.filter((answer) => answer.allowed);
      expect(through).to.have.length(17);
      // Each call through left a different count behind: no two saw the same state.
      expect(through.map((answer) => answer.remaining[0]).sort((a, b) => (a as number) - (b as number))).to.deep.equal(Array.from({ length: 17 }, (_, index) => index));
    });

    // Optional beside chargeRateLimits: a registry that never fails to count (the memory one) needs none.
    if (addsCalls) it('adds the calls let through without it to their budgets, unchecked, opening a window for a budget without one (addRateLimitCalls)', async () => {
      const registry = counting(fixture.registry);
      expect(registry.addRateLimitCalls).to.be.a('function');
      const open = budget(fresh('added-open'), 10);
      const none = budget(fresh('added-none'), 10);
      expect((await registry.chargeRateLimits([open])).remaining[0]).to.equal(9);
      await registry.addRateLimitCalls?.([open, none], [7, 4]);
      expect((await registry.chargeRateLimits([open])).remaining[0], 'one charged, seven added, one charged').to.equal(1);
      expect((await registry.chargeRateLimits([none])).remaining[0], 'four added to a budget without a window, one charged').to.equal(5);
      await registry.addRateLimitCalls?.([open], [5]);
      const past = await registry.chargeRateLimits([open]);
      expect([past.allowed, past.remaining[0]], 'added past the limit: refused').to.deep.equal([false, 0]);
    });
  });
}
