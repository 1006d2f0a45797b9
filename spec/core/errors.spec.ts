import { expect } from 'chai';
import { ERROR_CODES, WebhookConflictError, WebhookError } from '../../lib/index.js';
import { toWebhookError } from '../../lib/core/errors.js';
import { docSection } from '../support/readme/blocks.js';

function readmeErrorRows(): Map<string, number> {
  const section = docSection('docs/errors.md', '# Errors');
  const rows = new Map<string, number>();
  for (const match of section.matchAll(/^\| `([A-Z_]+)` \| (\d{3}) \|/gm)) rows.set(match[1] as string, Number(match[2]));
  return rows;
}

describe('the error catalogue', () => {
  it('documents every code with its status in the errors guide (docs/errors.md), and nothing else', () => {
    expect(Object.fromEntries(readmeErrorRows())).to.deep.equal({ ...ERROR_CODES });
  });

  it('gives each error its catalogue status, statusCode and a JSON shape without internals', () => {
    const error = new WebhookError('LIMIT_BODY_SIZE', 'too big', { hint: 'smaller', cause: new Error('inner') });
    expect(error).to.include({ code: 'LIMIT_BODY_SIZE', status: 413, statusCode: 413, expose: true, hint: 'smaller' });
    expect(JSON.parse(JSON.stringify(error))).to.deep.equal({ code: 'LIMIT_BODY_SIZE', message: 'too big', hint: 'smaller' });
    expect(new WebhookError('WORKFLOW_FAILED', 'x').expose).to.equal(false);
  });

  it('wraps anything unknown as INTERNAL_ERROR and keeps WebhookErrors as they are', () => {
    const known = new WebhookConflictError({ method: 'GET', path: 'a', workflowId: 'w', nodeName: 'n' });
    expect(toWebhookError(known)).to.equal(known);
    const wrapped = toWebhookError(new TypeError('secret detail'));
    expect(wrapped.code).to.equal('INTERNAL_ERROR');
    expect(wrapped.message).to.not.include('secret');
  });
});
