import { expect } from 'chai';
import { compileErrors, docBlock } from '../../support/readme/blocks.js';

/** The history guide's code is what a user copies first: it must compile as printed, under strict. */
describe('the history guide\'s code', function () {
  this.timeout(60_000);

  it('compiles as printed under strict: the middleware with a history store, and a bulk replay after a fix', () => {
    expect(compileErrors(docBlock('docs/history.md', '# Call history and replay'))).to.deep.equal([]);
  });

  it('compiles the finding and replaying examples given a middleware with history', () => {
    const prelude = `import type { HistoryEntry, WebhookHistory } from 'workflow-webhooks';\ndeclare const history: WebhookHistory;\ndeclare const entry: HistoryEntry;\n`;
    expect(compileErrors(prelude + docBlock('docs/history.md', '## Finding calls'))).to.deep.equal([]);
    expect(compileErrors(prelude + docBlock('docs/history.md', '## Replaying calls'))).to.deep.equal([]);
  });
});
