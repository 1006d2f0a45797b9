/**
 * fromWorkflowExport's Wait nodes and optional fields (lib/webhooks/registry/workflow-export.ts): only enabled, named
 * Wait nodes that resume on a webhook call give `waits`; an export without them, without a name, a typeVersion or
 * credentials gives no such key, so a workflow looks as it always did.
 */
import { expect } from 'chai';
import { fromWorkflowExport } from '../../../lib/webhooks/registry/workflow-export.js';

const webhookNode = { name: 'Hook', type: 'n8n-nodes-base.webhook', parameters: { path: 'orders' } };
const waitNode = (name: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> =>
  ({ name, type: 'n8n-nodes-base.wait', parameters: { resume: 'webhook' }, ...extra });

describe('Wait nodes of an imported export', () => {
  it('gives the enabled, named Wait nodes that resume on a call, by name', () => {
    const workflow = fromWorkflowExport(JSON.stringify({ id: 'wf', nodes: [
      webhookNode, waitNode('Approve', { credentials: { a: 1 } }), waitNode('Off', { disabled: true }), waitNode(7),
      waitNode('Timer', { parameters: { resume: 'timeInterval' } }), { name: 'Other', type: 'n8n-nodes-base.set', parameters: { resume: 'webhook' } },
      null,
    ] }));
    expect(workflow.waits).to.deep.equal({ Approve: { nodeName: 'Approve', credentials: { a: 1 } } });
  });

  it('leaves out waits, a name, a typeVersion and credentials the export does not have', () => {
    const workflow = fromWorkflowExport(JSON.stringify({ id: 'wf', name: 42, nodes: [webhookNode, waitNode('Timer', { parameters: { resume: 'timeInterval' } })] }));
    expect(workflow).to.deep.equal({ workflowId: 'wf', nodes: [{ name: 'Hook', type: 'n8n-nodes-base.webhook', parameters: { path: 'orders' } }] });
    expect(Object.keys(workflow)).to.deep.equal(['workflowId', 'nodes']);
    expect(Object.keys(workflow.nodes[0]!)).to.not.include.members(['typeVersion', 'credentials']);
  });

  it('keeps the name, typeVersion and credentials it does have', () => {
    const workflow = fromWorkflowExport({ id: 3, name: 'Orders', nodes: [{ ...webhookNode, typeVersion: 2, credentials: { c: 1 } }] });
    expect(workflow).to.deep.include({ workflowId: '3', workflowName: 'Orders' });
    expect(workflow.nodes[0]).to.deep.include({ typeVersion: 2, credentials: { c: 1 } });
  });
});
