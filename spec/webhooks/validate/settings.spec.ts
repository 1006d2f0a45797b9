/**
 * The middleware's `schemas` option: Standard Schema validators by name, each checked when the middleware is made,
 * so that a mistake is told at start-up, naming the option, rather than at the first call.
 */
import { expect } from 'chai';
import { z } from 'zod';
import { resolveNamedValidators } from '../../../lib/webhooks/validate/settings.js';

describe('the schemas option of the middleware', () => {
  it('gives no validators when the option is left out', () => {
    const named = resolveNamedValidators(undefined);
    expect(named).to.be.an.instanceOf(Map);
    expect(named.size).to.equal(0);
  });

  it('gives each validator under its name', () => {
    const order = z.object({ name: z.string() });
    const named = resolveNamedValidators({ order });
    expect([...named.keys()]).to.deep.equal(['order']);
    expect(named.get('order')).to.equal(order);
  });

  for (const [what, value] of [['a string', 'order'], ['an empty string', ''], ['an array', []], ['an array of validators', [z.string()]], ['null', null], ['a number', 3]] as const) {
    it(`refuses ${what} in place of an object of validators, naming schemas`, () => {
      expect(() => resolveNamedValidators(value)).to.throw(TypeError, /^workflow-webhooks: option schemas must be an object of Standard Schema validators by name; got /);
    });
  }

  it('refuses a null validator, naming it', () => {
    expect(() => resolveNamedValidators({ order: null })).to.throw(TypeError, /^workflow-webhooks: option schemas\.order must be a validator implementing Standard Schema v1 .*; got null\.$/);
  });

  it('refuses a validator of another Standard Schema version, naming it', () => {
    const order = z.object({ name: z.string() });
    const later = { '~standard': { ...order['~standard'], version: 2 } };
    expect(() => resolveNamedValidators({ fine: order, order: later })).to.throw(TypeError, /option schemas\.order must be a validator implementing Standard Schema v1/);
    expect(() => resolveNamedValidators({ order: { '~standard': { vendor: 'x', version: 1 } } })).to.throw(TypeError, /option schemas\.order must be/);
    expect(() => resolveNamedValidators({ order: { name: 'string' } })).to.throw(TypeError, /option schemas\.order must be/);
  });
});
