/**
 * The registry conformance suite: the contract every WebhookRegistry keeps, written once against the package's
 * public exports (this file: activation, deactivation and look-ups; test listens, HTTP and several instances beside
 * it). Each registry's spec calls `describeRegistryContract` with a factory, so the memory registry, the Redis
 * registry and a host's own registry all pass the very same tests.
 */
import { expect } from 'chai';
import { WebhookConflictError, type WebhookLookup } from 'workflow-webhooks';
import { registryFixture, rejectionOf, workflowOf, type RegistryHarness } from './fixture.js';
import { describeContractOverHttp } from './http.js';
import { describeContractAcrossInstances } from './instances.js';
import { describeMessageIds } from './message-ids.js';
import { describeRateLimits } from './rate-limits.js';
import { describeTestListens } from './test-listens.js';
import { describeTestWebhookListing, describeWaitListing } from './console-listings.js';
import { describeWaits } from './waits.js';
import { describeDigestKey } from './digest-key.js';

export type { RegistryHarness } from './fixture.js';

function where(hit: WebhookLookup): unknown {
  return hit.found ? [hit.webhook.workflowId, hit.webhook.path, hit.params] : hit;
}

export function describeRegistryContract(name: string, harness: RegistryHarness): void {
  describe(`${name} keeps the registry contract`, () => {
    const fixture = registryFixture(harness);
    /** Every look-up of the suite, through lookup() and, where the registry has it, lookupNow(), which must agree. */
    const lookup = async (method: string, path: string, kind: 'production' | 'test' = 'production'): Promise<WebhookLookup> => {
      const later = await fixture.registry.lookup(kind, method, path);
      if (fixture.registry.lookupNow !== undefined) {
        expect(fixture.registry.lookupNow(kind, method, path), 'lookupNow() answers as lookup() does').to.deep.equal(later);
      }
      return later;
    };

    describe('activate()', () => {
      it('registers one webhook per method of every node, in output order, and skips disabled nodes', async () => {
        const webhooks = await fixture.registry.activate({
          workflowId: 'wf',
          nodes: [
            { name: 'A', parameters: { path: 'a' } },
            { name: 'B', parameters: { path: 'b', multipleMethods: true } },
            { name: 'Off', disabled: true, parameters: { path: 'off' } },
          ],
        });
        expect(webhooks.map((w) => `${w.kind} ${w.method} ${w.path} ${w.outputIndex}`))
          .to.deep.equal(['production GET a 0', 'production GET b 0', 'production POST b 1']);
        expect(where(await lookup('POST', 'b'))).to.deep.equal(['wf', 'b', {}]);
        expect(await lookup('GET', 'off')).to.deep.equal({ found: false, methods: [] });
      });

      it('refuses a path and method another active workflow uses, naming it and saying how to resolve it', async () => {
        await fixture.registry.activate(workflowOf('wf-1', { path: 'orders', httpMethod: 'POST' }, 'Order intake'));
        const error = await rejectionOf(fixture.registry.activate(workflowOf('wf-2', { path: '/orders/', httpMethod: 'post' })));
        expect(error).to.be.instanceOf(WebhookConflictError);
        expect([error.code, error.status]).to.deep.equal(['WEBHOOK_CONFLICT', 409]);
        expect(error.message).to.equal('The path "orders" and method POST are already in use by workflow "Order intake" (wf-1), node "Webhook".');
        expect(error.hint).to.equal('Deactivate workflow "Order intake" (wf-1), or change the path or the HTTP method of one of the two Webhook nodes.');
        expect((error as WebhookConflictError).conflict).to.deep.equal({ method: 'POST', path: 'orders', workflowId: 'wf-1', workflowName: 'Order intake', nodeName: 'Webhook' });
      });

      it('lets another workflow use the same path with another method', async () => {
        await fixture.registry.activate(workflowOf('wf-1', { path: 'orders', httpMethod: 'POST' }));
        await fixture.registry.activate(workflowOf('wf-2', { path: 'orders', httpMethod: 'GET' }));
        expect(where(await lookup('GET', 'orders'))).to.deep.equal(['wf-2', 'orders', {}]);
        expect(where(await lookup('POST', 'orders'))).to.deep.equal(['wf-1', 'orders', {}]);
      });

      it('registers all of a workflow\'s webhooks or none', async () => {
        await fixture.registry.activate(workflowOf('wf-1', { path: 'taken', httpMethod: 'POST' }));
        const error = await rejectionOf(fixture.registry.activate({
          workflowId: 'wf-2',
          nodes: [{ name: 'Free', parameters: { path: 'free' } }, { name: 'Clash', parameters: { path: 'taken', httpMethod: 'POST' } }],
        }));
        expect(error.code).to.equal('WEBHOOK_CONFLICT');
        expect(await lookup('GET', 'free')).to.deep.equal({ found: false, methods: [] });
      });

      it('refuses two nodes of one workflow on the same path and method', async () => {
        const error = await rejectionOf(fixture.registry.activate({
          workflowId: 'wf', nodes: [{ name: 'A', parameters: { path: 'x' } }, { name: 'B', parameters: { path: 'x' } }],
        }));
        expect(error.code).to.equal('WEBHOOK_CONFLICT');
        expect(error.hint).to.match(/Two Webhook nodes of this workflow/);
        expect(await lookup('GET', 'x')).to.deep.equal({ found: false, methods: [] });
      });

      it('replaces the earlier webhooks when a workflow is activated again', async () => {
        await fixture.registry.activate(workflowOf('wf', { path: 'old' }));
        await fixture.registry.activate(workflowOf('wf', { path: 'new' }));
        expect((await lookup('GET', 'old')).found).to.equal(false);
        expect(where(await lookup('GET', 'new'))).to.deep.equal(['wf', 'new', {}]);
      });

      it('lets a workflow move its own webhook to another method on re-activation', async () => {
        await fixture.registry.activate(workflowOf('wf', { path: 'p', httpMethod: 'GET' }));
        await fixture.registry.activate(workflowOf('wf', { path: 'p', httpMethod: 'PUT' }));
        expect(await lookup('GET', 'p')).to.deep.equal({ found: false, methods: ['PUT'] });
      });

      it('keeps the earlier webhooks when a re-activation is refused', async () => {
        await fixture.registry.activate(workflowOf('wf-1', { path: 'one' }));
        await fixture.registry.activate(workflowOf('wf-2', { path: 'two' }));
        await rejectionOf(fixture.registry.activate(workflowOf('wf-1', { path: 'two' })));
        expect(where(await lookup('GET', 'one'))).to.deep.equal(['wf-1', 'one', {}]);
        expect(where(await lookup('GET', 'two'))).to.deep.equal(['wf-2', 'two', {}]);
      });

      it('treats dynamic paths of one shape as one address, whatever their parameter names', async () => {
        await fixture.registry.activate(workflowOf('wf-1', { path: 'users/:id' }));
        const error = await rejectionOf(fixture.registry.activate(workflowOf('wf-2', { path: 'users/:name' })));
        expect(error.code).to.equal('WEBHOOK_CONFLICT');
        expect(error.message).to.include('"users/:id"');
      });

      it('prefixes a dynamic path with the node\'s webhookId, so two workflows may both use it', async () => {
        await fixture.registry.activate({ workflowId: 'wf-1', nodes: [{ name: 'W', webhookId: 'aaa', parameters: { path: 'user/:id' } }] });
        await fixture.registry.activate({ workflowId: 'wf-2', nodes: [{ name: 'W', webhookId: 'bbb', parameters: { path: 'user/:id' } }] });
        expect(where(await lookup('GET', 'bbb/user/7'))).to.deep.equal(['wf-2', 'bbb/user/:id', { id: '7' }]);
        expect(where(await lookup('GET', 'aaa/user/8'))).to.deep.equal(['wf-1', 'aaa/user/:id', { id: '8' }]);
      });

      it('uses the webhookId as the path when the path is empty', async () => {
        await fixture.registry.activate({ workflowId: 'wf', nodes: [{ name: 'W', webhookId: '5f0c', parameters: { path: '' } }] });
        expect(where(await lookup('GET', '5f0c'))).to.deep.equal(['wf', '5f0c', {}]);
      });

      it('refuses an unusable node with WEBHOOK_INVALID_NODE and registers nothing', async () => {
        const error = await rejectionOf(fixture.registry.activate({
          workflowId: 'wf', nodes: [{ name: 'Good', parameters: { path: 'good' } }, { name: 'Bad', parameters: { path: 'x', httpMethod: 'TRACE' as never } }],
        }));
        expect(error.code).to.equal('WEBHOOK_INVALID_NODE');
        expect(error.message).to.match(/Webhook node "Bad": httpMethod must be one of/);
        expect((await lookup('GET', 'good')).found).to.equal(false);
        expect((await rejectionOf(fixture.registry.activate(null as never))).code).to.equal('WEBHOOK_INVALID_NODE');
      });
    });

    describe('deactivate()', () => {
      it('frees the addresses at once, for any workflow to take, and says whether there were any', async () => {
        await fixture.registry.activate(workflowOf('wf', { path: 'users/:id', multipleMethods: true }));
        expect(await fixture.registry.deactivate('wf')).to.equal(true);
        expect(await lookup('GET', 'users/1')).to.deep.equal({ found: false, methods: [] });
        expect(await fixture.registry.deactivate('wf')).to.equal(false);
        await fixture.registry.activate(workflowOf('wf-2', { path: 'users/:other' }));
        expect(where(await lookup('GET', 'users/1'))).to.deep.equal(['wf-2', 'users/:other', { other: '1' }]);
      });

      it('leaves the other workflows\' webhooks alone', async () => {
        await fixture.registry.activate(workflowOf('wf-1', { path: 'p', httpMethod: 'GET' }));
        await fixture.registry.activate(workflowOf('wf-2', { path: 'p', httpMethod: 'POST' }));
        await fixture.registry.deactivate('wf-1');
        expect(await lookup('GET', 'p')).to.deep.equal({ found: false, methods: ['POST'] });
      });
    });

    describe('lookup()', () => {
      it('lists the methods a path has when the asked one is missing, static and dynamic together', async () => {
        await fixture.registry.activate(workflowOf('wf-1', { path: 'users/me', httpMethod: 'GET' }));
        await fixture.registry.activate(workflowOf('wf-2', { path: 'users/:id', httpMethod: 'PUT' }));
        const missing = await lookup('DELETE', 'users/me');
        expect(!missing.found && [...missing.methods].sort()).to.deep.equal(['GET', 'PUT']);
        expect(where(await lookup('PUT', 'users/me'))).to.deep.equal(['wf-2', 'users/:id', { id: 'me' }]);
      });

      it('matches dynamic templates by position, the most literal segments first', async () => {
        await fixture.registry.activate(workflowOf('wf-1', { path: ':kind/:id' }));
        await fixture.registry.activate(workflowOf('wf-2', { path: 'user/:id' }));
        await fixture.registry.activate(workflowOf('wf-3', { path: ':kind/list' }));
        expect(where(await lookup('GET', 'user/7'))).to.deep.equal(['wf-2', 'user/:id', { id: '7' }]);
        expect(where(await lookup('GET', '7/user'))).to.deep.equal(['wf-1', ':kind/:id', { kind: '7', id: 'user' }]);
        expect(where(await lookup('GET', 'team/list'))).to.deep.equal(['wf-3', ':kind/list', { kind: 'team' }]);
        expect((await lookup('GET', 'user/7/extra')).found).to.equal(false);
      });

      it('is case-sensitive, decodes percent-encoded segments and ignores a trailing slash', async () => {
        await fixture.registry.activate(workflowOf('wf', { path: 'Hook with space/:x' }));
        expect(where(await lookup('GET', 'Hook%20with%20space/a%2Bb/'))).to.deep.equal(['wf', 'Hook with space/:x', { x: 'a+b' }]);
        expect((await lookup('GET', 'hook%20with%20space/a')).found).to.equal(false);
      });

      it('refuses an encoded slash or NUL byte in a segment with REQUEST_INVALID_PATH', async () => {
        for (const path of ['a%2Fb', 'a%00b']) {
          expect((await rejectionOf(lookup('GET', path))).code).to.equal('REQUEST_INVALID_PATH');
          if (fixture.registry.lookupNow === undefined) continue;
          expect(() => fixture.registry.lookupNow?.('production', 'GET', path), 'lookupNow() throws what lookup() rejects with')
            .to.throw().with.property('code', 'REQUEST_INVALID_PATH');
        }
      });

      it('keeps production and test addresses apart', async () => {
        await fixture.registry.activate(workflowOf('wf', { path: 'both' }));
        expect((await lookup('GET', 'both', 'test')).found).to.equal(false);
        await fixture.registry.listenForTest(workflowOf('wf', { path: 'only-test' }));
        expect((await lookup('GET', 'only-test')).found).to.equal(false);
      });
    });

    describe('list()', () => {
      const listed = async (): Promise<string[]> =>
        (await fixture.registry.list()).map((w) => `${w.kind} ${w.workflowId} ${w.nodeName} ${w.method} ${w.path}`).sort();

      it('lists the active production webhooks, one per node and method, with their resolved parameters', async () => {
        expect(await fixture.registry.list()).to.deep.equal([]);
        await fixture.registry.activate({
          workflowId: 'wf-1',
          nodes: [
            { name: 'Both', parameters: { path: 'orders/:id', multipleMethods: true, responseMode: 'lastNode' } },
            { name: 'Off', disabled: true, parameters: { path: 'off' } },
          ],
        });
        await fixture.registry.activate({ workflowId: 'wf-2', nodes: [{ name: 'Signup', webhookId: 'abc', parameters: { path: 'user/:id', httpMethod: 'PUT' } }] });
        expect(await listed()).to.deep.equal([
          'production wf-1 Both GET orders/:id', 'production wf-1 Both POST orders/:id', 'production wf-2 Signup PUT abc/user/:id',
        ]);
        const both = (await fixture.registry.list()).filter((w) => w.nodeName === 'Both');
        expect(both.map((w) => [w.parameters.responseMode, w.parameters.methods, w.outputIndex, w.isDynamic]))
          .to.deep.equal([['lastNode', ['GET', 'POST'], 0, true], ['lastNode', ['GET', 'POST'], 1, true]]);
      });

      it('lists nothing of a deactivated workflow, and only the latest webhooks of a re-activated one', async () => {
        await fixture.registry.activate(workflowOf('wf-1', { path: 'old' }));
        await fixture.registry.activate(workflowOf('wf-2', { path: 'stays', httpMethod: 'POST' }));
        await fixture.registry.activate(workflowOf('wf-1', { path: 'new' }));
        expect(await listed()).to.deep.equal(['production wf-1 Webhook GET new', 'production wf-2 Webhook POST stays']);
        await fixture.registry.deactivate('wf-1');
        await fixture.registry.deactivate('wf-2');
        expect(await fixture.registry.list()).to.deep.equal([]);
      });

      it('never lists a test listen, nor a refused activation', async () => {
        await fixture.registry.activate(workflowOf('wf-1', { path: 'taken', httpMethod: 'POST' }));
        await rejectionOf(fixture.registry.activate({
          workflowId: 'wf-2', nodes: [{ name: 'Free', parameters: { path: 'free' } }, { name: 'Clash', parameters: { path: 'taken', httpMethod: 'POST' } }],
        }));
        await fixture.registry.listenForTest(workflowOf('wf-3', { path: 'only-test' }));
        expect(await listed()).to.deep.equal(['production wf-1 Webhook POST taken']);
      });
    });

    describeTestListens(fixture);
    describeContractOverHttp(fixture);
    if (harness.peer !== undefined) describeContractAcrossInstances(fixture);
    if (harness.remembersMessageIds === true) describeMessageIds(fixture, harness.peer !== undefined);
    if (harness.listsTestWebhooks === true) describeTestWebhookListing(fixture, harness.peer !== undefined);
    if (harness.listsWaits === true) describeWaitListing(fixture);
    if (harness.keepsWaits !== undefined) describeWaits(fixture, harness.peer !== undefined);
    if (harness.countsRateLimits === true) describeRateLimits(fixture, harness.peer !== undefined, harness.addsRateLimitCalls === true);
    if (harness.keepsDigestKey === true) describeDigestKey(fixture, harness.peer !== undefined);
  });
}

