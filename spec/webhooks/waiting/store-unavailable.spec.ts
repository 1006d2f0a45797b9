/**
 * A resume call while the store of waits (a Redis registry) does not answer: 503 `REGISTRY_UNAVAILABLE` with
 * `Retry-After`, as every 503 has, and a hint that is true of a resume (the run still waits, call the same address
 * again), not that calls are served from memory (a wait is never looked up in memory alone). Once Redis answers
 * again, the same address resumes the run. Over HTTP, with a real redis-server paused with SIGSTOP.
 */
import { createClient } from 'redis';
import { expect } from 'chai';
import request from 'supertest';
import type { WebhookExecutor } from 'workflow-webhooks';
import { RedisWebhookRegistry } from 'workflow-webhooks/redis';
import { BASE, HOSTS } from '../../support/apps.js';
import { REDIS, RedisServer } from '../../support/redis-server.js';
import { findService, markNotRun } from '../../support/services.js';
import { pathOf, waitingApp, type WaitingApp } from '../../support/waiting/app.js';

if (findService(REDIS) === undefined) {
  markNotRun('a resume call while Redis does not answer', REDIS);
} else {
  describe('a resume call while Redis does not answer', function () {
    this.timeout(30_000);
    let server: RedisServer;
    let client: ReturnType<typeof createClient>;
    let registry: RedisWebhookRegistry;
    let app: WaitingApp;
    const resumes: string[] = [];

    const approval: WebhookExecutor = async (run) => {
      if (run.resume !== undefined) return { items: [{ json: { state: run.resume.state, decision: run.items[0]?.json.body } }] };
      resumes.push(pathOf((await run.suspend({ state: { order: 7 }, responseMode: 'lastNode' })).resumeUrl));
      return { items: [{ json: { waiting: true } }] };
    };

    before(async () => {
      server = await RedisServer.start() as RedisServer;
      client = createClient({ url: server.url });
      client.on('error', () => undefined);
      await client.connect();
      registry = new RedisWebhookRegistry({ client, prefix: `resume-503-${process.pid}:`, commandTimeoutMs: 300, onEvent: () => undefined });
      await registry.ready();
      app = await waitingApp(HOSTS[0]!, approval, { registry });
    });
    after(async () => {
      server.resume();
      await app.close();
      await registry.close();
      client.destroy();
      await server.stop();
    });

    it('answers 503 REGISTRY_UNAVAILABLE with Retry-After and a hint about the resume, then resumes the run at the same address', async () => {
      await request(app.server).post(`${BASE}/webhook/start`).send({}).expect(200);
      server.pause();
      let refused: request.Response;
      try {
        refused = await request(app.server).post(resumes[0] as string).send({ approved: true });
      } finally {
        server.resume();
      }
      expect([refused.status, refused.body.code]).to.deep.equal([503, 'REGISTRY_UNAVAILABLE']);
      expect(refused.headers['retry-after']).to.match(/^[1-9]\d*$/);
      expect(refused.body.hint).to.not.include('served from memory');
      expect(refused.body.hint).to.include('still waits');
      const resumed = await request(app.server).post(resumes[0] as string).send({ approved: true });
      expect([resumed.status, resumed.body]).to.deep.equal([200, { state: { order: 7 }, decision: { approved: true } }]);
    });
  });
}
