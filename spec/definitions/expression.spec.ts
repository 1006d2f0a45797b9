import { expect } from 'chai';
import { evaluate, ExpressionError, resolveExpression } from '../../lib/definitions/index.js';

describe('the expression evaluator', () => {
  const $parameter = { options: { ignoreCase: true, mode: 'Loose' }, count: 3, list: ['a', 'b'] };

  it('reads parameters and computes with the documented operators', () => {
    expect(evaluate('!$parameter.options.ignoreCase', { $parameter })).to.equal(false);
    expect(evaluate("$parameter.options.ignoreCase ? 'loose' : 'strict'", { $parameter })).to.equal('loose');
    expect(evaluate('$parameter.count * 2 + 1 >= 7 && $parameter.list.length === 2', { $parameter })).to.equal(true);
    expect(evaluate("$parameter['options'].mode.toLowerCase()", { $parameter })).to.equal('loose');
    expect(evaluate('$parameter.missing ?? "fallback"', { $parameter })).to.equal('fallback');
    expect(evaluate('String($parameter.count) + "x"', { $parameter })).to.equal('3x');
  });

  it('resolves templates: one expression gives its value, text with expressions gives text', () => {
    expect(resolveExpression('={{ $value }}', { $value: 42 })).to.equal(42);
    expect(resolveExpression('=https://example.com/d/{{ $value }}/edit', { $value: 'abc' })).to.equal('https://example.com/d/abc/edit');
    expect(resolveExpression('plain', {})).to.equal('plain');
  });

  for (const [label, source] of [
    ['constructor', '$parameter.constructor'],
    ['__proto__', "$parameter['__proto__']"],
    ['prototype', '$parameter.list.prototype'],
    ['process', 'process.exit(1)'],
    ['globalThis', 'globalThis.process'],
    ['this', 'this'],
    ['a function call that is not allowed', '$parameter.list.map(String)'],
    ['a Function constructor through a string', "$parameter.options.mode.constructor('return process')()"],
    ['require', "require('fs')"],
    ['eval', "eval('1')"],
  ] as const) {
    it(`refuses ${label}`, () => {
      expect(() => evaluate(source, { $parameter })).to.throw(ExpressionError);
    });
  }

  it('refuses syntax it does not know, and overlong input', () => {
    for (const source of ['a = 1', '() => 1', '`tpl`', '$parameter.count;1', 'x'.repeat(3000)]) {
      expect(() => evaluate(source, { x: 1, $parameter }), source).to.throw(ExpressionError);
    }
  });
});
