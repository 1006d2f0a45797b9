import { expect } from 'chai';
import { resolveQueueOptions } from '../../lib/queue/options.js';

describe('queue mode options', () => {
  it('takes inlineBinaryBytes as a size string too, and names the option when it is malformed', () => {
    expect(resolveQueueOptions({ connection: 'redis://127.0.0.1:1' }).inlineBinaryBytes).to.equal(1024 * 1024);
    expect(resolveQueueOptions({ connection: 'redis://127.0.0.1:1', inlineBinaryBytes: '256kb' }).inlineBinaryBytes).to.equal(256 * 1024);
    expect(resolveQueueOptions({ connection: 'redis://127.0.0.1:1', inlineBinaryBytes: 0 }).inlineBinaryBytes).to.equal(0);
    expect(() => resolveQueueOptions({ connection: 'redis://127.0.0.1:1', inlineBinaryBytes: 'lots' })).to.throw(TypeError, /inlineBinaryBytes/);
  });
});
