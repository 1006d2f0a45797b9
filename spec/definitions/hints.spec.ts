import { expect } from 'chai';
import { applyHintDefaults } from '../../lib/definitions/index.js';

describe('applyHintDefaults()', () => {
  it('gives a bare hint the spec\'s defaults: info, both panes, always, shown', () => {
    expect(applyHintDefaults({ message: 'Check the <b>limit</b>' })).to.deep.equal({
      message: 'Check the <b>limit</b>', type: 'info', locations: ['inputPane', 'outputPane'], whenToDisplay: 'always', displayCondition: true,
    });
  });

  it('keeps what the hint sets', () => {
    expect(applyHintDefaults({ message: 'm', type: 'danger', location: 'ndv', whenToDisplay: 'afterExecution', displayCondition: '={{ true }}' }))
      .to.deep.equal({ message: 'm', type: 'danger', locations: ['ndv'], whenToDisplay: 'afterExecution', displayCondition: '={{ true }}' });
  });
});
