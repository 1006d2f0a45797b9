import { expect } from 'chai';
import { applyHintDefaults, executionOutput, resolveHints } from '../../lib/definitions/index.js';

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

describe('resolveHints()', () => {
  const hints = [
    { message: 'always, both panes' },
    { message: 'input only', location: 'inputPane' as const },
    { message: 'after the run, output', location: 'outputPane' as const, whenToDisplay: 'afterExecution' as const },
    { message: 'before the run', whenToDisplay: 'beforeExecution' as const, location: 'ndv' as const },
    { message: 'when many', displayCondition: '={{ $parameter.limit > 100 }}' },
    { message: 'broken condition', displayCondition: '={{ process.exit() }}' },
  ];

  it('shows what fits the stage and the pane, with defaults applied', () => {
    expect(resolveHints(hints, { stage: 'beforeExecution', location: 'inputPane', parameters: { limit: 5 } }).map((h) => h.message))
      .to.deep.equal(['always, both panes', 'input only', 'before the run']);
    expect(resolveHints(hints, { stage: 'afterExecution', location: 'outputPane', parameters: { limit: 500 } }).map((h) => h.message))
      .to.deep.equal(['always, both panes', 'after the run, output', 'when many']);
  });
});

describe('executionOutput()', () => {
  it('carries hints next to the data, or gives the plain data when none apply', () => {
    const data = [[{ json: { a: 1 } }]];
    expect(executionOutput(data, [{ message: 'Took the slow path', location: 'outputPane' }])).to.deep.equal({ data, hints: [{ message: 'Took the slow path', location: 'outputPane' }] });
    expect(executionOutput(data, [])).to.equal(data);
  });
});
