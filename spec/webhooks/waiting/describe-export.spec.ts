import { expect } from 'chai';
import request from 'supertest';
import { createWebhookMiddleware, describeWebhooks, fromWorkflowExport, MemoryWebhookRegistry } from '../../../lib/index.js';
import { BASE, HOSTS } from '../../support/apps.js';
import { SECRET } from '../../support/waiting/app.js';

describe('waiting addresses beside the other features', () => {
  it('are one templated path of the OpenAPI document, with the answers a resume call can get', async () => {
    const registry = new MemoryWebhookRegistry();
    await registry.activate({ workflowId: 'orders', nodes: [{ name: 'Webhook', parameters: { path: 'orders', httpMethod: 'POST' } }] });
    const document = await describeWebhooks(registry, { baseUrl: 'https://api.example.com/api/automation', waitingPrefix: 'webhook-waiting' });
    const path = document.paths['/webhook-waiting/{waitId}'] as { parameters: { name: string; in: string }[]; post: { responses: Record<string, unknown> } };
    expect(path.parameters.map(({ name, in: where }) => `${where}:${name}`)).to.deep.equal(['path:waitId', 'query:signature']);
    expect(Object.keys(path.post.responses)).to.deep.equal(['200', '403', '404', '405', '409', '421']);
    expect(Object.keys((await describeWebhooks(registry, { baseUrl: 'https://api.example.com' })).paths)).to.deep.equal(['/webhook/orders']);
  });

  it('are described by the served document when the middleware has a waitingSecret', async () => {
    const registry = new MemoryWebhookRegistry();
    const app = (HOSTS[0] ?? HOSTS[1])!.build(createWebhookMiddleware(registry, () => ({ items: [] }), { waitingSecret: SECRET, openApi: {} }));
    const served = await request(app).get(`${BASE}/openapi.json`).expect(200);
    expect(Object.keys(served.body.paths)).to.deep.equal(['/webhook-waiting/{waitId}']);
  });

  it('are read from an exported workflow\'s Wait node set to resume on a webhook call', () => {
    const workflow = fromWorkflowExport({
      id: 'approvals',
      nodes: [
        { name: 'Webhook', type: 'n8n-nodes-base.webhook', typeVersion: 2, parameters: { path: 'start', httpMethod: 'POST' } },
        {
          name: 'Wait for approval', type: 'n8n-nodes-base.wait', typeVersion: 1.1,
          parameters: {
            resume: 'webhook', httpMethod: 'POST', responseMode: 'lastNode', incomingAuthentication: 'basicAuth',
            limitWaitTime: true, resumeAmount: 2, resumeUnit: 'hours', options: { webhookSuffix: '/approve', ignoreBots: true },
          },
          credentials: { httpBasicAuth: { id: '1' } },
        },
        { name: 'Pause', type: 'n8n-nodes-base.wait', parameters: { resume: 'timeInterval', amount: 5 } },
      ],
    });
    expect(workflow.nodes.map((node) => node.name)).to.deep.equal(['Webhook']);
    expect(workflow.waits).to.deep.equal({
      'Wait for approval': {
        nodeName: 'Wait for approval', httpMethod: 'POST', responseMode: 'lastNode', authentication: 'basicAuth',
        credentials: { httpBasicAuth: { id: '1' } }, suffix: 'approve', options: { ignoreBots: true }, expiresInMs: 7_200_000,
      },
    });
  });
});
