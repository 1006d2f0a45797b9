import { createClient } from 'redis';
import { expect } from 'chai';
import request from 'supertest';
import { createWebhookMiddleware, type WebhookRun } from 'workflow-webhooks';
import { RedisWebhookRegistry } from 'workflow-webhooks/redis';
import { BASE, HOSTS } from '../support/apps.js';
import { REDIS, RedisServer } from '../support/redis-server.js';
import { findService, markNotRun } from '../support/services.js';
import { eventually } from '../support/temp-dir.js';
import { credentialOf, signedHeaders } from '../support/signers.js';

const TITLE = 'signed message ids in the Redis registry';

if (findService(REDIS) === undefined) {
  markNotRun(TITLE, REDIS);
} else {
  describe(TITLE, function () {
    this.timeout(20_000);
    let server: RedisServer;
    const closers: (() => unknown)[] = [];

    before(async () => { server = await RedisServer.start() as RedisServer; });
    after(async () => {
      for (const close of closers.reverse()) await close();
      await server?.stop();
    });

    async function instance(prefix: string, runs: WebhookRun[]) {
      const client = createClient({ url: server.url });
      client.on('error', () => undefined);
      await client.connect();
      const registry = new RedisWebhookRegistry({ client, prefix, onEvent: () => undefined });
      await registry.ready();
      closers.push(() => client.destroy(), () => registry.close());
      const middleware = createWebhookMiddleware(registry, (run) => { runs.push(run); return { items: [] }; }, {
        credentials: () => credentialOf('standardWebhooks'), logger: { error: () => undefined, warn: () => undefined },
      });
      return { registry, app: (HOSTS[0] as (typeof HOSTS)[number]).build(middleware) };
    }

    /** Activation reaches the other instances through the change log: wait until each serves the path. */
    async function servedEverywhere(instances: { registry: RedisWebhookRegistry }[], path: string): Promise<void> {
      for (const { registry } of instances) {
        let found = false;
        await eventually(() => {
          void registry.lookup('production', 'POST', path).then((lookup) => { found = lookup.found; });
          return found;
        }, 5000);
      }
    }

    it('refuse on every instance a message id that any instance has received', async () => {
      const prefix = `ids-${process.pid}:`;
      const runs: WebhookRun[] = [];
      const [a, b] = [await instance(prefix, runs), await instance(prefix, runs)];
      await a.registry.activate({ workflowId: 'wf', nodes: [{ name: 'Signed', parameters: { path: 'events', httpMethod: 'POST', authentication: 'signatureAuth' } }] });
      await servedEverywhere([a, b], 'events');
      const body = '{"type":"invoice.paid"}';
      const headers = await signedHeaders('standardWebhooks', body);
      const post = (app: typeof a.app, sent: Record<string, string>) =>
        request(app).post(`${BASE}/webhook/events`).set('content-type', 'application/json').set(sent).send(body);
      await post(a.app, headers).expect(200);
      const replay = await post(b.app, headers).expect(409);
      expect(replay.body.code).to.equal('SIGNATURE_REPLAYED');
      await post(b.app, await signedHeaders('standardWebhooks', body)).expect(200);
      expect(runs).to.have.length(2);
    });

    it('let exactly one of many instances accept the same message arriving at once', async () => {
      const prefix = `ids-race-${process.pid}:`;
      const runs: WebhookRun[] = [];
      const instances = [await instance(prefix, runs), await instance(prefix, runs), await instance(prefix, runs)];
      await (instances[0] as (typeof instances)[number]).registry.activate({ workflowId: 'wf', nodes: [{ name: 'Signed', parameters: { path: 'race', httpMethod: 'POST', authentication: 'signatureAuth' } }] });
      await servedEverywhere(instances, 'race');
      const body = '{"n":1}';
      const headers = await signedHeaders('standardWebhooks', body);
      const answers = await Promise.all(Array.from({ length: 30 }, (_, index) =>
        request((instances[index % 3] as (typeof instances)[number]).app).post(`${BASE}/webhook/race`).set('content-type', 'application/json').set(headers).send(body)));
      expect(answers.filter((res) => res.status === 200)).to.have.length(1);
      expect(answers.filter((res) => res.status === 409)).to.have.length(29);
      expect(runs).to.have.length(1);
    });
  });
}
