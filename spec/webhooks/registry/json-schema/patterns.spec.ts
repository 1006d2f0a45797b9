/**
 * Schema patterns run on RE2, in time linear in the string, and mean what ECMA-262 says they mean: the same answer as
 * V8's RegExp on every pattern both can run, and a refusal with the reason for what no linear-time engine can.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { linearPattern, toRe2Syntax } from '../../../../lib/webhooks/registry/json-schema/patterns.js';
import { MAX_PROGRAM, programEstimate } from '../../../../lib/webhooks/registry/json-schema/pattern-size.js';
import { ValidationBudget, withinBudget } from '../../../../lib/webhooks/registry/json-schema/budget.js';

const PATTERNS = [
  '^[A-Z]{2}\\d{6}$', '^[a-z0-9._%+-]+@[a-z0-9.-]+\\.[a-z]{2,}$', '^(\\+|-)?\\d+$', '^(?:[0-9a-f]{2}:){5}[0-9a-f]{2}$',
  '^\\s*\\S+\\s*$', '^.+$', 'a.b', '^[\\s\\S]{2}$', '^[]$', '^[^]{3}$', '\\p{Lu}', '^\\p{Script=Greek}+$', '^(?<year>\\d{4})-(?<month>\\d\\d)$',
  '^\\u00e9\\x41\\u{1F600}$', '^\\/path\\.json$', '^[\\w-]+$', '\\bword\\b', '[\\b]', '^\\cJ$', '^[[:a]+$', '^\\t\\n\\v\\f\\r\\0$',
];

const SAMPLES = [
  '', 'AB123456', 'john.doe@example.com', '+42', '-7', '00:1a:2b:3c:4d:5e', '  token  ', ' \u00a0x\u2003', 'a\nb', 'a\u2028b', 'axb',
  'ΑΒΓ', 'Hello', '2024-06', 'é\u0041😀', '/path.json', 'snake-case_1', 'a word here', '\b', '\n', ':', '[', 'a', '\t\n\u000b\f\r\u0000', '😀😀😀',
];

describe('schema patterns on a linear-time engine', () => {
  it('answers as RegExp does for patterns both engines can run', () => {
    for (const pattern of PATTERNS) {
      const native = new RegExp(pattern, 'u');
      const linear = linearPattern(pattern, 'u');
      for (const sample of SAMPLES) expect(linear.test(sample), `${pattern} on ${JSON.stringify(sample)}`).to.equal(native.test(sample));
    }
  });

  it('answers as RegExp does on any string, for classes, spaces and any character', () => {
    const patterns = ['^\\s+$', '^\\S+$', '^.$', '^[^\\s]+$', '^[\\d\\s]*$', '^[a-z\\S]$', '\\W'];
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 6 }), fc.constantFrom(...patterns), (text, pattern) => {
      expect(linearPattern(pattern, 'u').test(text), `${pattern} on ${JSON.stringify(text)}`).to.equal(new RegExp(pattern, 'u').test(text));
    }), { numRuns: 500 });
  });

  it('refuses what no linear-time engine can match, saying which construct', () => {
    expect(() => linearPattern('^(a)\\1$', 'u')).to.throw(/backreference/);
    expect(() => linearPattern('^(?<x>a)\\k<x>$', 'u')).to.throw(/backreference/);
    expect(() => linearPattern('^(?=a)a', 'u')).to.throw(/lookahead/);
    expect(() => linearPattern('^(?!a)b', 'u')).to.throw(/lookahead/);
    expect(() => linearPattern('(?<=a)b', 'u')).to.throw(/lookbehind/);
    expect(() => linearPattern('(?<!a)b', 'u')).to.throw(/lookbehind/);
    expect(() => linearPattern('\\uD83D', 'u')).to.throw(/lone surrogate/);
  });

  it('refuses, before compiling it, a pattern whose bounded repeats would make a program too large to compile quickly', () => {
    expect(programEstimate(`^${'\\w{0,99}'.repeat(12)}$`)).to.be.above(MAX_PROGRAM);
    expect(() => linearPattern(`^${'\\w{0,99}'.repeat(12)}$`, 'u')).to.throw(/repeats too much/);
    expect(() => linearPattern('^(a{2,50}){2,50}$', 'u')).to.throw(/repeats too much/);
    expect(() => linearPattern('^[a-z]{1,64}@[a-z]{1,255}$', 'u')).to.not.throw();
  });

  it('refuses a pattern that is not ECMA-262 at all, in V8\'s words', () => {
    expect(() => linearPattern('^(a', 'u')).to.throw(SyntaxError);
    expect(() => linearPattern('a{2,1}', 'u')).to.throw(SyntaxError);
  });

  it('writes ECMA-262\'s line terminators and spaces out for RE2, whose own are narrower', () => {
    expect(toRe2Syntax('.')).to.include('\\x{2028}');
    expect(toRe2Syntax('\\s')).to.include('\\x{feff}');
    expect(toRe2Syntax('[[:alpha:]]')).to.equal('[\\[:alpha:]]');
  });

  it('charges a string\'s length times the pattern\'s size to the call\'s budget, and refuses once it is spent', () => {
    const pattern = linearPattern(`^${'\\w{0,60}'.repeat(12)}$`, 'u');
    const budget = new ValidationBudget(1_000_000);
    withinBudget(budget, () => pattern.test('a'.repeat(100)));
    expect(budget.left).to.equal(1_000_000 - 100 * pattern.size);
    expect(() => withinBudget(budget, () => pattern.test('a'.repeat(5_000)))).to.throw().with.property('code', 'PAYLOAD_TOO_COSTLY');
  });

  it('runs the shapes that stall a backtracking engine in time linear in the string', () => {
    const budget = new ValidationBudget();
    for (const shape of ['^((\\w|\\d))+$', `^${'(?:a|a)?'.repeat(20)}a{20}$`, '^(a+)+$', '^(a|ab|abc)*$']) {
      expect(withinBudget(budget, () => linearPattern(shape, 'u').test(`${'a'.repeat(10_000)}!`)), shape).to.equal(false);
    }
  });
});
