/**
 * Matching a call to its registered webhook, against the memory registry: the answers for a path that exists for
 * other methods (405 with Allow), a test address nobody listens on, and an unknown production path.
 */
import { expect } from 'chai';
import { MemoryWebhookRegistry } from '../../../lib/index.js';
import { immediateLookup, matchWebhook, MethodNotAllowedError, notListening } from '../../../lib/webhooks/request/match.js';
import type { RequestTarget } from '../../../lib/webhooks/request/target.js';
import type { WebhookError } from '../../../lib/core/errors.js';
import { workflow } from '../../support/workflows.js';

const target = (kind: RequestTarget['kind'], rawPath: string): RequestTarget => ({ kind, rawPath, search: '', mountPath: '' });

/** What a match refuses with, thrown at once (a registry in memory) or rejected (one that only has lookup()). */
async function refusalOf(match: () => unknown): Promise<WebhookError> {
  try {
    await match();
  } catch (error) {
    return error as WebhookError;
  }
  throw new Error('expected the match to fail');
}

describe('matching a call to its webhook', () => {
  it('finds the webhook of the path and method, with its path parameters', async () => {
    const registry = new MemoryWebhookRegistry();
    await registry.activate(workflow('wf', { path: 'orders/:id', httpMethod: 'POST' }));
    const match = await matchWebhook(registry, target('production', 'orders/42'), 'POST');
    expect([match.webhook.workflowId, match.params]).to.deep.equal(['wf', { id: '42' }]);
  });

  it('answers at once from a registry that keeps its routes in memory, and waits for one that only has lookup()', async () => {
    const registry = new MemoryWebhookRegistry();
    await registry.activate(workflow('wf', { path: 'hook', httpMethod: 'POST' }));
    const now = matchWebhook(registry, target('production', 'hook'), 'POST', immediateLookup(registry));
    expect(now).not.to.be.instanceOf(Promise);
    const remote = { lookup: registry.lookup.bind(registry) } as unknown as MemoryWebhookRegistry;
    const later = matchWebhook(remote, target('production', 'hook'), 'POST');
    expect(later).to.be.instanceOf(Promise);
    expect((await later).webhook).to.equal((now as Awaited<typeof later>).webhook);
    expect((await refusalOf(() => matchWebhook(remote, target('production', 'nothing'), 'POST'))).code).to.equal('WEBHOOK_NOT_FOUND');
  });

  it('never bypasses a lookup() that was replaced, on the instance or in a subclass', () => {
    expect(immediateLookup(new MemoryWebhookRegistry()), 'the memory registry\'s own').to.be.a('function');
    const wrapped = Object.assign(new MemoryWebhookRegistry(), { lookup: () => Promise.reject(new Error('down')) });
    expect(immediateLookup(wrapped), 'lookup() replaced on the instance').to.equal(undefined);
    class Logged extends MemoryWebhookRegistry {
      override lookup(...args: Parameters<MemoryWebhookRegistry['lookup']>): ReturnType<MemoryWebhookRegistry['lookup']> {
        return super.lookup(...args);
      }
    }
    expect(immediateLookup(new Logged()), 'lookup() replaced in a subclass').to.equal(undefined);
    class Both extends MemoryWebhookRegistry {
      override lookup(...args: Parameters<MemoryWebhookRegistry['lookup']>): ReturnType<MemoryWebhookRegistry['lookup']> {
        return super.lookup(...args);
      }

      override lookupNow(...args: Parameters<MemoryWebhookRegistry['lookupNow']>): ReturnType<MemoryWebhookRegistry['lookupNow']> {
        return super.lookupNow(...args);
      }
    }
    expect(immediateLookup(new Both()), 'both replaced together, in one class').to.be.a('function');
  });

  it('answers 405 with Allow for a path registered for other methods, naming them in the message', async () => {
    const registry = new MemoryWebhookRegistry();
    await registry.activate({ workflowId: 'wf', nodes: [
      { name: 'A', parameters: { path: 'hook', httpMethod: 'GET' } },
      { name: 'B', parameters: { path: 'hook', httpMethod: 'PUT' } },
      { name: 'C', parameters: { path: 'hook', httpMethod: 'PATCH' } },
    ] });
    const error = await refusalOf(() => matchWebhook(registry, target('production', 'hook'), 'POST'));
    expect(error).to.be.instanceOf(MethodNotAllowedError);
    expect([error.code, error.status]).to.deep.equal(['WEBHOOK_METHOD_NOT_ALLOWED', 405]);
    const allow = String(error.headers?.allow).split(', ').sort();
    expect(allow).to.deep.equal(['GET', 'PATCH', 'PUT']);
    expect(error.message).to.match(/Did you mean to make a [A-Z]+, [A-Z]+ or [A-Z]+ request\?$/);
  });

  it('names the one other method plainly when the path has only one', () => {
    const error = new MethodNotAllowedError('POST', ['GET']);
    expect(error.message).to.equal('This webhook is not registered for POST requests. Did you mean to make a GET request?');
    expect(error.headers).to.deep.equal({ allow: 'GET' });
    expect(new MethodNotAllowedError('GET', ['POST', 'PUT']).message).to.include('a POST or PUT request?');
  });

  it('answers 404 WEBHOOK_NOT_FOUND for an unknown production path, shown without its trailing slashes', async () => {
    const error = await refusalOf(() => matchWebhook(new MemoryWebhookRegistry(), target('production', 'nothing/here//'), 'GET'));
    expect([error.code, error.status]).to.deep.equal(['WEBHOOK_NOT_FOUND', 404]);
    expect(error.message).to.equal('The requested webhook "GET nothing/here" is not registered.');
    expect(error.hint).to.include('must be active');
  });

  it('answers 404 WEBHOOK_TEST_NOT_LISTENING for a test address nobody listens on, saying why', async () => {
    const error = await refusalOf(() => matchWebhook(new MemoryWebhookRegistry(), target('test', 'signup/'), 'POST'));
    expect([error.code, error.status]).to.deep.equal(['WEBHOOK_TEST_NOT_LISTENING', 404]);
    expect(error.message).to.equal('The test webhook "POST signup" is not listening. Nothing is listening for a test event on it.');
    expect(notListening('GET', 'a//', 'timedOut').message).to.equal('The test webhook "GET a" is not listening. Its listening window ended before a call arrived.');
    expect(notListening('GET', 'a', 'received').message).to.include('already received its one test call');
  });

  it('refuses to look a resume address up among the routes: a wait matches it', async () => {
    const error = await refusalOf(() => matchWebhook(new MemoryWebhookRegistry(), target('waiting', 'abc'), 'POST'));
    expect(error).to.be.instanceOf(TypeError);
  });
});
