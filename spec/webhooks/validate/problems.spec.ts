/**
 * What a refused call is told about where it did not match: JSON pointers into the call, what each place must be,
 * a short list without repeats, and a 422 message that names the parts of the call that were refused.
 */
import { expect } from 'chai';
import type { StandardSchemaIssue } from '../../../lib/index.js';
import { MAX_PROBLEMS, Problems } from '../../../lib/webhooks/validate/problems.js';

describe('the problems a refused call is told', () => {
  it('escapes ~ and / in the keys of a Standard Schema path, as a JSON pointer must', () => {
    const problems = new Problems();
    problems.addStandardIssues('body', [{ message: 'must be a number', path: ['a/b', { key: 'c~d' }, 0, 'e~/f'] }], undefined);
    expect(problems.list).to.deep.equal([{ path: '/body/a~1b/c~0d/0/e~0~1f', message: 'must be a number' }]);
  });

  it('points a missing property at the property itself, saying it is required', () => {
    const problems = new Problems();
    problems.addJsonIssues('body', [
      { instancePath: '/order', keyword: 'required', message: "must have required property 'id'", params: { missingProperty: 'id' } },
      { instancePath: '', keyword: 'required', message: "must have required property 'x/y'", params: { missingProperty: 'x/y' } },
    ]);
    expect(problems.list).to.deep.equal([{ path: '/body/order/id', message: 'is required' }, { path: '/body/x~1y', message: 'is required' }]);
  });

  it('keeps ajv\'s own message for other keywords and names the keyword when there is none', () => {
    const problems = new Problems();
    problems.addJsonIssues('query', [
      { instancePath: '/page', keyword: 'minimum', message: 'must be >= 1', params: { limit: 1 } },
      { instancePath: '/size', keyword: 'multipleOf', params: {} },
      { instancePath: '', keyword: 'required', message: 'must have a required property', params: {} },
    ]);
    expect(problems.list).to.deep.equal([
      { path: '/query/page', message: 'must be >= 1' },
      { path: '/query/size', message: 'must pass "multipleOf"' },
      { path: '/query', message: 'must have a required property' },
    ]);
  });

  it('says a place is not valid when a Standard Schema validator gave no message', () => {
    const problems = new Problems();
    problems.addStandardIssues('headers', [
      { message: '', path: ['x-tenant'] },
      { message: undefined, path: ['x-plan'] } as unknown as StandardSchemaIssue,
    ], { 'x-tenant': 'a', 'x-plan': 'b' });
    expect(problems.list).to.deep.equal([
      { path: '/headers/x-tenant', message: 'is not valid' },
      { path: '/headers/x-plan', message: 'is not valid' },
    ]);
  });

  it('answers nothing when no place was found', () => {
    const problems = new Problems();
    problems.addJsonIssues('body', null);
    problems.addStandardIssues('query', [], {});
    expect(problems.error()).to.equal(undefined);
  });

  it('names the one part refused, and says what to send', () => {
    const problems = new Problems();
    problems.add('body', '/body/name', 'must be string');
    const error = problems.error();
    expect(error?.message).to.equal("The call's body does not match the webhook's schema.");
    const headers = new Problems();
    headers.add('headers', '/headers/x-tenant', 'must be string');
    expect(headers.error()?.message).to.equal("The call's headers do not match the webhook's schema.");
    expect(error?.toJSON()).to.deep.include({
      code: 'PAYLOAD_INVALID',
      errors: [{ path: '/body/name', message: 'must be string' }],
      hint: 'Send what the schema describes: each entry of errors is a place in the call (a JSON pointer into /body, /query or /headers) and what it must be.',
    });
  });

  it('names two or three parts refused together', () => {
    const two = new Problems();
    two.add('body', '/body/name', 'must be string');
    two.add('query', '/query/page', 'must be integer');
    expect(two.error()?.message).to.equal("The call's body and query do not match the webhook's schema.");
    const three = new Problems();
    three.add('body', '/body/name', 'must be string');
    three.add('query', '/query/page', 'must be integer');
    three.add('headers', '/headers/x-tenant', 'must be string');
    expect(three.error()?.message).to.equal("The call's body, query and headers do not match the webhook's schema.");
  });

  it('lists a place with the same message once, but the same place with another message again', () => {
    const problems = new Problems();
    problems.add('body', '/body/name', 'must be string');
    problems.add('body', '/body/name', 'must be string');
    problems.add('body', '/body/name', 'must match pattern');
    problems.add('body', '/body/other', 'must be string');
    expect(problems.list).to.deep.equal([
      { path: '/body/name', message: 'must be string' },
      { path: '/body/name', message: 'must match pattern' },
      { path: '/body/other', message: 'must be string' },
    ]);
  });

  it(`lists at most ${MAX_PROBLEMS} places, yet still names every part refused`, () => {
    const problems = new Problems();
    problems.addJsonIssues('body', Array.from({ length: MAX_PROBLEMS + 5 }, (_, index) => ({ instancePath: `/items/${index}`, keyword: 'type', message: 'must be string', params: {} })));
    problems.addStandardIssues('query', [{ message: 'must be a number', path: ['page'] }], { page: 'x' });
    problems.add('headers', '/headers/x-tenant', 'must be string');
    expect(problems.list).to.have.length(MAX_PROBLEMS);
    expect(problems.list.at(-1)).to.deep.equal({ path: `/body/items/${MAX_PROBLEMS - 1}`, message: 'must be string' });
    expect(problems.error()?.message).to.equal("The call's body, query and headers do not match the webhook's schema.");
  });

  it('stops reading a validator\'s issues once the list is full', () => {
    const problems = new Problems();
    const issues: StandardSchemaIssue[] = Array.from({ length: MAX_PROBLEMS }, (_, index) => ({ message: 'must be a number', path: [index] }));
    issues.push({ message: 'unread', get path(): never { throw new Error('an issue past a full list was read'); } });
    expect(() => problems.addStandardIssues('body', issues, [])).not.to.throw();
    expect(problems.list).to.have.length(MAX_PROBLEMS);
  });
});
