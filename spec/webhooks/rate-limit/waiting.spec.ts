/**
 * Resume addresses are not rate limited: each is signed and resumes its run once, and a refused resume would leave
 * the run waiting until it expires. The workflow's own address stays limited.
 */
import { expect } from 'chai';
import request from 'supertest';
import type { WebhookExecutor } from '../../../lib/index.js';
import { BASE, HOSTS } from '../../support/apps.js';
import { publish, waitingApp, type WaitingApp } from '../../support/waiting/app.js';

describe('rate limits and resume addresses', () => {
  let app: WaitingApp;
  afterEach(async () => { await app?.close(); });

  it('resumes a suspended run although the workflow\'s address has spent its budget', async () => {
    const executor: WebhookExecutor = async (run) => {
      if (run.resume !== undefined) return { items: [{ json: { resumed: run.resume.state } }] };
      const suspended = await run.suspend({ state: { order: 7 }, responseMode: 'lastNode' });
      publish(app, suspended.resumeUrl);
      return { items: [{ json: { waiting: true } }] };
    };
    app = await waitingApp(HOSTS[0]!, executor, { rateLimit: { default: { limit: 1, windowMs: 60_000 } } });
    expect((await request(app.server).post(`${BASE}/webhook/start`).send({})).status).to.equal(200);
    const refused = await request(app.server).post(`${BASE}/webhook/start`).send({});
    expect([refused.status, refused.body.code]).to.deep.equal([429, 'RATE_LIMITED']);
    const resumed = await request(app.server).post(await app.nextWait()).send({ approved: true });
    expect([resumed.status, resumed.body, resumed.headers.ratelimit]).to.deep.equal([200, { resumed: { order: 7 } }, undefined]);
  });
});
