/**
 * The test addresses of one process (lib/webhooks/registry/test-addresses.ts): why a late call finds nothing
 * listening — the first ending of a listen is the one remembered, and only the 1000 most recent endings are kept.
 */
import { expect } from 'chai';
import type { RegisteredWebhook } from '../../../lib/webhooks/registry/contract.js';
import { TestAddresses } from '../../../lib/webhooks/registry/test-addresses.js';

function webhook(path: string): RegisteredWebhook {
  return {
    kind: 'test', credentials: undefined, workflowId: 'wf', workflowName: undefined, nodeName: 'Webhook', method: 'GET',
    path, isDynamic: false, outputIndex: 0, parameters: {} as RegisteredWebhook['parameters'],
  };
}

describe('test addresses', () => {
  it('remember why a listen ended the first time it ended, not a later close of the same listen', () => {
    const addresses = new TestAddresses();
    const listen = webhook('hook');
    addresses.open([listen]);
    addresses.close([listen], 'timedOut');
    addresses.close([listen], 'cancelled');
    expect(addresses.lookup('GET', 'hook')).to.deep.equal({ found: false, methods: [], reason: 'timedOut' });
  });

  it('forget the oldest endings beyond the 1000 most recent', () => {
    const addresses = new TestAddresses();
    const listens = Array.from({ length: 1001 }, (_, index) => webhook(`hook-${index}`));
    addresses.open(listens);
    for (const listen of listens) addresses.close([listen], 'timedOut');
    expect(addresses.lookup('GET', 'hook-0')).to.deep.equal({ found: false, methods: [], reason: 'neverListened' });
    expect(addresses.lookup('GET', 'hook-1')).to.deep.equal({ found: false, methods: [], reason: 'timedOut' });
    expect(addresses.lookup('GET', 'hook-1000')).to.deep.equal({ found: false, methods: [], reason: 'timedOut' });
  });
});
