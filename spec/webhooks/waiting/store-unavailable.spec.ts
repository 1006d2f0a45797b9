/**
 * A resume call while the store of waits (a Redis or PostgreSQL registry) does not answer: 503
 * `REGISTRY_UNAVAILABLE` with `Retry-After`, as every 503 has, and a hint that is true of a resume (the run still
 * waits, call the same address again), not that calls are served from memory (a wait is never looked up in memory
 * alone). Once the store answers again, the same address resumes the run. Over HTTP, with a real redis-server
 * paused with SIGSTOP, and a real PostgreSQL whose waits table is locked.
 */
import { expect } from 'chai';
import request from 'supertest';
import type { WebhookExecutor } from 'workflow-webhooks';
import { BASE, HOSTS } from '../../support/apps.js';
import { pathOf, waitingApp, type WaitingApp } from '../../support/waiting/app.js';
import { sharedStores } from '../../support/shared-stores.js';

for (const store of sharedStores('a resume call while the store of waits does not answer')) {
  describe(`a resume call while ${store.name} does not answer`, function () {
    this.timeout(30_000);
    const stores = store.setup();
    const namespace = `resume_503_${process.pid}`;
    let app: WaitingApp | undefined;
    const resumes: string[] = [];

    const approval: WebhookExecutor = async (run) => {
      if (run.resume !== undefined) return { items: [{ json: { state: run.resume.state, decision: run.items[0]?.json.body } }] };
      resumes.push(pathOf((await run.suspend({ state: { order: 7 }, responseMode: 'lastNode' })).resumeUrl));
      return { items: [{ json: { waiting: true } }] };
    };

    beforeEach(async () => {
      app = await waitingApp(HOSTS[0]!, approval, { registry: await stores.open(namespace, { commandTimeoutMs: 300 }) });
    });
    afterEach(async () => { await app?.close(); });

    it('answers 503 REGISTRY_UNAVAILABLE with Retry-After and a hint about the resume, then resumes the run at the same address', async () => {
      const server = (app as WaitingApp).server;
      await request(server).post(`${BASE}/webhook/start`).send({}).expect(200);
      const refused = await stores.frozen(namespace, () => request(server).post(resumes[0] as string).send({ approved: true }));
      expect([refused.status, refused.body.code]).to.deep.equal([503, 'REGISTRY_UNAVAILABLE']);
      expect(refused.headers['retry-after']).to.match(/^[1-9]\d*$/);
      expect(refused.body.hint).to.not.include('served from memory');
      expect(refused.body.hint).to.include('still waits');
      const resumed = await request(server).post(resumes[0] as string).send({ approved: true });
      expect([resumed.status, resumed.body]).to.deep.equal([200, { state: { order: 7 }, decision: { approved: true } }]);
    });
  });
}
