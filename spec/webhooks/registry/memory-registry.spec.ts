import { expect } from 'chai';
import { MemoryWebhookRegistry } from '../../../lib/index.js';
import { describeRegistryContract } from '../../support/registry-contract/index.js';
import { withFakeTimers } from '../../support/fake-clock.js';
import { rejectionOf } from '../../support/registry-contract/fixture.js';
import { workflow } from '../../support/workflows.js';

describeRegistryContract('MemoryWebhookRegistry', {
  create: () => new MemoryWebhookRegistry(), remembersMessageIds: true, listsTestWebhooks: true, listsWaits: true, countsRateLimits: true,
  keepsWaits: { withMaxWaiting: (maxWaiting) => new MemoryWebhookRegistry({ maxWaiting }) },
  // Its windows are measured with performance.now().
  rateLimitClock: (_registry, work) => withFakeTimers((clock) => work(async (ms) => { clock.tick(ms); }), ['performance']),
});

describe('MemoryWebhookRegistry', () => {
  let registry: MemoryWebhookRegistry;
  beforeEach(() => { registry = new MemoryWebhookRegistry(); });

  describe('activate()', () => {
    for (const [label, parameters, pattern] of [
      ['an empty path without webhookId', { path: ' / ' }, /path is empty/],
      ['an unknown method', { path: 'x', httpMethod: 'TRACE' }, /httpMethod must be one of DELETE, GET, HEAD, PATCH, POST, PUT; got "TRACE"/],
      ['several methods without multipleMethods', { path: 'x', httpMethod: ['GET', 'POST'] }, /multipleMethods is off/],
      ['a method listed twice', { path: 'x', multipleMethods: true, httpMethod: ['GET', 'get'] }, /lists GET twice/],
      ['an unknown response mode', { path: 'x', responseMode: 'later' }, /responseMode must be one of/],
      ['a response code out of range', { path: 'x', responseCode: 700 }, /responseCode must be an integer from 100 to 599/],
      ['a parameter name that is not a name', { path: 'x/:a-b' }, /invalid parameter ":a-b"/],
      ['a parameter used twice', { path: ':a/:a' }, /uses the parameter ":a" twice/],
      ['an unknown authentication', { path: 'x', authentication: 'oauth' }, /authentication must be one of none, basicAuth, headerAuth, jwtAuth/],
      ['an IP allowlist entry that is not an address', { path: 'x', options: { ipWhitelist: '10.0.0.1, 10.0.0.0/40' } }, /"10.0.0.0\/40", which is not an IP address or CIDR range/],
      ['allowedOrigins that is not a string', { path: 'x', options: { allowedOrigins: ['https://a.example'] } }, /options.allowedOrigins must be a string/],
    ] as const) {
      it(`refuses a node with ${label}`, async () => {
        const error = await rejectionOf(registry.activate(workflow('wf', parameters as never)));
        expect(error.code).to.equal('WEBHOOK_INVALID_NODE');
        expect(error.message).to.match(pattern);
      });
    }

    it('refuses a workflow without workflowId or nodes', async () => {
      expect((await rejectionOf(registry.activate({ nodes: [] } as never))).code).to.equal('WEBHOOK_INVALID_NODE');
      expect((await rejectionOf(registry.activate({ workflowId: 'x' } as never))).code).to.equal('WEBHOOK_INVALID_NODE');
      expect((await rejectionOf(registry.activate(null as never))).code).to.equal('WEBHOOK_INVALID_NODE');
    });
  });

  describe('list()', () => {
    it('lists every active webhook, and look-ups find the right one among thousands', async () => {
      for (let i = 0; i < 2000; i += 1) await registry.activate(workflow(`wf-${i}`, { path: `hook-${i}` }));
      const hit = await registry.lookup('production', 'GET', 'hook-1999');
      expect(hit.found && hit.webhook.workflowId).to.equal('wf-1999');
      expect(await registry.list()).to.have.length(2000);
    });

    it('lists only the webhooks of the workflow asked for, and none for an unknown one', async () => {
      await registry.activate(workflow('a', { path: 'a' }));
      await registry.activate(workflow('b', { path: 'b' }));
      expect((await registry.list('b')).map((webhook) => webhook.workflowId)).to.deep.equal(['b']);
      expect(await registry.list('unknown')).to.deep.equal([]);
    });
  });

  describe('re-activation', () => {
    it('lets a workflow take its own addresses again, with its new settings', async () => {
      await registry.activate(workflow('wf', { path: 'orders', responseCode: 200 }));
      await registry.activate(workflow('wf', { path: 'orders', responseCode: 202 }));
      const found = await registry.lookup('production', 'GET', 'orders');
      expect(found.found && found.webhook.parameters.responseCode).to.equal(202);
      expect(await registry.list()).to.have.length(1);
    });
  });
});
