import { expect } from 'chai';
import { MemoryWebhookRegistry } from '../../lib/index.js';
import { WEBHOOK_NODE_DESCRIPTION } from '../../lib/definitions/index.js';

describe('the Webhook node\'s own description', () => {
  it('declares every parameter the middleware reads, by the names workflows store', () => {
    const names = WEBHOOK_NODE_DESCRIPTION.properties.map((property) => property.name);
    expect(names).to.include.members(['multipleMethods', 'httpMethod', 'path', 'authentication', 'responseMode', 'responseCode', 'responseData', 'options']);
    const options = WEBHOOK_NODE_DESCRIPTION.properties.find((property) => property.name === 'options') as { options: { name: string; default: unknown }[] };
    expect(options.options.find((option) => option.name === 'responsePropertyName')?.default).to.equal('data');
  });

  it('gives the middleware its defaults', async () => {
    const registry = new MemoryWebhookRegistry();
    const [single] = await registry.activate({ workflowId: 'a', nodes: [{ name: 'W', parameters: { path: 'a' } }] });
    expect(single?.method).to.equal('GET');
    expect(single?.parameters).to.deep.include({ responseMode: 'onReceived', responseData: 'firstEntryJson', responseCode: 200, authentication: 'none', responseBinaryPropertyName: 'data' });
    const multi = await registry.activate({ workflowId: 'b', nodes: [{ name: 'W', parameters: { path: 'b', multipleMethods: true } }] });
    expect(multi.map((webhook) => webhook.method)).to.deep.equal(['GET', 'POST']);
    const [named] = await registry.activate({ workflowId: 'c', nodes: [{ name: 'W', parameters: { path: 'c', options: { responsePropertyName: '' } } }] });
    expect(named?.parameters.responsePropertyName).to.equal('data');
  });
});
