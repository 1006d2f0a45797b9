/**
 * The registry conformance suite, waits (waiting webhooks), for registries that keep them (their harness says so):
 * a claim takes a waiting entry once, whatever races it; an expired entry is neither claimed nor kept from its expiry
 * notice; `maxWaiting` holds under racing puts. Expiry is the store's own, met by polling, never by sleeping.
 */
import { expect } from 'chai';
import type { WaitClaim, WaitEntry, WebhookRegistry } from 'workflow-webhooks';
import { rejectionOf, type RegistryFixture } from './fixture.js';
import { eventually } from './instances.js';

type Waits = WebhookRegistry & Required<Pick<WebhookRegistry, 'putWait' | 'getWait' | 'claimWait' | 'onWaitExpired'>>;

function waits(registry: WebhookRegistry): Waits {
  for (const member of ['putWait', 'getWait', 'claimWait', 'onWaitExpired'] as const) {
    expect(registry[member], `the harness says this registry keeps waits: ${member}`).to.be.a('function');
  }
  return registry as Waits;
}

function entry(waitId: string, expiresInMs: number, status: WaitEntry['status'] = 'waiting'): WaitEntry {
  const now = Date.now();
  return {
    waitId, status, expiresAt: now + expiresInMs, workflowId: 'wf', workflowName: 'Approvals', nodeName: 'Wait', mode: 'production',
    startedAt: now, form: 'suspended', state: { order: 7 },
  };
}

/** Polls until the store no longer gives the wait: its expiry as the store itself measures it. */
async function expired(registry: Waits, waitId: string): Promise<void> {
  await eventually(async () => (await registry.getWait(waitId)) === undefined, 5000);
}

export function describeWaits(fixture: RegistryFixture, hasPeers: boolean): void {
  describe('waits (putWait, getWait, claimWait)', () => {
    it('lets a call claim a waiting run once: it runs from then on, and a second claim gets it as the first left it', async () => {
      const registry = waits(fixture.registry);
      const stored = entry('approve', 60_000);
      expect(await registry.putWait(stored)).to.equal(true);
      const resumedAt = stored.startedAt + 5;
      const running = { ...stored, status: 'running', resumedAt };
      expect(await registry.claimWait('approve', resumedAt)).to.deep.equal({ claimed: true, entry: running });
      expect(await registry.getWait('approve')).to.deep.equal(running);
      expect(await registry.claimWait('approve', resumedAt + 1)).to.deep.equal({ claimed: false, entry: running });
      expect(await registry.getWait('approve'), 'the refused claim changed nothing').to.deep.equal(running);
    });

    it('finds nothing to claim for a wait it never stored', async () => {
      const registry = waits(fixture.registry);
      expect(await registry.claimWait('unknown', Date.now())).to.deep.equal({ claimed: false, entry: undefined });
    });

    it(`lets exactly one of 20 racing claims win${hasPeers ? ', spread over two instances' : ''}`, async () => {
      const registry = waits(fixture.registry);
      const instances = hasPeers ? [registry, waits(await fixture.peer())] : [registry];
      await registry.putWait(entry('raced', 60_000));
      const claims: WaitClaim[] = await Promise.all(Array.from({ length: 20 }, (_, index) =>
        (instances[index % instances.length] as Waits).claimWait('raced', 1000 + index)));
      const winners = claims.filter((claim) => claim.claimed);
      expect(winners).to.have.length(1);
      const won = winners[0]?.entry as WaitEntry;
      for (const lost of claims.filter((claim) => !claim.claimed)) expect(lost.entry).to.deep.equal(won);
    });

    it('lets a claim given back (only while it still stands) be claimed again', async () => {
      const registry = waits(fixture.registry);
      const stored = entry('retry', 60_000);
      await registry.putWait(stored);
      expect((await registry.claimWait('retry', 1)).claimed).to.equal(true);
      expect(await registry.putWait(stored, 'running'), 'given back while running').to.equal(true);
      expect((await registry.claimWait('retry', 2)).claimed).to.equal(true);
      await registry.putWait({ ...stored, status: 'finished' });
      expect(await registry.putWait(stored, 'running'), 'a give-back after the run finished').to.equal(false);
      expect((await registry.claimWait('retry', 3)).entry?.status).to.equal('finished');
    });

    it('refuses to claim a run whose wait expired, as a wait it does not know', async function () {
      this.timeout(10_000);
      const registry = waits(fixture.registry);
      await registry.putWait(entry('lapsed', 200));
      expect((await registry.getWait('lapsed'))?.status).to.equal('waiting');
      await expired(registry, 'lapsed');
      // Claimed at once: the store's once-a-second sweep has most likely not removed it yet, so the claim meets it.
      expect(await registry.claimWait('lapsed', Date.now())).to.deep.equal({ claimed: false, entry: undefined });
    });

    it('still tells of a wait that expired with nobody calling in time, though a call came too late', async function () {
      this.timeout(10_000);
      const registry = waits(fixture.registry);
      const heard: string[] = [];
      const stop = registry.onWaitExpired((lapsed) => { heard.push(lapsed.waitId); });
      try {
        await registry.putWait(entry('too-late', 200));
        await expired(registry, 'too-late');
        expect((await registry.claimWait('too-late', Date.now())).claimed).to.equal(false);
        await eventually(() => Promise.resolve(heard.length > 0), 5000);
        expect(heard).to.deep.equal(['too-late']);
      } finally {
        stop();
      }
    });

    it('holds maxWaiting under 60 racing puts: exactly that many are stored, the others refused with TOO_MANY_WAITING', async () => {
      const registry = waits(await fixture.withMaxWaiting(5));
      const outcomes = await Promise.allSettled(Array.from({ length: 60 }, (_, index) => registry.putWait(entry(`w${index}`, 60_000))));
      const stored = outcomes.filter((outcome) => outcome.status === 'fulfilled');
      expect(stored.map((outcome) => outcome.value)).to.deep.equal([true, true, true, true, true]);
      const refused = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason as { code?: string }] : []));
      expect(refused.map((error) => error.code)).to.deep.equal(Array.from({ length: 55 }, () => 'TOO_MANY_WAITING'));
      const kept = await Promise.all(Array.from({ length: 60 }, (_, index) => registry.getWait(`w${index}`)));
      expect(kept.filter((found) => found !== undefined)).to.have.length(5);
    });

    it('counts a replaced wait once, and an expired one no more', async function () {
      this.timeout(10_000);
      const registry = waits(await fixture.withMaxWaiting(2));
      await registry.putWait(entry('stays', 60_000));
      await registry.putWait(entry('lapses', 200));
      expect(await registry.putWait(entry('stays', 60_000, 'running')), 'a replacement at the limit').to.equal(true);
      expect((await rejectionOf(registry.putWait(entry('third', 60_000)))).code).to.equal('TOO_MANY_WAITING');
      await expired(registry, 'lapses');
      expect(await registry.putWait(entry('third', 60_000))).to.equal(true);
    });
  });
}
