import { expect } from 'chai';
import request from 'supertest';
import {
  createWebhookMiddleware,
  fromWorkflowExport,
  MemoryWebhookRegistry,
  resolveWorkflowWebhooks,
  type ExecutionResult,
  type WebhookRun,
} from '../../../lib/index.js';
import { HTML_SANDBOX } from '../../../lib/webhooks/response/finalize.js';
import { BASE, HOSTS } from '../../support/apps.js';
import { LOGIN_EXPORT, ORDERS_EXPORT, PAGE_EXPORT, PROFILE_EXPORT, UPLOAD_EXPORT } from '../../support/n8n-exports.js';

function refusal(run: () => unknown): Error & { code?: string; hint?: string } {
  try {
    run();
  } catch (error) {
    return error as Error & { code?: string };
  }
  throw new Error('expected a refusal');
}

describe('importing a workflow exported from the known platform', () => {
  it('takes its id, name and Webhook nodes, and leaves out other node types and disabled triggers', () => {
    const workflow = fromWorkflowExport(ORDERS_EXPORT);
    expect(workflow.workflowId).to.equal('Xk3kP0xYz12AbCdE');
    expect(workflow.workflowName).to.equal('Orders intake');
    expect(workflow.nodes.map((node) => node.name)).to.deep.equal(['Webhook']);
    expect(workflow.nodes[0]).to.deep.include({ type: 'n8n-nodes-base.webhook', typeVersion: 2.1, webhookId: 'b7a1c2d3-e4f5-4061-8293-a4b5c6d7e8f9' });
  });

  it('reads the JSON text as the platform writes it, and keeps the credential reference for the resolver', () => {
    const workflow = fromWorkflowExport(JSON.stringify(LOGIN_EXPORT));
    expect(workflow.nodes[0]?.credentials).to.deep.equal({ httpHeaderAuth: { id: 'hdr01', name: 'Login header' } });
  });

  it('uses the webhookId as the address when the export leaves the path out', () => {
    const exported = structuredClone(UPLOAD_EXPORT);
    delete exported.nodes[0]?.parameters?.path;
    const [webhook] = resolveWorkflowWebhooks(fromWorkflowExport(exported));
    expect(webhook?.path).to.equal('d9c3e4f5-a6b7-4283-a4b5-c6d7e8f90a12');
  });

  it('reads a fixed expression as its text, and refuses one that computes, naming the parameter', () => {
    const fixed = structuredClone(UPLOAD_EXPORT);
    (fixed.nodes[0]?.parameters as Record<string, unknown>).path = '=scans-v2';
    expect(fromWorkflowExport(fixed).nodes[0]?.parameters.path).to.equal('scans-v2');
    const computed = structuredClone(UPLOAD_EXPORT);
    (computed.nodes[0]?.parameters as Record<string, unknown>).options = { responseData: '={{ $json.id }}' };
    const error = refusal(() => fromWorkflowExport(computed));
    expect(error.code).to.equal('WEBHOOK_INVALID_NODE');
    expect(error.message).to.match(/node "Scanner": parameter\.options\.responseData is an expression/);
  });

  it('takes the id to use when the export has none, and refuses an export without one', () => {
    const { id: _id, ...anonymous } = UPLOAD_EXPORT;
    expect(fromWorkflowExport(anonymous, { workflowId: 'scans' }).workflowId).to.equal('scans');
    expect(refusal(() => fromWorkflowExport(anonymous)).hint).to.match(/workflowId/);
  });

  it('refuses what is not one exported workflow with a message saying what it expected', () => {
    expect(refusal(() => fromWorkflowExport('{"nodes": [')).message).to.equal('The workflow export is not valid JSON.');
    expect(refusal(() => fromWorkflowExport([ORDERS_EXPORT] as never)).message).to.match(/several workflows; import each one/);
    expect(refusal(() => fromWorkflowExport({ id: 'x' } as never)).message).to.match(/object with a nodes array/);
  });

  it('never makes a webhook of another node type, even when activate() is given one directly', async () => {
    const registry = new MemoryWebhookRegistry();
    const ftp = ORDERS_EXPORT.nodes[1] as (typeof ORDERS_EXPORT.nodes)[number];
    const error = await registry.activate({ workflowId: 'wf', nodes: [{ ...ftp, parameters: ftp.parameters as never }] })
      .then(() => undefined, (failure: Error & { code?: string }) => failure);
    expect(error?.code).to.equal('WEBHOOK_INVALID_NODE');
    expect(error?.message).to.match(/node "FTP" is of type "n8n-nodes-base\.ftp", not a Webhook trigger/);
    expect((await registry.lookup('production', 'GET', 'incoming')).found).to.equal(false);
  });
});

for (const host of HOSTS) {
  describe(`exported workflows of node versions 1 to 2.1, served in ${host.name}`, () => {
    let registry: MemoryWebhookRegistry;
    let runs: WebhookRun[];
    let output: ExecutionResult;
    let app: ReturnType<(typeof HOSTS)[number]['build']>;

    beforeEach(async () => {
      registry = new MemoryWebhookRegistry();
      runs = [];
      output = { items: [{ json: { page: '<form method="post"><button>Agree</button></form>', ok: true } }] };
      for (const exported of [ORDERS_EXPORT, UPLOAD_EXPORT, PAGE_EXPORT, LOGIN_EXPORT, PROFILE_EXPORT]) {
        await registry.activate(fromWorkflowExport(exported));
      }
      app = host.build(createWebhookMiddleware(registry, (run) => {
        runs.push(run);
        return output;
      }, { logger: { error: () => undefined, warn: () => undefined } }));
    });

    it('answers with the response code version 2.1 keeps in its options (201)', async () => {
      const res = await request(app).post(`${BASE}/webhook/orders`).send({ sku: 'A-1' }).expect(201);
      expect(res.body).to.deep.equal({ message: 'Workflow was started' });
      expect(runs[0]?.items[0]?.json.body).to.deep.equal({ sku: 'A-1' });
    });

    it('answers with the top-level response code of version 1 and puts any body into binary with binaryData', async () => {
      await request(app).post(`${BASE}/webhook/scans`).send({ page: 1 }).expect(202);
      const item = runs[0]?.items[0];
      expect(item?.json.body).to.deep.equal({});
      expect(item?.binary?.scan).to.deep.include({ mimeType: 'application/json', bytes: 10, fileSize: '10 B', fileType: 'json', fileExtension: 'json' });
      expect(item?.binary?.scan?.data?.toString()).to.equal('{"page":1}');
    });

    it('keeps a multipart upload whole as one binary entry with binaryData', async () => {
      await request(app).post(`${BASE}/webhook/scans`).field('note', 'x').attach('file', Buffer.from('%PDF-1.7'), 'scan.pdf').expect(202);
      const item = runs[0]?.items[0];
      expect(item?.json.body).to.deep.equal({});
      expect(Object.keys(item?.binary ?? {})).to.deep.equal(['scan']);
      expect(item?.binary?.scan?.mimeType).to.equal('multipart/form-data');
      expect(item?.binary?.scan?.data?.toString()).to.match(/^--.+\r\nContent-Disposition: form-data; name="note"/);
    });

    it('answers version 1.1\'s HTML page with its code, a charset, and a sandbox its form can work in', async () => {
      const res = await request(app).get(`${BASE}/webhook/consent`).expect(203)
        .expect('content-type', 'text/html; charset=utf-8').expect('content-security-policy', HTML_SANDBOX);
      expect(res.text).to.equal('<form method="post"><button>Agree</button></form>');
    });

    it('answers version 2\'s custom code and sets both its cookies, leaving out the policy header the host owns', async () => {
      const res = await request(app).post(`${BASE}/webhook/login`).expect(299);
      expect(res.headers['set-cookie']).to.deep.equal(['session=abc123; Path=/; HttpOnly', 'theme=dark; Path=/']);
      expect(res.headers).to.not.have.property('content-security-policy');
      expect(runs).to.have.length(1);
    });

    it('serves version 2.1\'s two methods on its dynamic path under the webhookId, each on its own output', async () => {
      await request(app).get(`${BASE}/webhook/a2f6b7c8-d9e0-45b6-97e8-f90a1b2c3d45/users/42`).expect(200);
      await request(app).put(`${BASE}/webhook/a2f6b7c8-d9e0-45b6-97e8-f90a1b2c3d45/users/42`).send({ name: 'Ada' }).expect(200);
      expect(runs.map((run) => [run.method, run.outputIndex, run.items[0]?.json.params])).to.deep.equal([
        ['GET', 0, { id: '42' }],
        ['PUT', 1, { id: '42' }],
      ]);
    });

    it('has no address for the disabled trigger nor for the FTP node', async () => {
      await request(app).post(`${BASE}/webhook/orders-old`).expect(404);
      await request(app).get(`${BASE}/webhook/incoming`).expect(404);
      expect(runs).to.have.length(0);
    });
  });
}
