import { expect } from 'chai';
import { createClient, createCluster, createSentinel } from 'redis';
import { hashTagOf, slotPrefix, topologyOf } from '../../lib/redis/topology.js';

describe('Redis topologies: telling the clients apart, and keys that share one slot', () => {
  it('tells a plain client, a cluster and a Sentinel client apart without connecting them', () => {
    expect(topologyOf(createClient({ url: 'redis://127.0.0.1:1' }))).to.equal('single');
    expect(topologyOf(createCluster({ rootNodes: [{ url: 'redis://127.0.0.1:1' }] }))).to.equal('cluster');
    expect(topologyOf(createSentinel({ name: 'primary', sentinelRootNodes: [{ host: '127.0.0.1', port: 1 }] }))).to.equal('sentinel');
  });

  it('finds the hash tag Redis Cluster hashes a key by: the text between the first { and the next }, when not empty', () => {
    expect(hashTagOf('{wwh}:')).to.equal('wwh');
    expect(hashTagOf('app:{wwh}:')).to.equal('wwh');
    expect(hashTagOf('{a}{b}')).to.equal('a');
    expect(hashTagOf('{}wwh:')).to.equal(undefined);
    expect(hashTagOf('wwh:')).to.equal(undefined);
    expect(hashTagOf('{wwh:')).to.equal(undefined);
  });

  it('wraps a prefix without a hash tag on a cluster only, and leaves one with a tag, or on one server or Sentinel, as given', () => {
    expect(slotPrefix('workflow-webhooks:', 'cluster', 'wwh')).to.equal('{workflow-webhooks:}');
    expect(slotPrefix('{wwh}:', 'cluster', 'wwh')).to.equal('{wwh}:');
    expect(slotPrefix('', 'cluster', 'wwh')).to.equal('{wwh}');
    expect(slotPrefix('{}:', 'cluster', 'wwh')).to.equal('{{}:}');
    for (const prefix of ['workflow-webhooks:', '{wwh}:', 'a{b']) {
      expect(hashTagOf(slotPrefix(prefix, 'cluster', 'wwh'))).to.be.a('string');
      expect(slotPrefix(prefix, 'single', 'wwh')).to.equal(prefix);
      expect(slotPrefix(prefix, 'sentinel', 'wwh')).to.equal(prefix);
    }
  });
});
