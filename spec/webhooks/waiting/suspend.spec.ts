import { expect } from 'chai';
import request from 'supertest';
import { MemoryWebhookRegistry, type WebhookExecutor } from '../../../lib/index.js';
import { BASE, HOSTS } from '../../support/apps.js';
import { eventually } from '../../support/temp-dir.js';
import { publish, waitingApp, type WaitingApp } from '../../support/waiting/app.js';

const START = `${BASE}/webhook/start`;

for (const host of HOSTS) {
  describe(`a run that suspends until a call resumes it (${host.name}, under a base path)`, () => {
    let app: WaitingApp;
    afterEach(async () => { await app?.close(); });

    /** Sends an approval link and ends; the click starts a new run that reads the state it left. */
    function approval(wait: Parameters<WebhookExecutor>[0] extends { suspend(o?: infer O): unknown } ? O : never = {}): WebhookExecutor {
      return async (run) => {
        if (run.resume !== undefined) {
          const call = run.items[0];
          if (wait.responseMode === 'responseNode') run.respond({ status: 201, body: { thanks: run.resume.state } });
          return { items: [{ json: { state: run.resume.state, decision: call?.json.body, files: Object.keys(call?.binary ?? {}), mode: call?.json.executionMode } }] };
        }
        const suspended = await run.suspend({ state: { order: 7 }, ...wait });
        publish(app, suspended.resumeUrl);
        return { items: [{ json: { status: 'waiting for approval', expiresAt: suspended.expiresAt } }] };
      };
    }

    it('starts a new run with the state it left and the call\'s item, in every response mode of the wait', async () => {
      app = await waitingApp(host, approval({ responseMode: 'lastNode' }));
      expect((await request(app.server).post(START).send({})).body.status).to.equal('waiting for approval');
      const resumed = await request(app.server).post(await app.nextWait()).send({ approved: true });
      expect(resumed.body).to.deep.equal({ state: { order: 7 }, decision: { approved: true }, files: [], mode: 'production' });
      await app.close();
      app = await waitingApp(host, approval({ responseMode: 'responseNode' }));
      await request(app.server).post(START).send({}).expect(200);
      const answered = await request(app.server).post(await app.nextWait()).type('form').send('approved=yes');
      expect([answered.status, answered.body]).to.deep.equal([201, { thanks: { order: 7 } }]);
      await app.close();
      app = await waitingApp(host, approval({ responseCode: 202 }));
      await request(app.server).post(START).send({}).expect(200);
      const received = await request(app.server).post(await app.nextWait()).attach('scan', Buffer.from('signed'), 'scan.pdf');
      expect([received.status, received.body]).to.deep.equal([202, { message: 'Workflow was started' }]);
    });

    it('answers 409 to a call after the one that resumed it, and 404 once it expired', async () => {
      app = await waitingApp(host, approval({ responseMode: 'lastNode' }));
      await request(app.server).post(START).send({});
      const resume = await app.nextWait();
      await request(app.server).post(resume).send({}).expect(200);
      const again = await request(app.server).post(resume).send({});
      expect([again.status, again.body.code]).to.deep.equal([409, 'WAIT_RUN_FINISHED']);
      await app.close();
      app = await waitingApp(host, approval({ expiresInMs: 50 }));
      await request(app.server).post(START).send({});
      const expiring = await app.nextWait();
      await eventually(() => app.events.some((event) => event.type === 'expired'), 3000);
      const expired = await request(app.server).post(expiring).send({});
      expect([expired.status, expired.body.code]).to.deep.equal([404, 'WAIT_NOT_FOUND']);
    });

    it('lets exactly one of three racing calls resume it', async () => {
      app = await waitingApp(host, approval({ responseMode: 'lastNode' }));
      await request(app.server).post(START).send({});
      const resume = await app.nextWait();
      const answers = await Promise.all([1, 2, 3].map((n) => request(app.server).post(resume).send({ n })));
      expect(answers.map((answer) => answer.status).sort()).to.deep.equal([200, 409, 409]);
    });

    it('tells the host\'s onEvent that it waits and that its address expired unused', async () => {
      app = await waitingApp(host, approval({ expiresInMs: 30 }));
      await request(app.server).post(START).send({});
      await app.nextWait();
      // The expiry's own event, not a guess of when it fires.
      await eventually(() => app.events.some((event) => event.type === 'expired'), 3000);
      const types = app.events.map((event) => event.type);
      expect(types).to.include.members(['waiting', 'expired']);
      const expired = app.events.find((event) => event.type === 'expired');
      expect(expired).to.deep.include({ workflowId: 'approval', nodeName: 'Wait', form: 'suspended', mode: 'production' });
    });

    it('guards its address with the wait\'s own options: authentication, IP allowlist, bots and body limits', async () => {
      app = await waitingApp(host, approval({ authentication: 'basicAuth', credentials: { id: 'approver' } }), {
        credentials: () => ({ user: 'ana', password: 'secret' }),
      });
      await request(app.server).post(START).send({});
      const resume = await app.nextWait();
      expect((await request(app.server).post(resume).send({})).body.code).to.equal('AUTH_REQUIRED');
      expect((await request(app.server).post(resume).auth('ana', 'wrong').send({})).body.code).to.equal('AUTH_INVALID');
      await request(app.server).post(resume).auth('ana', 'secret').send({}).expect(200);
      await app.close();
      app = await waitingApp(host, approval({ options: { ipWhitelist: '10.0.0.1', ignoreBots: true } }));
      await request(app.server).post(START).send({});
      const allowlisted = await app.nextWait();
      expect((await request(app.server).post(allowlisted).send({})).body.code).to.equal('WEBHOOK_IP_NOT_ALLOWED');
      await app.close();
      app = await waitingApp(host, approval({ limits: { bodySize: '1kb' }, options: { ignoreBots: true } }));
      await request(app.server).post(START).send({});
      const limited = await app.nextWait();
      expect((await request(app.server).post(limited).set('user-agent', 'Googlebot/2.1').send({})).body.code).to.equal('BOT_IGNORED');
      expect((await request(app.server).post(limited).send({ text: 'x'.repeat(2000) })).body.code).to.equal('LIMIT_BODY_SIZE');
      // Refused calls leave the wait waiting: the right call still resumes it.
      await request(app.server).post(limited).send({ ok: true }).expect(200);
    });

    it('refuses a run that would wait past the registry\'s maxWaiting with TOO_MANY_WAITING', async () => {
      const codes: string[] = [];
      app = await waitingApp(host, async (run) => {
        await run.suspend().catch((error: { code: string }) => codes.push(error.code));
        return { items: [{ json: {} }] };
      }, { registry: new MemoryWebhookRegistry({ maxWaiting: 2 }) });
      for (let call = 0; call < 3; call += 1) await request(app.server).post(START).send({}).expect(200);
      expect(codes).to.deep.equal(['TOO_MANY_WAITING']);
    });
  });
}

describe('the memory registry\'s waits', () => {
  it('gives back the memory of 10 000 waits left to expire', async function () {
    this.timeout(20_000);
    const registry = new MemoryWebhookRegistry();
    const now = Date.now();
    for (let index = 0; index < 10_000; index += 1) {
      await registry.putWait({ waitId: `wait-${index}`, status: 'waiting', expiresAt: now + 200, workflowId: 'w', nodeName: 'Wait', mode: 'production', startedAt: now, form: 'suspended', state: { index } });
    }
    expect(registry.waiting).to.equal(10_000);
    await eventually(() => registry.waiting === 0, 5000);
    expect(registry.waiting).to.equal(0);
  });
});
