/**
 * The registry conformance suite, what the console lists, for registries that offer the optional
 * `listTestWebhooks()` and `listWaits()` (their harness says so): the test webhooks listening now with their listen
 * and its end, and the runs waiting for a call, soonest expiry first.
 */
import { expect } from 'chai';
import type { ListedTestWebhook, RegisteredWebhook, WaitEntry, WebhookRegistry } from 'workflow-webhooks';
import { runFor, workflowOf, type RegistryFixture } from './fixture.js';
import { eventually } from './instances.js';

type Listing = WebhookRegistry & Required<Pick<WebhookRegistry, 'listTestWebhooks'>>;
type WaitListing = WebhookRegistry & Required<Pick<WebhookRegistry, 'listWaits' | 'putWait'>>;

function listing(registry: WebhookRegistry): Listing {
  expect(registry.listTestWebhooks, 'the harness says this registry lists test webhooks').to.be.a('function');
  return registry as Listing;
}

function waitListing(registry: WebhookRegistry): WaitListing {
  expect(registry.listWaits, 'the harness says this registry lists waits').to.be.a('function');
  expect(registry.putWait, 'a registry that lists waits stores them').to.be.a('function');
  return registry as WaitListing;
}

const byAddress = (a: RegisteredWebhook, b: RegisteredWebhook): number => `${a.method} ${a.path}`.localeCompare(`${b.method} ${b.path}`);

/** `kind workflowId node method path`, sorted: what a listing holds, without the parameters. */
const addresses = (webhooks: readonly RegisteredWebhook[]): string[] =>
  webhooks.map((w) => `${w.kind} ${w.workflowId} ${w.nodeName} ${w.method} ${w.path}`).sort();

export function describeTestWebhookListing(fixture: RegistryFixture, hasPeers: boolean): void {
  describe('listTestWebhooks()', () => {
    const twoNodes = {
      workflowId: 'wf', workflowName: 'Signup',
      nodes: [
        { name: 'Both', parameters: { path: 'signup/:step', multipleMethods: true } },
        { name: 'Post', parameters: { path: 'confirm', httpMethod: 'POST' as const } },
      ],
    };

    it('lists every listening test webhook, one per node and method, with its listen\'s id and end', async () => {
      const registry = listing(fixture.registry);
      expect(await registry.listTestWebhooks()).to.deep.equal([]);
      await registry.activate(workflowOf('wf-live', { path: 'live' }));
      const handle = await registry.listenForTest(twoNodes);
      const listed = await registry.listTestWebhooks();
      expect(addresses(listed)).to.deep.equal(['test wf Both GET signup/:step', 'test wf Both POST signup/:step', 'test wf Post POST confirm']);
      expect(listed.map((w) => [w.listenId, w.expiresAt])).to.deep.equal(listed.map(() => [handle.listenId, handle.expiresAt]));
      const asRegistered = listed.map(({ expiresAt: _expiresAt, ...webhook }) => webhook).sort(byAddress);
      expect(asRegistered).to.deep.equal([...handle.webhooks].sort(byAddress));
      await handle.cancel();
    });

    it('no longer lists a listen once a call claimed it, nor once it was cancelled', async () => {
      const registry = listing(fixture.registry);
      const claimed = await registry.listenForTest(workflowOf('wf-1', { path: 'one', httpMethod: 'POST' }));
      const cancelled = await registry.listenForTest(workflowOf('wf-2', { path: 'two', httpMethod: 'POST' }));
      expect(addresses(await registry.listTestWebhooks())).to.deep.equal(['test wf-1 Webhook POST one', 'test wf-2 Webhook POST two']);
      const webhook = claimed.webhooks[0] as RegisteredWebhook;
      const claim = await registry.claimTestCall(webhook);
      expect(claim).to.not.equal(undefined);
      claim?.arrived(runFor(webhook));
      expect((await registry.listTestWebhooks()).map((w) => w.listenId)).to.deep.equal([cancelled.listenId]);
      await cancelled.cancel();
      expect(await registry.listTestWebhooks()).to.deep.equal([]);
      claim?.settled({ output: { items: [] } });
      expect((await claimed.result).status).to.equal('received');
    });

    it('no longer lists a listen whose window ended', async () => {
      const registry = listing(fixture.registry);
      const handle = await registry.listenForTest(workflowOf('wf', { path: 'brief' }), { timeoutMs: 60 });
      expect((await registry.listTestWebhooks()).map((w) => w.listenId)).to.deep.equal([handle.listenId]);
      expect(await handle.result).to.deep.equal({ status: 'timedOut' });
      expect(await registry.listTestWebhooks()).to.deep.equal([]);
    });

    if (hasPeers) {
      it('lists on every instance the listens of the others, until one ends them', async () => {
        const other = listing(await fixture.peer());
        const handle = await fixture.registry.listenForTest(twoNodes);
        let listed: ListedTestWebhook[] = [];
        await eventually(async () => (listed = await other.listTestWebhooks()).length === 3);
        expect(listed.map((w) => w.listenId)).to.deep.equal([handle.listenId, handle.listenId, handle.listenId]);
        for (const webhook of listed) expect(webhook.expiresAt).to.be.closeTo(handle.expiresAt, 1000);
        await handle.cancel();
        await eventually(async () => (await other.listTestWebhooks()).length === 0);
      });
    }
  });
}

export function describeWaitListing(fixture: RegistryFixture): void {
  describe('listWaits()', () => {
    let now = 0;
    beforeEach(() => { now = Date.now(); });
    const entry = (waitId: string, status: WaitEntry['status'], inMs: number): WaitEntry => ({
      waitId, status, expiresAt: now + inMs, workflowId: 'wf', workflowName: 'Approvals', nodeName: 'Wait', mode: 'production',
      startedAt: now, form: 'suspended', state: { waitId },
    });
    const idsOf = (entries: WaitEntry[]): string[] => entries.map((listed) => listed.waitId);

    it('lists the waiting entries, soonest expiry first, and never a running or finished one', async () => {
      const registry = waitListing(fixture.registry);
      expect(await registry.listWaits()).to.deep.equal([]);
      for (const put of [entry('late', 'waiting', 60_000), entry('soon', 'waiting', 30_000), entry('running', 'running', 10_000), entry('done', 'finished', 5000)]) {
        expect(await registry.putWait(put)).to.equal(true);
      }
      const listed = await registry.listWaits();
      expect(idsOf(listed)).to.deep.equal(['soon', 'late']);
      expect(listed[0]).to.deep.equal(entry('soon', 'waiting', 30_000));
      await registry.putWait({ ...entry('soon', 'running', 30_000), resumedAt: now });
      expect(idsOf(await registry.listWaits())).to.deep.equal(['late']);
    });

    it('no longer lists an entry once it expired', async function () {
      this.timeout(15_000);
      const registry = waitListing(fixture.registry);
      // Two seconds: long enough that a loaded machine still lists it before it expires; looked at until it is gone.
      await registry.putWait(entry('brief', 'waiting', 2000));
      await registry.putWait(entry('stays', 'waiting', 60_000));
      expect(idsOf(await registry.listWaits())).to.deep.equal(['brief', 'stays']);
      let listed: string[] = [];
      for (const until = Date.now() + 8000; Date.now() < until; await new Promise((resolve) => setTimeout(resolve, 100))) {
        listed = idsOf(await registry.listWaits());
        if (listed.length === 1) break;
      }
      expect(listed).to.deep.equal(['stays']);
    });

    it('lists at most `limit`: the soonest waiting ones, whatever runs between them', async () => {
      const registry = waitListing(fixture.registry);
      for (const put of [entry('r1', 'running', 1000), entry('a', 'waiting', 2000), entry('r2', 'running', 3000), entry('b', 'waiting', 4000), entry('c', 'waiting', 5000)]) {
        await registry.putWait(put);
      }
      expect(idsOf(await registry.listWaits({ limit: 2 }))).to.deep.equal(['a', 'b']);
      expect(idsOf(await registry.listWaits({ limit: 1 }))).to.deep.equal(['a']);
      expect(idsOf(await registry.listWaits({ limit: 100_000 }))).to.deep.equal(['a', 'b', 'c']);
    });

    it('lists 1000 by default', async () => {
      const registry = waitListing(fixture.registry);
      await Promise.all(Array.from({ length: 1001 }, (_, index) => registry.putWait(entry(`w${String(index).padStart(4, '0')}`, 'waiting', 60_000 + index))));
      const listed = await registry.listWaits();
      expect(listed).to.have.length(1000);
      expect([listed[0]?.waitId, listed[999]?.waitId]).to.deep.equal(['w0000', 'w0999']);
    });

    it('refuses a limit that is not a whole number from 1 to 100 000 with a TypeError', async () => {
      const registry = waitListing(fixture.registry);
      for (const limit of [0, -1, 1.5, 100_001, Number.NaN, '5' as never]) {
        let thrown: unknown;
        try {
          await registry.listWaits({ limit });
        } catch (error) {
          thrown = error;
        }
        expect(thrown, `limit ${String(limit)}`).to.be.instanceOf(TypeError);
        expect((thrown as Error).message).to.include('limit must be a whole number from 1 to 100000');
      }
    });
  });
}
