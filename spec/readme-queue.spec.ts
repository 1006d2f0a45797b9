import { expect } from 'chai';
import { compileErrors, docBlock, docSection } from './support/readme/blocks.js';

/**
 * The queue mode guide (docs/queue.md) is copied as printed: each of its TypeScript blocks is a file of its own that compiles
 * under strict (a block that leans on a name defined elsewhere, as `middleware` once was, fails here).
 */
const section = (): string => docSection('docs/queue.md', '# Queue mode');

describe('the queue mode guide', function () {
  this.timeout(60_000);

  it('has three TypeScript blocks: the web instance with its worker, the same on PostgreSQL, and bull-board', () => {
    expect(section().match(/```ts\n/g)).to.have.length(3);
  });

  it('the web instance with its worker and their shutdown compiles as printed', () => {
    expect(compileErrors(docBlock('docs/queue.md', '# Queue mode', 0))).to.deep.equal([]);
  });

  it('the set-up on PostgreSQL, registry, queue, worker and binary store on one database, compiles as printed', () => {
    expect(compileErrors(docBlock('docs/queue.md', '# Queue mode', 1))).to.deep.equal([]);
  });

  it('the bull-board recipe, behind its own authentication, compiles as printed', () => {
    expect(compileErrors(docBlock('docs/queue.md', '# Queue mode', 2))).to.deep.equal([]);
  });

  it('is really checked: a name the block does not define is an error', () => {
    const broken = docBlock('docs/queue.md', '# Queue mode', 0).replace('const middleware = ', 'const webhooks = ');
    expect(compileErrors(broken).join('\n')).to.match(/middleware/);
  });
});
