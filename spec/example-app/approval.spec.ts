import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import request from 'supertest';
import { createOrdersApp } from '../../example-app/app.js';

describe('example-app: the approval pattern, as README prints its curls', () => {
  let server: Server;
  before(async () => {
    server = createServer(await createOrdersApp());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  after(async () => { await new Promise<void>((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }); });

  it('records an expense, answers with its approval link, applies the click, and tells a second click why not', async () => {
    const created = await request(server).post('/api/automation/webhook/expenses').send({ amount: 120, for: 'Team lunch' }).expect(200);
    expect(created.body.expense).to.deep.equal({ id: 1, amount: 120, for: 'Team lunch', status: 'awaiting approval' });
    const link = new URL(created.body.approvalUrl as string);
    expect(link.pathname).to.match(/^\/api\/automation\/webhook-waiting\/[\w-]{22}$/);
    const click = `${link.pathname}${link.search}&decision=approve`;
    const approved = await request(server).get(click).expect(200);
    expect(approved.body).to.deep.equal({ expense: { id: 1, amount: 120, for: 'Team lunch', status: 'approved' } });
    const again = await request(server).get(click).expect(409);
    expect(again.body.code).to.equal('WAIT_RUN_FINISHED');
    await request(server).get(`${link.pathname}?decision=approve`).expect(403);
  });
});
