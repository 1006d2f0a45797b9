import { expect } from 'chai';
import request from 'supertest';
import { createOrdersApp } from '../../example-app/app.js';

describe('example-app: an orders API with workflow webhooks', () => {
  const base = '/api/automation/webhook';

  it('answers the string-response recipe with the text set by Edit Fields', async () => {
    const app = await createOrdersApp();
    const res = await request(app).get(`${base}/hello?name=Ada`).expect(200).expect('content-type', /text\/plain/);
    expect(res.text).to.equal('Hello Ada, this text came from the workflow.\n');
  });

  it('records an order through an onReceived webhook and serves it from the host route', async () => {
    const app = await createOrdersApp();
    await request(app).post(`${base}/orders`).send({ item: 'Tea' }).expect(200, { message: 'Workflow was started' });
    const orders = await request(app).get('/api/orders').expect(200);
    expect(orders.body).to.deep.include({ id: 2, item: 'Tea', status: 'new' });
  });

  it('reads and updates an order through one multi-method dynamic webhook', async () => {
    const app = await createOrdersApp();
    await request(app).get(`${base}/orders/1`).expect(200, { id: 1, item: 'Coffee beans', status: 'shipped' });
    await request(app).put(`${base}/orders/1`).send({ status: 'returned' }).expect(200, { id: 1, item: 'Coffee beans', status: 'returned' });
    const res = await request(app).delete(`${base}/orders/1`).expect(405);
    expect(res.headers.allow).to.equal('GET, PUT');
  });

  it('serves the OpenAPI document of its active webhooks beside them', async () => {
    const app = await createOrdersApp();
    const res = await request(app).get('/api/automation/openapi.json').expect(200).expect('content-type', /application\/json/);
    expect(res.body.info.title).to.equal('Orders automation');
    expect(Object.keys(res.body.paths)).to.include.members(['/webhook/orders', '/webhook/orders/{orderId}', '/webhook/hello']);
    expect(Object.keys(res.body.paths['/webhook/orders/{orderId}'])).to.deep.equal(['parameters', 'get', 'put']);
  });

  it('counts its webhook calls for Prometheus at /metrics, by workflow, method, status class and code', async () => {
    const app = await createOrdersApp();
    await request(app).get(`${base}/orders/1`).expect(200);
    await request(app).get(`${base}/orders/1`).expect(200);
    await request(app).get(`${base}/nothing`).expect(404);
    const res = await request(app).get('/metrics').expect(200).expect('content-type', /text\/plain/);
    const line = (pattern: RegExp): string | undefined => res.text.split('\n').find((text) => pattern.test(text));
    expect(line(/^webhook_calls_total\{.*webhook_workflow_id="order-status".*\} 2$/), res.text).to.be.a('string');
    expect(line(/^webhook_calls_total\{(?=.*error_type="WEBHOOK_NOT_FOUND")(?=.*webhook_response_status_class="4xx").*\} 1$/), res.text).to.be.a('string');
    expect(line(/^webhook_call_duration_count\{.*webhook_workflow_id="order-status".*\} 2$/), res.text).to.be.a('string');
  });

  it('answers an unknown address with 404 and a hint', async () => {
    const app = await createOrdersApp();
    const res = await request(app).get(`${base}/nothing`).expect(404);
    expect(res.body.hint).to.be.a('string');
  });
});

describe('example-app: the long-work pattern', () => {
  it('answers the start webhook at once with a job id, then reports progress and the result', async () => {
    const app = await createOrdersApp({ reportStepMs: 5 });
    const started = await request(app).post('/api/automation/webhook/reports').send({ title: 'Q3' }).expect(202);
    expect(started.body).to.include({ jobId: 'job-1', status: 'running' });
    expect(started.body.statusUrl).to.match(/\/api\/automation\/webhook\/reports\/job-1$/);
    const running = await request(app).get('/api/automation/webhook/reports/job-1').expect(200);
    expect(running.body.status).to.equal('running');
    let done = running.body as { status: string; result?: unknown };
    for (let i = 0; i < 100 && done.status !== 'done'; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      done = (await request(app).get('/api/automation/webhook/reports/job-1').expect(200)).body as typeof done;
    }
    expect(done).to.deep.include({ status: 'done', progress: 100, result: { rows: 1234, title: 'Q3' } });
  });
});

describe('example-app: an editor route that listens for a test event', () => {
  it('captures the one test call and returns its trigger data and output', async () => {
    const app = await createOrdersApp();
    const listening = request(app).post('/api/editor/workflows/signup/listen').then((res) => res);
    let res = await request(app).post('/api/automation/webhook-test/signup').send({ name: 'Ada' });
    for (let i = 0; i < 50 && res.status === 404; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      res = await request(app).post('/api/automation/webhook-test/signup').send({ name: 'Ada' });
    }
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ welcome: 'Welcome, Ada!' });
    const captured = await listening;
    expect(captured.body.status).to.equal('received');
    expect(captured.body.trigger[0].json).to.include({ executionMode: 'test' });
    expect(captured.body.output).to.deep.equal({ items: [{ json: { welcome: 'Welcome, Ada!' } }] });
  });

  it('answers timedOut when no call comes within the window', async () => {
    const app = await createOrdersApp();
    const res = await request(app).post('/api/editor/workflows/signup/listen?timeoutMs=20').expect(200);
    expect(res.body).to.deep.equal({ status: 'timedOut' });
    await request(app).post('/api/automation/webhook-test/signup').expect(404);
  });
});
