/**
 * The rules `npm test` holds every spec to before mocha runs (scripts/check-specs): each fires on a small fixture
 * that breaks it and stays silent on good code, so a rule that stops working is seen here.
 */
import { expect } from 'chai';
import { checkSpec, type Rule } from '../scripts/check-specs/rules.js';

/** [line, rule] of each finding in a fixture. */
const found = (text: string, helpers?: ReadonlySet<string>): [number, Rule][] =>
  checkSpec('fixture.spec.ts', text, helpers).map((finding) => [finding.line, finding.rule]);

describe('check-specs, the guard against tests that cannot fail', () => {
  describe('an it() that asserts nothing', () => {
    it('is flagged, also inside describe() and with a function expression', () => {
      expect(found([
        "describe('x', () => {",
        "  it('calls but checks nothing', async () => { await send(); });",
        "  it('is empty', function () {});",
        '});',
      ].join('\n'))).to.deep.equal([[2, 'no-assertion'], [3, 'no-assertion']]);
    });

    it('passes with expect, assert, supertest .expect(), a throw, a local helper that asserts, or an allow-listed helper', () => {
      expect(found([
        "it('a', () => { expect(1).to.equal(1 + 0); });",
        "it('b', () => { assert.equal(sum(), 2); });",
        "it('c', async () => { await request(app).get('/').expect(200); });",
        "it('d', async () => { if (!(await ready())) throw new Error('not ready'); });",
        "function checkAnswer(res: unknown): void { expect(res).to.not.equal(undefined); }",
        "const viaArrow = async () => checkAnswer(await call());",
        "it('e', async () => { await viaArrow(); });",
        "it('f', async () => { await waitsOrThrows(); });",
      ].join('\n'), new Set(['waitsOrThrows']))).to.deep.equal([]);
    });

    it('does not take a helper off the allow-list on trust', () => {
      expect(found("it('f', async () => { await waitsOrThrows(); });", new Set())).to.deep.equal([[1, 'no-assertion']]);
    });
  });

  describe('the same expression on both sides of an equality', () => {
    it('is flagged for equal, deep.equal and eql', () => {
      expect(found([
        "it('a', () => { expect(file?.data).to.equal(file?.data); });",
        "it('b', () => { expect(list).to.deep.equal( list ); });",
        "it('c', () => { expect(a.b).eql(a.b); });",
      ].join('\n'))).to.deep.equal([[1, 'same-both-sides'], [2, 'same-both-sides'], [3, 'same-both-sides']]);
    });

    it('is silent when the sides differ', () => {
      expect(found("it('a', () => { expect(file.data).to.equal(bytes); expect(a).to.include(a); });")).to.deep.equal([]);
    });
  });

  describe('a wall-clock duration asserted', () => {
    it('is flagged for Date.now() - … and performance.now() - … inside expect()', () => {
      expect(found([
        "it('a', () => { expect(Date.now() - started).to.be.below(1000); });",
        "it('b', () => { expect(Math.round(performance.now() - t0), 'took').to.be.at.most(5); });",
      ].join('\n'))).to.deep.equal([[1, 'wall-clock'], [2, 'wall-clock']]);
    });

    it('is flagged when the duration was put in a variable or an object\'s property first, however far it travelled', () => {
      expect(found([
        "it('a', async () => {",
        '  const took = Date.now() - started;',
        "  expect(took, 'took').to.be.below(1000);",
        '});',
        "it('b', async () => {",
        '  const answer = await send().then((reply) => ({ ...reply, afterMs: performance.now() - t0 }));',
        '  expect(answer.afterMs).to.be.at.least(300);',
        '  const seconds = Math.round(took / 1000);',
        '  expect([seconds]).to.deep.equal([1]);',
        '  expect(windows).to.be.within(1, seconds + 1);',
        '});',
      ].join('\n'))).to.deep.equal([[3, 'wall-clock'], [7, 'wall-clock'], [9, 'wall-clock'], [10, 'wall-clock']]);
    });

    it('is silent on a clock read that is not a duration (a moment before now included), or a duration only logged or used as a wait limit', () => {
      expect(found([
        "it('a', async () => {",
        '  const took = Date.now() - started;',
        '  console.log(took);',
        '  while (Date.now() - started < 3000) await poll();',
        '  expect(record.at).to.be.at.most(Date.now());',
        '  const outcomes = await stream({ onOutcome: () => { if (Date.now() - killedAt > 60_000) gaveUp = true; } });',
        '  expect(outcomes).to.have.length(3);',
        '  const job = await add({ storedAt: Date.now() - 5000 });',
        '  expect(job.storedAt).to.be.below(Date.now());',
        '});',
      ].join('\n'))).to.deep.equal([]);
    });
  });
});
