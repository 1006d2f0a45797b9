/**
 * The registry conformance suite, the deployment's digest key, for registries that keep one in their store (the
 * optional `digestKey`; their harness says so): one key of at least 32 bytes for every instance over a store, so that
 * they count a caller under one budget, and another key for another store.
 */
import { expect } from 'chai';
import type { WebhookRegistry } from 'workflow-webhooks';
import type { RegistryFixture } from './fixture.js';

function keyOf(registry: WebhookRegistry): Buffer {
  expect(registry.digestKey, 'the harness says this registry keeps a digest key').to.be.a('function');
  const key = registry.digestKey?.();
  expect(Buffer.isBuffer(key), 'a loaded registry has its key').to.equal(true);
  return key as Buffer;
}

export function describeDigestKey(fixture: RegistryFixture, hasPeers: boolean): void {
  describe('digestKey()', () => {
    it('gives every instance over one store the same key of at least 32 bytes', async () => {
      const key = keyOf(fixture.registry);
      expect(key.length).to.be.at.least(32);
      const peers = hasPeers ? [await fixture.peer(), await fixture.peer()] : [];
      expect(peers.map((peer) => keyOf(peer).toString('hex'))).to.deep.equal(peers.map(() => key.toString('hex')));
    });

    it('gives a registry over another store another key', async () => {
      const other = keyOf(await fixture.another());
      expect(other.length).to.be.at.least(32);
      expect(other.toString('hex')).to.not.equal(keyOf(fixture.registry).toString('hex'));
    });
  });
}
