import { expect } from 'chai';
import { compileErrors, readmeBlock, USER_OPTIONS } from './support/readme/blocks.js';

/** README's Quick start is what a new user pastes first, so it must compile as printed. */
const quickStart = (): string => readmeBlock('## Quick start');

describe('README\'s Quick start', function () {
  this.timeout(30_000);

  it('compiles as printed under strict, importing the package by its name', () => {
    expect(compileErrors(quickStart())).to.deep.equal([]);
  });

  it('compiles with noUncheckedIndexedAccess too: a typed run has its one trigger item', () => {
    expect(compileErrors(quickStart(), { ...USER_OPTIONS, noUncheckedIndexedAccess: true, exactOptionalPropertyTypes: true })).to.deep.equal([]);
  });

  it('is really checked: a wrong body property is an error', () => {
    const broken = quickStart().replace('.json.body.name', '.json.body.nmae');
    expect(broken).to.not.equal(quickStart());
    expect(compileErrors(broken).join('\n')).to.match(/nmae/);
  });
});
