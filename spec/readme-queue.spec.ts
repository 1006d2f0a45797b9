import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileErrors, readmeBlock, ROOT } from './support/readme/blocks.js';

/**
 * README's Queue mode section is copied as printed: each of its TypeScript blocks is a file of its own that compiles
 * under strict (a block that leans on a name defined elsewhere, as `middleware` once was, fails here).
 */
const section = (): string => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('\n## Queue mode');
  return readme.slice(start, readme.indexOf('\n## ', start + 1));
};

describe('README\'s Queue mode section', function () {
  this.timeout(60_000);

  it('has two TypeScript blocks: the web instance with its worker, and bull-board', () => {
    expect(section().match(/```ts\n/g)).to.have.length(2);
  });

  it('the web instance with its worker and their shutdown compiles as printed', () => {
    expect(compileErrors(readmeBlock('## Queue mode', 0))).to.deep.equal([]);
  });

  it('the bull-board recipe, behind its own authentication, compiles as printed', () => {
    expect(compileErrors(readmeBlock('## Queue mode', 1))).to.deep.equal([]);
  });

  it('is really checked: a name the block does not define is an error', () => {
    const broken = readmeBlock('## Queue mode', 0).replace('const middleware = ', 'const webhooks = ');
    expect(compileErrors(broken).join('\n')).to.match(/middleware/);
  });
});
