import { createClient } from 'redis';
import { expect } from 'chai';
import request from 'supertest';
import type { WebhookExecutor } from 'workflow-webhooks';
import { RedisWebhookRegistry } from 'workflow-webhooks/redis';
import { BASE, HOSTS } from '../../support/apps.js';
import { REDIS, RedisServer } from '../../support/redis-server.js';
import { findService, markNotRun } from '../../support/services.js';
import { pathOf, waitingApp, type WaitingApp } from '../../support/waiting/app.js';

const START = `${BASE}/webhook/start`;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
type Client = { destroy(): unknown; keys(pattern: string): Promise<string[]> };

if (findService(REDIS) === undefined) {
  markNotRun('waiting webhooks on two instances of one Redis', REDIS);
} else {
  describe('waiting webhooks on two instances sharing one real redis-server', function () {
    this.timeout(30_000);
    let server: RedisServer;
    let clients: Client[] = [];
    let apps: WaitingApp[] = [];
    let run = 0;
    const resumes: string[] = [];

    before(async () => { server = await RedisServer.start() as RedisServer; });
    after(async () => { await server.stop(); });
    afterEach(async () => {
      for (const app of apps) await app.close();
      for (const registry of apps.map((app) => app.registry as RedisWebhookRegistry)) await registry.close();
      for (const client of clients) client.destroy();
      apps = [];
      clients = [];
      resumes.length = 0;
    });

    async function openRegistry(prefix: string, maxWaiting?: number): Promise<{ registry: RedisWebhookRegistry; client: Client }> {
      // The registry takes the client as node-redis made it; the spec keeps only what it calls.
      const client = createClient({ url: server.url });
      client.on('error', () => undefined);
      await client.connect();
      clients.push(client as Client);
      const registry = new RedisWebhookRegistry({ client, prefix, onEvent: () => undefined, ...(maxWaiting === undefined ? {} : { maxWaiting }) });
      await registry.ready();
      return { registry, client: client as Client };
    }

    /** Instances A and B: the same workflow, the same executor, one Redis. */
    async function twoInstances(executor: WebhookExecutor): Promise<[WaitingApp, WaitingApp]> {
      const prefix = `waits-${process.pid}-${(run += 1)}:`;
      for (let index = 0; index < 2; index += 1) {
        const { registry } = await openRegistry(prefix);
        apps.push(await waitingApp(HOSTS[index % HOSTS.length]!, executor, { registry }));
      }
      return apps as [WaitingApp, WaitingApp];
    }

    const approval: WebhookExecutor = async (run) => {
      if (run.resume !== undefined) return { items: [{ json: { state: run.resume.state, decision: run.items[0]?.json.body } }] };
      resumes.push(pathOf((await run.suspend({ state: { order: 7 }, responseMode: 'lastNode' })).resumeUrl));
      return { items: [{ json: { waiting: true } }] };
    };

    it('resumes on B a run suspended on A', async () => {
      const [a, b] = await twoInstances(approval);
      await request(a.server).post(START).send({}).expect(200);
      const resumed = await request(b.server).post(resumes[0] as string).send({ approved: true });
      expect([resumed.status, resumed.body]).to.deep.equal([200, { state: { order: 7 }, decision: { approved: true } }]);
      expect((await request(a.server).post(resumes[0] as string).send({})).body.code).to.equal('WAIT_RUN_FINISHED');
    });

    it('answers exactly one of six racing calls on A and B with a 2xx, the others 409', async () => {
      const [a, b] = await twoInstances(approval);
      await request(a.server).post(START).send({}).expect(200);
      const answers = await Promise.all([a, b, a, b, a, b].map((app, n) => request(app.server).post(resumes[0] as string).send({ n })));
      const statuses = answers.map((answer) => answer.status).sort();
      expect(statuses).to.deep.equal([200, 409, 409, 409, 409, 409]);
    });

    it('tells a call that reaches another instance than the one whose run waits in the run to go there (421)', async () => {
      let publish!: (path: string) => void;
      const address = new Promise<string>((resolve) => { publish = resolve; });
      const [a, b] = await twoInstances(async (run) => {
        publish(pathOf(run.resumeUrl));
        return { items: [{ json: { decision: (await run.waitForCall({ timeoutMs: 5000 })).json.body } }] };
      });
      const started = request(a.server).post(START).send({}).then((response) => response);
      const resume = await address;
      await sleep(50);
      const elsewhere = await request(b.server).post(resume).send({ approved: true });
      expect([elsewhere.status, elsewhere.body.code]).to.deep.equal([421, 'WAIT_ON_OTHER_INSTANCE']);
      await request(a.server).post(resume).send({ approved: true }).expect(200);
      expect((await started).body).to.deep.equal({ decision: { approved: true } });
    });

    it('tells exactly one of two instances of a wait that expired with nobody calling, and forgets it', async () => {
      const prefix = `told-${process.pid}:`;
      const pair = [await openRegistry(prefix), await openRegistry(prefix)];
      const heard: string[] = [];
      const stops = pair.map(({ registry }, index) => registry.onWaitExpired((entry) => heard.push(`${index} ${entry.waitId}`)));
      const now = Date.now();
      // Far enough ahead that it is read back before it expires, even on a loaded machine.
      await pair[0]?.registry.putWait({ waitId: 'lapses', status: 'waiting', expiresAt: now + 2000, workflowId: 'w', nodeName: 'Wait', mode: 'production', startedAt: now });
      expect((await pair[1]?.registry.getWait('lapses'))?.status).to.equal('waiting');
      while (heard.length === 0 && Date.now() < now + 12_000) await sleep(100);
      // Another second of sweeps on both instances: neither tells it again.
      await sleep(1500);
      expect(heard.map((line) => line.split(' ')[1])).to.deep.equal(['lapses']);
      expect(await pair[1]?.registry.getWait('lapses')).to.equal(undefined);
      for (const stop of stops) stop();
      for (const { registry } of pair) await registry.close();
    });

    it('leaves Redis\'s keys as they were once 10 000 waits have expired', async () => {
      const prefix = `expiry-${process.pid}:`;
      const { registry, client } = await openRegistry(prefix);
      // Closed whatever the outcome: a registry left open keeps mocha from ending.
      try {
        const keys = async (): Promise<number> => (await client.keys(`${prefix}*`)).length;
        const before = await keys();
        const now = Date.now();
        // Far enough ahead that all 10 000 are stored and counted before the first expires, even on a loaded machine.
        const expiresAt = now + 6000;
        // In rounds of 1 000, so a loaded machine is not asked 10 000 commands at once within the command timeout.
        for (let first = 0; first < 10_000; first += 1000) {
          await Promise.all(Array.from({ length: 1000 }, (_, offset) => registry.putWait({
            waitId: `w${first + offset}`, status: 'waiting', expiresAt, workflowId: 'w', nodeName: 'Wait', mode: 'production', startedAt: now, form: 'suspended', state: { index: first + offset },
          })));
        }
        expect(Date.now(), 'stored before any expired').to.be.below(expiresAt);
        expect(await keys()).to.be.above(before + 10_000 - 1);
        while (await keys() > before && Date.now() < expiresAt + 12_000) await sleep(200);
        expect(await keys()).to.equal(before);
      } finally {
        await registry.close();
      }
    });
  });
}
