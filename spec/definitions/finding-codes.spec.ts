import { expect } from 'chai';
import {
  FINDING_CATALOGUE, FINDING_CODES, validateNodeDescription, validateProperties, type Finding, type FindingCode,
} from '../../lib/definitions/index.js';
import { compileErrors, docTable } from '../support/readme/blocks.js';

/**
 * Codes no short JSON can show: 33 nested levels (too-deep) and a throwing getter (unreadable), both asserted in
 * rules.spec.ts; invalid-structure no input reaches today (see ELSEWHERE there).
 */
const WITHOUT_EXAMPLE = ['invalid-structure', 'too-deep', 'unreadable'];

interface Row { code: string; severity: string; example: string }

/** The rows of the table of codes in the definitions guide (docs/definitions.md): from its header to its last row. */
function rows(): Row[] {
  return docTable('docs/definitions.md', '# Node property definitions', '| code | severity | when | example |')
    .filter((cells) => (cells[0] ?? '').startsWith('`'))
    .map((cells) => ({ code: (cells[0] ?? '').replace(/`/g, ''), severity: cells[1] ?? '', example: (cells[3] ?? '').replace(/^`|`$/g, '') }));
}

function findingsOf(example: string): Finding[] {
  const input = JSON.parse(example) as unknown;
  const result = Array.isArray(input) ? validateProperties(input) : validateNodeDescription(input);
  return [...result.errors, ...result.warnings];
}

/** A tool may switch on a finding's code: the codes are one union, all listed at run time and in README. */
describe('finding codes', () => {
  it('are a union a switch can be exhaustive over', function () {
    this.timeout(30_000);
    // A user's switch over every code listed at run time compiles with nothing left for its default; one code
    // fewer does not (an unused @ts-expect-error is an error of its own), so the type is exactly the list.
    const cases = (codes: readonly string[]): string => codes.map((code) => `    case '${code}':`).join('\n');
    const code = `import type { FindingCode } from 'workflow-webhooks/definitions';
export function every(code: FindingCode): string {
  switch (code) {
${cases(FINDING_CODES)}
      return code;
    default: {
      const unreachable: never = code;
      return unreachable;
    }
  }
}
export function allButOne(code: FindingCode): string {
  switch (code) {
${cases(FINDING_CODES.slice(1))}
      return code;
    default: {
      // @ts-expect-error the code left out reaches the default
      const unreachable: never = code;
      return unreachable;
    }
  }
}
`;
    expect(FINDING_CODES.length).to.be.above(1);
    expect(compileErrors(code)).to.deep.equal([]);
    const { errors } = validateProperties([{ displayName: 'A', name: 'a', type: 'number', default: 'x' }]);
    const found: FindingCode[] = errors.map((finding: Finding) => finding.code);
    expect(found).to.not.be.empty;
    for (const one of found) expect(FINDING_CODES).to.include(one);
  });

  it('each have one row in the table of codes, with the severity the catalogue gives them', () => {
    const documented = rows();
    expect(documented.map((row) => row.code)).to.have.members([...FINDING_CODES]);
    for (const row of documented) expect(row.severity, row.code).to.equal(FINDING_CATALOGUE[row.code as FindingCode]);
  });

  for (const row of rows().filter((candidate) => !WITHOUT_EXAMPLE.includes(candidate.code))) {
    it(`are shown by a working example: ${row.code}`, () => {
      const found = findingsOf(row.example).find((finding) => finding.code === row.code);
      expect(found, JSON.stringify(findingsOf(row.example))).to.not.equal(undefined);
      expect(found?.severity).to.equal(row.severity);
    });
  }

  it('are reported as errors with strict, warnings included', () => {
    const example = [{ displayName: 'A', name: 'a', type: 'string', default: '', required: false }];
    expect(validateProperties(example).valid).to.equal(true);
    expect(validateProperties(example, { strict: true }).errors.map((finding) => [finding.code, finding.severity])).to.deep.equal([['required-false', 'error']]);
  });
});
