/**
 * The registry conformance suite, signed message ids, for registries that offer the optional `rememberMessageId`
 * (their harness says so): "new" exactly once per id until the id expires, in one atomic step, for all instances.
 */
import { expect } from 'chai';
import type { WebhookRegistry } from 'workflow-webhooks';
import type { RegistryFixture } from './fixture.js';

type Remembering = WebhookRegistry & Required<Pick<WebhookRegistry, 'rememberMessageId'>>;

function remembering(registry: WebhookRegistry): Remembering {
  expect(registry.rememberMessageId, 'the harness says this registry remembers message ids').to.be.a('function');
  return registry as Remembering;
}

export function describeMessageIds(fixture: RegistryFixture, hasPeers: boolean): void {
  describe('rememberMessageId()', () => {
    it('says an id is new once, and again only after it expired', async () => {
      const registry = remembering(fixture.registry);
      expect(await registry.rememberMessageId('wf/msg_1', 200)).to.equal(true);
      expect(await registry.rememberMessageId('wf/msg_1', 200)).to.equal(false);
      expect(await registry.rememberMessageId('wf/msg_2', 200)).to.equal(true);
      await new Promise((resolve) => setTimeout(resolve, 260));
      expect(await registry.rememberMessageId('wf/msg_1', 200)).to.equal(true);
    });

    it('says "new" to exactly one of many racing callers, whichever instance they ask', async () => {
      const registry = remembering(fixture.registry);
      const all = [registry, ...(hasPeers ? [await fixture.peer(), await fixture.peer()].map(remembering) : [])];
      const answers = await Promise.all(Array.from({ length: 60 }, (_, index) => (all[index % all.length] as Remembering).rememberMessageId('wf/race', 10_000)));
      expect(answers.filter(Boolean)).to.have.length(1);
    });
  });
}
