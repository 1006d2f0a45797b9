import { expect } from 'chai';
import {
  activationWarnings,
  MemoryWebhookRegistry,
  resolveWorkflowWebhooks,
  type WorkflowWebhooks,
} from '../../../lib/index.js';
import { WEBHOOK_NODE_DESCRIPTION } from '../../../lib/definitions/index.js';

function workflow(options: Record<string, unknown>, more: Partial<WorkflowWebhooks> = {}): WorkflowWebhooks {
  return {
    workflowId: 'wf-1',
    nodes: [{ name: 'Webhook', parameters: { path: 'orders', httpMethod: ['GET', 'POST'], multipleMethods: true, options } }],
    ...more,
  };
}

describe('options a Webhook node does not have', () => {
  it('are reported at activation, with the likely intended option', async () => {
    const registry = new MemoryWebhookRegistry();
    const webhooks = await registry.activate(workflow({ rawBdy: true, ignoreBots: true }));
    expect(webhooks).to.have.length(2);
    const warnings = activationWarnings(webhooks);
    expect(warnings).to.deep.equal([{
      code: 'unknown-option',
      workflowId: 'wf-1',
      nodeName: 'Webhook',
      path: 'options.rawBdy',
      message: 'Workflow "wf-1", Webhook node "Webhook": options.rawBdy is not an option of the Webhook node, so it is ignored; did you mean rawBody?',
    }]);
    // Every webhook of the node carries the node's list; the activation itself went through.
    expect(webhooks[1]?.warnings).to.equal(webhooks[0]?.warnings);
    expect((await registry.lookup('production', 'POST', 'orders')).found).to.equal(true);
  });

  it('name a top-level parameter put inside options, and list the options when nothing is close', () => {
    const [webhook] = resolveWorkflowWebhooks(workflow({ responseMode: 'lastNode', colour: 'blue', htpMethod: 'GET' }));
    const messages = (webhook?.warnings ?? []).map((warning) => warning.message);
    expect(messages[0]).to.match(/options\.responseMode is ignored: responseMode is a parameter of the node, set beside options, not inside them\.$/);
    expect(messages[1]).to.match(/options\.colour is not an option of the Webhook node, so it is ignored; its options are allowedOrigins, binaryData, binaryPropertyName, /);
    expect(messages[2]).to.match(/options\.htpMethod .* did you mean the parameter httpMethod \(set beside options, not inside them\)\?$/);
  });

  it('leave nothing to say about every option the node has, responseBinaryPropertyName included', () => {
    const description = WEBHOOK_NODE_DESCRIPTION.properties.find((property) => property.name === 'options') as { options: { name: string; default: unknown }[] };
    const every = Object.fromEntries(description.options.map((option) => [option.name, option.default]));
    const webhooks = resolveWorkflowWebhooks(workflow({ ...every, responseBinaryPropertyName: 'file', allowedOrigins: '*' }));
    expect(activationWarnings(webhooks)).to.deep.equal([]);
    // No key at all when there is nothing to say, so that such webhooks look as they always did.
    expect(webhooks[0]).to.not.have.property('warnings');
  });

  it('are given once per node by activationWarnings, in node order, a JSON `__proto__` key as a plain name', () => {
    const webhooks = resolveWorkflowWebhooks({
      workflowId: 'wf-2',
      nodes: [
        { name: 'A', parameters: { path: 'a', multipleMethods: true, options: { x: 1 } } },
        { name: 'B', parameters: { path: 'b', options: JSON.parse('{ "y": 2, "__proto__": 3 }') as Record<string, unknown> } },
      ],
    });
    expect(activationWarnings(webhooks).map((warning) => `${warning.nodeName} ${warning.path}`)).to.deep.equal(['A options.x', 'B options.y', 'B options.__proto__']);
  });
});
