/**
 * The registry contract for test webhooks: one call per listen within its window, claimed by exactly one caller,
 * and the reasons a test address does not listen.
 */
import { expect } from 'chai';
import {
  WebhookConflictError,
  WebhookError,
  type RegisteredWebhook,
  type TestListenEvent,
  type WebhookLookup,
} from 'workflow-webhooks';
import { rejectionOf, runFor, workflowOf, type RegistryFixture } from './fixture.js';

export function describeTestListens(fixture: RegistryFixture): void {
  describe('listenForTest() and claimTestCall()', () => {
    const hook = workflowOf('wf', { path: 'signup', httpMethod: 'POST' }, 'Signup');
    const testLookup = (path = 'signup', method = 'POST'): Promise<WebhookLookup> => fixture.registry.lookup('test', method, path);

    async function claimedWebhook(): Promise<RegisteredWebhook> {
      const hit = await testLookup();
      if (!hit.found) throw new Error(`not listening: ${JSON.stringify(hit)}`);
      return hit.webhook;
    }

    it('listens on the test addresses for the window, and the one call delivers its run and output', async () => {
      const events: TestListenEvent['type'][] = [];
      const handle = await fixture.registry.listenForTest(hook, { onEvent: (event) => events.push(event.type) });
      expect(handle.expiresAt).to.be.closeTo(Date.now() + 120_000, 2000);
      expect(handle.webhooks.map((w) => [w.kind, w.method, w.path, w.listenId])).to.deep.equal([['test', 'POST', 'signup', handle.listenId]]);
      const webhook = await claimedWebhook();
      expect([webhook.kind, webhook.workflowId, webhook.listenId]).to.deep.equal(['test', 'wf', handle.listenId]);
      const claim = await fixture.registry.claimTestCall(webhook);
      expect(claim).to.not.equal(undefined);
      claim?.arrived(runFor(webhook, { name: 'Ada' }));
      claim?.settled({ output: { items: [{ json: { ok: true } }] } });
      const result = await handle.result;
      expect(result.status).to.equal('received');
      if (result.status !== 'received') return;
      expect([result.run.workflowId, result.run.nodeName, result.run.method, result.run.items[0]?.json.body])
        .to.deep.equal(['wf', 'Webhook', 'POST', { name: 'Ada' }]);
      expect(result.output).to.deep.equal({ items: [{ json: { ok: true } }] });
      expect(events).to.deep.equal(['listening', 'callArrived', 'completed', 'ended']);
    });

    it('gives the one call to exactly one of many concurrent claims, then says the call was used', async () => {
      await fixture.registry.listenForTest(hook);
      const webhook = await claimedWebhook();
      const claims = await Promise.all(Array.from({ length: 20 }, () => fixture.registry.claimTestCall(webhook)));
      expect(claims.filter((claim) => claim !== undefined)).to.have.length(1);
      expect(await testLookup()).to.deep.equal({ found: false, methods: [], reason: 'received' });
    });

    it('delivers the workflow\'s error when the one run fails', async () => {
      const events: TestListenEvent['type'][] = [];
      const handle = await fixture.registry.listenForTest(hook, { onEvent: (event) => events.push(event.type) });
      const webhook = await claimedWebhook();
      const claim = await fixture.registry.claimTestCall(webhook);
      claim?.arrived(runFor(webhook));
      claim?.settled({ error: new WebhookError('WORKFLOW_FAILED', 'Error in workflow') });
      const result = await handle.result;
      expect(result.status === 'received' && [result.error?.message, result.output]).to.deep.equal(['Error in workflow', undefined]);
      expect(events).to.deep.equal(['listening', 'callArrived', 'failed', 'ended']);
    });

    it('ends with timedOut after the window, then says the window ended', async () => {
      const handle = await fixture.registry.listenForTest(hook, { timeoutMs: 60 });
      expect(await handle.result).to.deep.equal({ status: 'timedOut' });
      expect(await testLookup()).to.deep.equal({ found: false, methods: [], reason: 'timedOut' });
      expect(await fixture.registry.claimTestCall(handle.webhooks[0] as RegisteredWebhook)).to.equal(undefined);
    });

    it('stops listening at once on cancel(), then says it was cancelled', async () => {
      const handle = await fixture.registry.listenForTest(hook);
      const webhook = await claimedWebhook();
      await handle.cancel();
      expect(await handle.result).to.deep.equal({ status: 'cancelled', reason: 'cancelled' });
      expect(await testLookup()).to.deep.equal({ found: false, methods: [], reason: 'cancelled' });
      expect(await fixture.registry.claimTestCall(webhook)).to.equal(undefined);
    });

    it('says nothing ever listened on an address that never listened', async () => {
      expect(await testLookup('nobody')).to.deep.equal({ found: false, methods: [], reason: 'neverListened' });
    });

    it('replaces the earlier listen when the same workflow listens again', async () => {
      const first = await fixture.registry.listenForTest(hook);
      const second = await fixture.registry.listenForTest(workflowOf('wf', { path: 'signup-2', httpMethod: 'POST' }));
      expect(await first.result).to.deep.equal({ status: 'cancelled', reason: 'replaced' });
      expect((await testLookup()).found).to.equal(false);
      const hit = await testLookup('signup-2');
      expect(hit.found && hit.webhook.listenId).to.equal(second.listenId);
      await second.cancel();
    });

    it('refuses another workflow listening on the same path and method', async () => {
      const handle = await fixture.registry.listenForTest(hook);
      const error = await rejectionOf(fixture.registry.listenForTest(workflowOf('wf-other', { path: 'signup', httpMethod: 'POST' })));
      expect(error).to.be.instanceOf(WebhookConflictError);
      expect(error.message).to.include('workflow "Signup" (wf)');
      await handle.cancel();
    });

    it('lists the methods of a listening path for any other method', async () => {
      const handle = await fixture.registry.listenForTest(workflowOf('wf', { path: 'multi/:id', multipleMethods: true }));
      const other = await testLookup('multi/1', 'DELETE');
      expect(!other.found && [...other.methods].sort()).to.deep.equal(['GET', 'POST']);
      const hit = await testLookup('multi/1', 'POST');
      expect(hit.found && [hit.webhook.outputIndex, hit.params]).to.deep.equal([1, { id: '1' }]);
      await handle.cancel();
    });

    it('refuses a timeout that is not a positive number of milliseconds', async () => {
      for (const timeoutMs of [0, -1, Number.NaN, '5' as never]) {
        let thrown: unknown;
        try {
          await fixture.registry.listenForTest(hook, { timeoutMs });
        } catch (error) {
          thrown = error;
        }
        expect(thrown).to.be.instanceOf(TypeError);
      }
    });
  });
}
