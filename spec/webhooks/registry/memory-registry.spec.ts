import { expect } from 'chai';
import { MemoryWebhookRegistry, WebhookConflictError, WebhookError } from '../../../lib/index.js';
import { workflow } from '../../support/workflows.js';

async function rejection(promise: Promise<unknown>): Promise<WebhookError> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(WebhookError);
    return error as WebhookError;
  }
  throw new Error('expected a rejection');
}

describe('MemoryWebhookRegistry', () => {
  let registry: MemoryWebhookRegistry;
  beforeEach(() => { registry = new MemoryWebhookRegistry(); });

  describe('activate()', () => {
    it('registers one webhook per method of every node', async () => {
      const webhooks = await registry.activate({
        workflowId: 'wf',
        nodes: [
          { name: 'A', parameters: { path: 'a' } },
          { name: 'B', parameters: { path: 'b', multipleMethods: true } },
          { name: 'Off', disabled: true, parameters: { path: 'off' } },
        ],
      });
      expect(webhooks.map((w) => `${w.method} ${w.path} ${w.outputIndex}`)).to.deep.equal(['GET a 0', 'GET b 0', 'POST b 1']);
      expect((await registry.lookup('production', 'GET', 'off')).found).to.equal(false);
    });

    it('refuses a path and method another active workflow uses, naming it and saying how to resolve it', async () => {
      await registry.activate(workflow('wf-1', { path: 'orders', httpMethod: 'POST' }, { workflowName: 'Order intake' }));
      const error = await rejection(registry.activate(workflow('wf-2', { path: '/orders/', httpMethod: 'post' })));
      expect(error).to.be.instanceOf(WebhookConflictError);
      expect(error.code).to.equal('WEBHOOK_CONFLICT');
      expect(error.status).to.equal(409);
      expect(error.message).to.equal('The path "orders" and method POST are already in use by workflow "Order intake" (wf-1), node "Webhook".');
      expect(error.hint).to.equal('Deactivate workflow "Order intake" (wf-1), or change the path or the HTTP method of one of the two Webhook nodes.');
      expect((error as WebhookConflictError).conflict).to.deep.equal({ method: 'POST', path: 'orders', workflowId: 'wf-1', workflowName: 'Order intake', nodeName: 'Webhook' });
    });

    it('allows the same path with another method in another workflow', async () => {
      await registry.activate(workflow('wf-1', { path: 'orders', httpMethod: 'POST' }));
      await registry.activate(workflow('wf-2', { path: 'orders', httpMethod: 'GET' }));
      expect((await registry.lookup('production', 'GET', 'orders')).found).to.equal(true);
    });

    it('registers all of a workflow\'s webhooks or none', async () => {
      await registry.activate(workflow('wf-1', { path: 'taken', httpMethod: 'POST' }));
      const error = await rejection(registry.activate({
        workflowId: 'wf-2',
        nodes: [{ name: 'Free', parameters: { path: 'free' } }, { name: 'Clash', parameters: { path: 'taken', httpMethod: 'POST' } }],
      }));
      expect(error.code).to.equal('WEBHOOK_CONFLICT');
      expect((await registry.lookup('production', 'GET', 'free')).found).to.equal(false);
      expect(registry.list('wf-2')).to.deep.equal([]);
    });

    it('refuses two nodes of one workflow on the same path and method', async () => {
      const error = await rejection(registry.activate({
        workflowId: 'wf', nodes: [{ name: 'A', parameters: { path: 'x' } }, { name: 'B', parameters: { path: 'x' } }],
      }));
      expect(error.code).to.equal('WEBHOOK_CONFLICT');
      expect(error.hint).to.match(/Two Webhook nodes of this workflow/);
    });

    it('replaces the earlier webhooks when a workflow is activated again', async () => {
      await registry.activate(workflow('wf', { path: 'old' }));
      await registry.activate(workflow('wf', { path: 'new' }));
      expect((await registry.lookup('production', 'GET', 'old')).found).to.equal(false);
      expect((await registry.lookup('production', 'GET', 'new')).found).to.equal(true);
    });

    it('keeps the earlier webhooks when a re-activation is refused', async () => {
      await registry.activate(workflow('wf-1', { path: 'one' }));
      await registry.activate(workflow('wf-2', { path: 'two' }));
      await rejection(registry.activate(workflow('wf-1', { path: 'two' })));
      expect((await registry.lookup('production', 'GET', 'one')).found).to.equal(true);
    });

    it('treats dynamic paths of the same shape as one address, whatever their parameter names', async () => {
      await registry.activate(workflow('wf-1', { path: 'users/:id' }));
      const error = await rejection(registry.activate(workflow('wf-2', { path: 'users/:name' })));
      expect(error.message).to.include('"users/:id"');
    });

    it('prefixes a dynamic path with the node\'s webhookId, so two workflows may both use it', async () => {
      await registry.activate({ workflowId: 'wf-1', nodes: [{ name: 'W', webhookId: 'aaa', parameters: { path: 'user/:id' } }] });
      await registry.activate({ workflowId: 'wf-2', nodes: [{ name: 'W', webhookId: 'bbb', parameters: { path: 'user/:id' } }] });
      const hit = await registry.lookup('production', 'GET', 'bbb/user/7');
      expect(hit.found && [hit.webhook.workflowId, hit.webhook.path, hit.params]).to.deep.equal(['wf-2', 'bbb/user/:id', { id: '7' }]);
    });

    it('uses the webhookId as the path when the path is empty', async () => {
      await registry.activate({ workflowId: 'wf', nodes: [{ name: 'W', webhookId: '5f0c', parameters: { path: '' } }] });
      expect((await registry.lookup('production', 'GET', '5f0c')).found).to.equal(true);
    });

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
        const error = await rejection(registry.activate(workflow('wf', parameters as never)));
        expect(error.code).to.equal('WEBHOOK_INVALID_NODE');
        expect(error.message).to.match(pattern);
      });
    }

    it('refuses a workflow without workflowId or nodes', async () => {
      expect((await rejection(registry.activate({ nodes: [] } as never))).code).to.equal('WEBHOOK_INVALID_NODE');
      expect((await rejection(registry.activate({ workflowId: 'x' } as never))).code).to.equal('WEBHOOK_INVALID_NODE');
      expect((await rejection(registry.activate(null as never))).code).to.equal('WEBHOOK_INVALID_NODE');
    });
  });

  describe('deactivate()', () => {
    it('frees the addresses at once and says whether there were any', async () => {
      await registry.activate(workflow('wf', { path: 'users/:id', multipleMethods: true }));
      expect(await registry.deactivate('wf')).to.equal(true);
      expect(await registry.lookup('production', 'GET', 'users/1')).to.deep.equal({ found: false, methods: [] });
      expect(await registry.deactivate('wf')).to.equal(false);
      await registry.activate(workflow('wf-2', { path: 'users/:other' }));
    });
  });

  describe('lookup()', () => {
    it('lists the methods a path has when the asked one is missing, static and dynamic together', async () => {
      await registry.activate(workflow('wf-1', { path: 'users/me', httpMethod: 'GET' }));
      await registry.activate(workflow('wf-2', { path: 'users/:id', httpMethod: 'PUT' }));
      expect(await registry.lookup('production', 'DELETE', 'users/me')).to.deep.equal({ found: false, methods: ['GET', 'PUT'] });
      const put = await registry.lookup('production', 'PUT', 'users/me');
      expect(put.found && put.params).to.deep.equal({ id: 'me' });
    });

    it('matches dynamic templates by position, the most literal segments first', async () => {
      await registry.activate(workflow('wf-1', { path: ':kind/:id' }));
      await registry.activate(workflow('wf-2', { path: 'user/:id' }));
      await registry.activate(workflow('wf-3', { path: ':kind/list' }));
      const ids = async (path: string): Promise<unknown> => {
        const hit = await registry.lookup('production', 'GET', path);
        return hit.found ? [hit.webhook.workflowId, hit.params] : undefined;
      };
      expect(await ids('user/7')).to.deep.equal(['wf-2', { id: '7' }]);
      expect(await ids('7/user')).to.deep.equal(['wf-1', { kind: '7', id: 'user' }]);
      expect(await ids('team/list')).to.deep.equal(['wf-3', { kind: 'team' }]);
      expect(await ids('user/7/extra')).to.equal(undefined);
    });

    it('is case-sensitive and decodes percent-encoded segments', async () => {
      await registry.activate(workflow('wf', { path: 'Hook with space/:x' }));
      expect((await registry.lookup('production', 'GET', 'Hook%20with%20space/a%2Bb')).found).to.equal(true);
      expect((await registry.lookup('production', 'GET', 'hook%20with%20space/a')).found).to.equal(false);
    });

    it('escapes path-to-regexp syntax in literal segments', async () => {
      await registry.activate(workflow('wf', { path: 'a(b)*/{c}/:id' }));
      const hit = await registry.lookup('production', 'GET', `${encodeURIComponent('a(b)*')}/${encodeURIComponent('{c}')}/9`);
      expect(hit.found && hit.params).to.deep.equal({ id: '9' });
    });

    it('refuses an encoded slash or NUL byte in a segment', async () => {
      for (const path of ['a%2Fb', 'a%00b']) {
        const error = await rejection(registry.lookup('production', 'GET', path));
        expect(error.code).to.equal('REQUEST_INVALID_PATH');
      }
    });

    it('finds the right static webhook among thousands', async () => {
      for (let i = 0; i < 2000; i += 1) await registry.activate(workflow(`wf-${i}`, { path: `hook-${i}` }));
      const hit = await registry.lookup('production', 'GET', 'hook-1999');
      expect(hit.found && hit.webhook.workflowId).to.equal('wf-1999');
      expect(registry.list()).to.have.length(2000);
    });
  });
});
