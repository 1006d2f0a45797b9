/**
 * The registry contract across instances, for registries whose store several processes share: what one instance
 * changes, every other one serves within a second, and uniqueness and the one test call hold cluster-wide.
 */
import { expect } from 'chai';
import { WebhookConflictError, type CapturedRun, type RegisteredWebhook, type TestListenEvent, type WebhookRegistry } from 'workflow-webhooks';
import { rejectionOf, runFor, workflowOf, type RegistryFixture } from './fixture.js';

/** Polls `probe` until it returns true, for at most `ms`; changes travel between instances in milliseconds. */
export async function eventually(probe: () => Promise<boolean>, ms = 1000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    if (await probe()) return;
    if (Date.now() > until) throw new Error(`not true within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** The webhook an instance serves for a test address, once the listen has reached it. */
async function listeningOn(registry: WebhookRegistry, method: string, path: string): Promise<RegisteredWebhook> {
  let webhook: RegisteredWebhook | undefined;
  await eventually(async () => {
    const hit = await registry.lookup('test', method, path);
    if (hit.found) webhook = hit.webhook;
    return hit.found;
  });
  return webhook as RegisteredWebhook;
}

const found = async (registry: WebhookRegistry, method: string, path: string, kind: 'production' | 'test' = 'production'): Promise<boolean> =>
  (await registry.lookup(kind, method, path)).found;

export function describeContractAcrossInstances(fixture: RegistryFixture): void {
  describe('across instances sharing one store', () => {
    it('serves on every instance what one activated, and stops everywhere what one deactivated', async () => {
      const other = await fixture.peer();
      await fixture.registry.activate(workflowOf('wf', { path: 'orders/:id', httpMethod: 'POST' }));
      await eventually(() => found(other, 'POST', 'orders/1'));
      await other.deactivate('wf');
      await eventually(async () => !(await found(fixture.registry, 'POST', 'orders/1')));
    });

    it('gives every instance the run settings a workflow was activated with (queue mode reads them there)', async () => {
      const other = await fixture.peer();
      const settings = { concurrency: 2, maxQueued: 10, attempts: 4, idempotencyHeader: true as const };
      await fixture.registry.activate({ ...workflowOf('wf', { path: 'limited', httpMethod: 'POST' }), settings });
      await eventually(() => found(other, 'POST', 'limited'));
      const hit = await other.lookup('production', 'POST', 'limited');
      expect(hit.found && hit.webhook.settings).to.deep.equal(settings);
    });

    it('lists on every instance what one activated, and nothing once another deactivated it', async () => {
      const other = await fixture.peer();
      await fixture.registry.activate(workflowOf('wf', { path: 'orders/:id', multipleMethods: true }, 'Orders'));
      await eventually(async () => (await other.list()).length === 2);
      expect((await other.list()).map((w) => `${w.workflowName} ${w.method} ${w.path}`).sort()).to.deep.equal(['Orders GET orders/:id', 'Orders POST orders/:id']);
      await other.deactivate('wf');
      expect(await other.list()).to.deep.equal([]);
      await eventually(async () => (await fixture.registry.list()).length === 0);
    });

    it('refuses on one instance a path and method another instance activated, naming that workflow', async () => {
      const other = await fixture.peer();
      await fixture.registry.activate(workflowOf('wf-1', { path: 'orders', httpMethod: 'POST' }, 'Order intake'));
      const error = await rejectionOf(other.activate(workflowOf('wf-2', { path: 'orders', httpMethod: 'POST' })));
      expect(error).to.be.instanceOf(WebhookConflictError);
      expect(error.message).to.equal('The path "orders" and method POST are already in use by workflow "Order intake" (wf-1), node "Webhook".');
    });

    it('lets exactly one of many racing activations of one address win, from three instances', async () => {
      const instances = [fixture.registry, await fixture.peer(), await fixture.peer()];
      const outcomes = await Promise.allSettled(Array.from({ length: 90 }, (_, index) =>
        (instances[index % 3] as WebhookRegistry).activate(workflowOf(`wf-${index}`, { path: 'race', httpMethod: 'POST' }))));
      const winners = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? outcome.value : []));
      expect(winners).to.have.length(1);
      const winner = (winners[0] as RegisteredWebhook).workflowId;
      for (const outcome of outcomes) {
        if (outcome.status === 'fulfilled') continue;
        expect(outcome.reason).to.be.instanceOf(WebhookConflictError);
        expect((outcome.reason as WebhookConflictError).conflict.workflowId).to.equal(winner);
      }
      for (const instance of instances) {
        await eventually(async () => {
          const hit = await instance.lookup('production', 'POST', 'race');
          return hit.found && hit.webhook.workflowId === winner;
        });
      }
    });

    it('lets a call on another instance take the test listen, and delivers its run and output to the listener', async () => {
      const other = await fixture.peer();
      const events: TestListenEvent['type'][] = [];
      const handle = await fixture.registry.listenForTest(workflowOf('wf', { path: 'signup', httpMethod: 'POST' }), { onEvent: (event) => events.push(event.type) });
      const webhook = await listeningOn(other, 'POST', 'signup');
      const claim = await other.claimTestCall(webhook);
      expect(claim).to.not.equal(undefined);
      claim?.arrived(runFor(webhook, { from: 'other' }));
      claim?.settled({ output: { items: [{ json: { done: true } }] } });
      const result = await handle.result;
      expect(result.status === 'received' && [result.run.items[0]?.json.body, result.output]).to.deep.equal([{ from: 'other' }, { items: [{ json: { done: true } }] }]);
      expect(events).to.deep.equal(['listening', 'callArrived', 'completed', 'ended']);
      await eventually(async () => {
        const late = await fixture.registry.lookup('test', 'POST', 'signup');
        return !late.found && late.reason === 'received';
      });
    });

    it('gives the listener a result it can send on: JSON.stringify() writes the relayed run\'s data and the output', async () => {
      const other = await fixture.peer();
      const handle = await fixture.registry.listenForTest(workflowOf('wf', { path: 'relayed', httpMethod: 'POST' }));
      const webhook = await listeningOn(other, 'POST', 'relayed');
      const claim = await other.claimTestCall(webhook);
      claim?.arrived(runFor(webhook, { from: 'other' }));
      claim?.settled({ output: { items: [{ json: { done: true } }] } });
      const sent = JSON.parse(JSON.stringify(await handle.result)) as { status: string; run: CapturedRun; output: unknown };
      expect([sent.status, sent.run.callId, sent.run.items[0]?.json.body, sent.output])
        .to.deep.equal(['received', 'contract-call', { from: 'other' }, { items: [{ json: { done: true } }] }]);
    });

    it('gives the one test call to exactly one of 21 claims spread over three instances', async () => {
      const instances = [fixture.registry, await fixture.peer(), await fixture.peer()];
      await fixture.registry.listenForTest(workflowOf('wf', { path: 'once', httpMethod: 'POST' }));
      const webhooks: RegisteredWebhook[] = [];
      for (const instance of instances) webhooks.push(await listeningOn(instance, 'POST', 'once'));
      const claims = await Promise.all(Array.from({ length: 21 }, (_, index) =>
        (instances[index % 3] as WebhookRegistry).claimTestCall(webhooks[index % 3] as RegisteredWebhook)));
      expect(claims.filter((claim) => claim !== undefined)).to.have.length(1);
    });

    it('tells every instance when a listen was cancelled or timed out', async () => {
      const other = await fixture.peer();
      const cancelled = await fixture.registry.listenForTest(workflowOf('wf-1', { path: 'cancel-me', httpMethod: 'POST' }));
      await eventually(() => found(other, 'POST', 'cancel-me', 'test'));
      await cancelled.cancel();
      await eventually(async () => {
        const hit = await other.lookup('test', 'POST', 'cancel-me');
        return !hit.found && hit.reason === 'cancelled';
      });
      const timed = await fixture.registry.listenForTest(workflowOf('wf-2', { path: 'time-me', httpMethod: 'POST' }), { timeoutMs: 80 });
      expect(await timed.result).to.deep.equal({ status: 'timedOut' });
      await eventually(async () => {
        const hit = await other.lookup('test', 'POST', 'time-me');
        return !hit.found && hit.reason === 'timedOut';
      });
    });
  });
}
