import { expect } from 'chai';
import request from 'supertest';
import type { TriggerItem, WebhookExecutor } from '../../../lib/index.js';
import { BASE, HOSTS } from '../../support/apps.js';
import { publish, waitingApp, type WaitingApp } from '../../support/waiting/app.js';

const START = `${BASE}/webhook/start`;

for (const host of HOSTS) {
  describe(`a run that waits for a call in the run (${host.name}, under a base path)`, () => {
    let app: WaitingApp;
    afterEach(async () => { await app?.close(); });

    /** A workflow that sends its resume address on and continues with the call that arrives there. */
    function approval(options: Parameters<WebhookExecutor>[0] extends infer R ? (R extends { waitForCall(o: infer O): unknown } ? O : never) : never = {}): WebhookExecutor {
      return async (run) => {
        publish(app, options.suffix === undefined ? run.resumeUrl : run.resumeUrlFor(options.suffix));
        const call: TriggerItem = await run.waitForCall({ timeoutMs: 5000, ...options });
        if (options.responseMode === 'responseNode') run.respond({ status: 202, body: { approvedBy: (call.json.body as { user?: string }).user } });
        return { items: [{ json: { decision: call.json.body, query: call.json.query, files: Object.keys(call.binary ?? {}) } }] };
      };
    }

    it('continues with the JSON body of the call to its resume address, which is answered at once', async () => {
      app = await waitingApp(host, approval());
      const started = request(app.server).post(START).send({ order: 7 }).then((response) => response);
      const resume = await app.nextWait();
      expect(resume).to.match(/^\/api\/automation\/webhook-waiting\/[\w-]{22}\?signature=[\w-]{43}$/);
      const answer = await request(app.server).post(`${resume}&note=yes`).send({ approved: true });
      expect(answer.status).to.equal(200);
      expect(answer.body).to.deep.equal({ message: 'Workflow was started' });
      const first = await started;
      expect(first.body).to.deep.equal({ decision: { approved: true }, query: { note: 'yes' }, files: [] });
      expect(app.events.map((event) => event.type)).to.include.members(['waiting', 'resumed']);
    });

    it('takes a form and a multipart upload as a webhook does', async () => {
      app = await waitingApp(host, approval());
      let started = request(app.server).post(START).send({}).then((response) => response);
      await request(app.server).post(await app.nextWait()).type('form').send('approved=yes&by=ana').expect(200);
      expect((await started).body.decision).to.deep.equal({ approved: 'yes', by: 'ana' });
      started = request(app.server).post(START).send({}).then((response) => response);
      await request(app.server).post(await app.nextWait()).field('approved', 'yes').attach('scan', Buffer.from('%PDF-1.4'), 'signed.pdf').expect(200);
      expect((await started).body).to.deep.include({ decision: { approved: 'yes' }, files: ['scan'] });
    });

    it('answers the resume call with the run\'s result (lastNode) or its respond() (responseNode)', async () => {
      app = await waitingApp(host, approval({ responseMode: 'lastNode' }));
      let started = request(app.server).post(START).send({}).then((response) => response);
      const last = await request(app.server).post(await app.nextWait()).send({ approved: true });
      expect(last.body).to.deep.equal({ decision: { approved: true }, query: last.body.query, files: [] });
      await started;
      await app.close();
      app = await waitingApp(host, approval({ responseMode: 'responseNode' }), { responseMode: 'onReceived' });
      started = request(app.server).post(START).send({}).then((response) => response);
      const node = await request(app.server).post(await app.nextWait()).send({ user: 'ana' });
      expect(node.status).to.equal(202);
      expect(node.body).to.deep.equal({ approvedBy: 'ana' });
      expect((await started).status).to.equal(200);
    });

    it('refuses a second call with 409, a bad or missing signature (or one made for another suffix) with 403, another method with 405, another suffix with 404', async () => {
      let release!: () => void;
      const held = new Promise<void>((resolve) => { release = resolve; });
      app = await waitingApp(host, async (run) => {
        publish(app, run.resumeUrlFor('approve'));
        publish(app, run.resumeUrlFor('reject'));
        publish(app, run.resumeUrl);
        await run.waitForCall({ suffix: 'approve', httpMethod: ['POST', 'PUT'], timeoutMs: 5000 });
        await held;
        return { items: [] };
      }, { responseMode: 'onReceived' });
      await request(app.server).post(START).send({}).expect(200);
      const resume = await app.nextWait();
      const [rejectAddress, bareAddress] = [await app.nextWait(), await app.nextWait()];
      const [path, query] = resume.split('?') as [string, string];
      expect((await request(app.server).post(path).send({})).body.code).to.equal('WAIT_SIGNATURE_INVALID');
      expect((await request(app.server).post(`${path}?signature=${'A'.repeat(43)}`)).status).to.equal(403);
      expect((await request(app.server).post(`${path.replace('/approve', '')}?${query}`)).body.code).to.equal('WAIT_SIGNATURE_INVALID');
      expect((await request(app.server).post(bareAddress)).body.code).to.equal('WAIT_NOT_FOUND');
      expect((await request(app.server).post(rejectAddress)).status).to.equal(404);
      const wrongMethod = await request(app.server).get(resume);
      expect(wrongMethod.status).to.equal(405);
      expect(wrongMethod.headers.allow).to.equal('POST, PUT');
      expect((await request(app.server).put(resume).send({})).status).to.equal(200);
      const second = await request(app.server).post(resume).send({});
      expect([second.status, second.body.code]).to.deep.equal([409, 'WAIT_ALREADY_RESUMED']);
      release();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect((await request(app.server).post(resume).send({})).body.code).to.equal('WAIT_RUN_FINISHED');
      expect((await request(app.server).post(`${BASE}/webhook-waiting/not-an-id?${query}`)).status).to.equal(404);
    });

    it('rejects waitForCall at its timeout, and when the run is told to stop', async () => {
      const outcomes: string[] = [];
      app = await waitingApp(host, async (run) => {
        await run.waitForCall({ timeoutMs: 100 }).catch((error: { code?: string }) => outcomes.push(String(error.code)));
        return { items: [{ json: { outcomes } }] };
      });
      expect((await request(app.server).post(START).send({})).body).to.deep.equal({ outcomes: ['WAIT_TIMED_OUT'] });
      expect(app.events.map((event) => event.type)).to.include('expired');
      await app.close();
      app = await waitingApp(host, async (run) => {
        await run.waitForCall({ timeoutMs: 5000 }).catch((error: { code?: string }) => outcomes.push(String(error.code)));
        return { items: [] };
      }, { responseTimeoutMs: 100 });
      expect((await request(app.server).post(START).send({})).status).to.equal(524);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(outcomes).to.deep.equal(['WAIT_TIMED_OUT', 'WORKFLOW_TIMEOUT']);
    });

    it('tells a run that asks to wait without a waitingSecret which option is missing', async () => {
      let message = '';
      app = await waitingApp(host, async (run) => {
        await run.waitForCall().catch((error: Error) => { message = error.message; });
        return { items: [{ json: {} }] };
      }, { waitingSecret: undefined });
      await request(app.server).post(START).send({}).expect(200);
      expect(message).to.contain('waitingSecret');
    });
  });
}
