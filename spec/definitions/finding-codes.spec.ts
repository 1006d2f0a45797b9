import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { FINDING_CODES, validateProperties, type Finding, type FindingCode } from '../../lib/definitions/index.js';

/** A tool may switch on a finding's code: the codes are one union, all listed at run time and in README. */
describe('finding codes', () => {
  it('are a union a switch can be exhaustive over', () => {
    const severityOf = (code: FindingCode): 'documented' => {
      switch (code) {
        case 'wrong-type': return 'documented';
        default: {
          const other: Exclude<FindingCode, 'wrong-type'> = code;
          return other === code ? 'documented' : 'documented';
        }
      }
    };
    const { errors } = validateProperties([{ displayName: 'A', name: 'a', type: 'number', default: 'x' }]);
    const codes: FindingCode[] = errors.map((finding: Finding) => finding.code);
    expect(codes.map(severityOf)).to.not.be.empty;
    for (const code of codes) expect(FINDING_CODES).to.include(code);
  });

  it('are each explained in README\'s table of codes', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const table = readme.slice(readme.indexOf('| code | severity | when |'), readme.indexOf('`applyHintDefaults(hint)`'));
    const missing = FINDING_CODES.filter((code) => !table.includes(`\`${code}\``));
    expect(missing).to.deep.equal([]);
  });
});
