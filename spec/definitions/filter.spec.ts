import { expect } from 'chai';
import { FILTER_OPTION_DEFAULTS, FILTER_OPTION_EXPRESSIONS, resolveFilterOptions, resolveFilterTypeOptions } from '../../lib/definitions/index.js';

describe('filter options', () => {
  it('defaults ignoreCase and looseTypeValidation to true', () => {
    expect(FILTER_OPTION_DEFAULTS).to.deep.equal({ ignoreCase: true, looseTypeValidation: true });
    expect(resolveFilterOptions()).to.deep.equal({ caseSensitive: false, typeValidation: 'loose' });
  });

  for (const ignoreCase of [true, false]) {
    for (const looseTypeValidation of [true, false]) {
      it(`gives the same answer by function and by expression for ignoreCase ${ignoreCase}, looseTypeValidation ${looseTypeValidation}`, () => {
        const expected = { caseSensitive: !ignoreCase, typeValidation: looseTypeValidation ? 'loose' : 'strict' };
        expect(resolveFilterOptions({ ignoreCase, looseTypeValidation })).to.deep.equal(expected);
        expect(resolveFilterTypeOptions(FILTER_OPTION_EXPRESSIONS, { options: { ignoreCase, looseTypeValidation } })).to.deep.equal(expected);
      });
    }
  }

  it('applies the defaults when the options collection is empty', () => {
    expect(resolveFilterTypeOptions(FILTER_OPTION_EXPRESSIONS, {})).to.deep.equal({ caseSensitive: false, typeValidation: 'loose' });
  });
});
