import { expect } from 'chai';
import { compileErrors, docBlock } from './support/readme/blocks.js';

/** The Redis topologies section of docs/instances.md is copied as printed: the cluster, Sentinel and queue setups compile under strict. */
describe('the instances guide\'s Redis topologies section', function () {
  this.timeout(60_000);

  it('the registry on a Redis Cluster compiles as printed', () => {
    expect(compileErrors(docBlock('docs/instances.md', '## Redis topologies', 0))).to.deep.equal([]);
  });

  it('the registry and the call log behind Sentinel compile as printed', () => {
    expect(compileErrors(docBlock('docs/instances.md', '## Redis topologies', 1))).to.deep.equal([]);
  });

  it('queue mode and its worker on a cluster, with replica acknowledgement, compile as printed', () => {
    expect(compileErrors(docBlock('docs/instances.md', '## Redis topologies', 2))).to.deep.equal([]);
  });

  it('is really checked: a client the registry cannot take is an error', () => {
    const broken = docBlock('docs/instances.md', '## Redis topologies', 1).replace('new RedisCallLog({ client: sentinel', 'new RedisCallLog({ client: 42');
    expect(compileErrors(broken).join('\n')).to.match(/number/);
  });
});
