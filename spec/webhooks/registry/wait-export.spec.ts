/**
 * A Wait node of an exported workflow read into wait options (lib/webhooks/registry/wait-export.ts): only a node that
 * resumes on a webhook call gives options; the Webhook parameters it shares, its authentication, credentials, suffix,
 * remaining options and time limit are carried over; a time limit that is not a positive amount is refused.
 */
import { expect } from 'chai';
import { waitOptionsOf, WAIT_NODE_TYPE } from '../../../lib/webhooks/registry/wait-export.js';
import { refusal as code } from '../../support/refusal.js';

const read = (parameters: Record<string, unknown>, credentials?: unknown): unknown => waitOptionsOf('wf', 'Wait', parameters, credentials);


describe('Wait nodes of an export', () => {
  it('names the Wait node type of the known platform', () => {
    expect(WAIT_NODE_TYPE).to.equal('n8n-nodes-base.wait');
  });

  it('give no wait options unless the node resumes on a webhook call', () => {
    expect(read({ resume: 'timeInterval' })).to.equal(undefined);
    expect(read({})).to.equal(undefined);
  });

  it('give only the node name when it resumes on a call with nothing else set', () => {
    expect(read({ resume: 'webhook', options: 'not an object' })).to.deep.equal({ nodeName: 'Wait' });
    expect(read({ resume: 'webhook', options: ['x'] })).to.deep.equal({ nodeName: 'Wait' });
  });

  it('carry over the shared Webhook parameters, the authentication, the credentials and the other options', () => {
    const credentials = { httpHeaderAuth: { id: '1' } };
    expect(read({
      resume: 'webhook', httpMethod: 'POST', responseMode: 'lastNode', responseData: 'allEntries', responseCode: 202,
      incomingAuthentication: 'headerAuth', authentication: 'basicAuth', options: { rawBody: true, webhookSuffix: ' /done/ ' },
    }, credentials)).to.deep.equal({
      nodeName: 'Wait', httpMethod: 'POST', responseMode: 'lastNode', responseData: 'allEntries', responseCode: 202,
      authentication: 'headerAuth', credentials, suffix: 'done', options: { rawBody: true },
    });
    expect(read({ resume: 'webhook', authentication: 'basicAuth' })).to.deep.equal({ nodeName: 'Wait', authentication: 'basicAuth' });
  });

  it('drop a blank suffix and every slash around a suffix', () => {
    expect(read({ resume: 'webhook', options: { webhookSuffix: '   ' } })).to.deep.equal({ nodeName: 'Wait' });
    expect(read({ resume: 'webhook', options: { webhookSuffix: '//a/b//' } })).to.deep.equal({ nodeName: 'Wait', suffix: 'a/b' });
    expect(read({ resume: 'webhook', options: { webhookSuffix: 7 } })).to.deep.equal({ nodeName: 'Wait' });
  });

  it('turn a time limit into milliseconds, one hour by default', () => {
    expect(read({ resume: 'webhook', limitWaitTime: true })).to.deep.equal({ nodeName: 'Wait', expiresInMs: 3_600_000 });
    expect(read({ resume: 'webhook', limitWaitTime: true, limitType: 'afterTimeInterval', resumeAmount: 1.5, resumeUnit: 'seconds' }))
      .to.deep.equal({ nodeName: 'Wait', expiresInMs: 1500 });
    expect(read({ resume: 'webhook', limitWaitTime: true, resumeAmount: '2', resumeUnit: 'minutes' })).to.deep.equal({ nodeName: 'Wait', expiresInMs: 120_000 });
    expect(read({ resume: 'webhook', limitWaitTime: true, resumeAmount: 1, resumeUnit: 'days' })).to.deep.equal({ nodeName: 'Wait', expiresInMs: 86_400_000 });
  });

  it('ignore a time limit that is off or set at a date', () => {
    expect(read({ resume: 'webhook', limitWaitTime: false, resumeAmount: 5 })).to.deep.equal({ nodeName: 'Wait' });
    expect(read({ resume: 'webhook', limitWaitTime: 'true' })).to.deep.equal({ nodeName: 'Wait' });
    expect(read({ resume: 'webhook', limitWaitTime: true, limitType: 'atSpecifiedTime' })).to.deep.equal({ nodeName: 'Wait' });
  });

  it('refuse a time limit that is not a positive amount of a known unit', () => {
    for (const limit of [{ resumeAmount: 0 }, { resumeAmount: -1 }, { resumeAmount: 'soon' }, { resumeUnit: 'weeks' }]) {
      expect(code(() => read({ resume: 'webhook', limitWaitTime: true, ...limit })), JSON.stringify(limit)).to.equal('WEBHOOK_INVALID_NODE');
    }
  });
});
