/**
 * The example app is registry-agnostic: it takes the host's registry, may leave activating to another instance,
 * names itself in a header, and its editor routes activate and deactivate the workflows it knows.
 */
import { expect } from 'chai';
import request from 'supertest';
import { MemoryWebhookRegistry } from 'workflow-webhooks';
import { createOrdersApp } from '../../example-app/app.js';

const HELLO = '/api/automation/webhook/hello?name=Ada';

describe('example-app: a registry of the host, shared by instances', () => {
  it('serves what another instance activated in the same registry, and names itself in x-instance', async () => {
    const registry = new MemoryWebhookRegistry();
    await createOrdersApp({ registry, instance: 'a' });
    const b = await createOrdersApp({ registry, activate: false, instance: 'b' });
    const res = await request(b).get(HELLO).expect(200).expect('x-instance', 'b');
    expect(res.text).to.equal('Hello Ada, this text came from the workflow.\n');
    // Error answers of the webhook middleware keep the host's header too.
    await request(b).get('/api/automation/webhook/nothing').expect(404).expect('x-instance', 'b');
    await request(b).get('/api/orders').expect(200).expect('x-instance', 'b');
  });

  it('activates nothing with activate: false, yet runs every workflow once the editor activates it', async () => {
    const registry = new MemoryWebhookRegistry();
    const app = await createOrdersApp({ registry, activate: false });
    await request(app).get(HELLO).expect(404);
    const on = await request(app).put('/api/editor/workflows/greeting/active').expect(200);
    expect(on.body).to.deep.equal({ workflowId: 'greeting', active: true, webhooks: ['GET hello'] });
    await request(app).get(HELLO).expect(200);
    await request(app).put('/api/editor/workflows/report-start/active').expect(200);
    await request(app).post('/api/automation/webhook/reports').send({ title: 'Q3' }).expect(202);
  });

  it('deactivates a workflow at once, and says when there was nothing to free', async () => {
    const app = await createOrdersApp();
    const off = await request(app).delete('/api/editor/workflows/greeting/active').expect(200);
    expect(off.body).to.deep.equal({ workflowId: 'greeting', active: false, wasActive: true });
    await request(app).get(HELLO).expect(404);
    const again = await request(app).delete('/api/editor/workflows/greeting/active').expect(200);
    expect(again.body.wasActive).to.equal(false);
  });

  it('answers 404 for a workflow it does not know', async () => {
    const app = await createOrdersApp();
    await request(app).put('/api/editor/workflows/nope/active').expect(404, { message: 'No workflow nope' });
    await request(app).delete('/api/editor/workflows/nope/active').expect(404);
  });

  it('answers a conflict with 409 and the registry error\'s message', async () => {
    const registry = new MemoryWebhookRegistry();
    const app = await createOrdersApp({ registry, activate: false });
    await registry.activate({ workflowId: 'other', workflowName: 'Other', nodes: [{ name: 'Hook', parameters: { path: 'hello', httpMethod: 'GET' } }] });
    const res = await request(app).put('/api/editor/workflows/greeting/active').expect(409);
    expect(res.body.code).to.equal('WEBHOOK_CONFLICT');
    expect(res.body.message).to.match(/"hello" and method GET are already in use by workflow "Other"/);
  });
});
