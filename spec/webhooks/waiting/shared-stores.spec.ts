/**
 * Waiting webhooks on two instances sharing one store, on each shared store (Redis, PostgreSQL): a run suspended on
 * one resumed on the other, racing resumes, a call for a run waiting in the run on the other instance, an expired
 * wait told once, and the store left as it was once 10 000 waits expired.
 */
import { expect } from 'chai';
import request from 'supertest';
import type { WebhookExecutor } from 'workflow-webhooks';
import { BASE, HOSTS } from '../../support/apps.js';
import { pathOf, waitingApp, type WaitingApp } from '../../support/waiting/app.js';
import { sharedStores } from '../../support/shared-stores.js';

const START = `${BASE}/webhook/start`;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The first answer that `settled` accepts, asked again every 20 ms for up to 5 s; the last one after that. */
async function until<T>(ask: () => PromiseLike<T>, settled: (answer: T) => boolean): Promise<T> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const answer = await ask();
    if (settled(answer) || Date.now() > deadline) return answer;
    await sleep(20);
  }
}

for (const store of sharedStores('waiting webhooks on two instances sharing one store')) {
  describe(`waiting webhooks on two instances sharing one real ${store.name}`, function () {
    this.timeout(60_000);
    const stores = store.setup();
    let apps: WaitingApp[] = [];
    let run = 0;
    const resumes: string[] = [];
    /** A namespace (key prefix, schema) no other test of this run uses. */
    const fresh = (what: string): string => `${what}_${process.pid}_${(run += 1)}`;

    afterEach(async () => {
      for (const app of apps.splice(0)) await app.close().catch(() => undefined);
      resumes.length = 0;
    });

    /** Instances A and B: the same workflow, the same executor, one store. */
    async function twoInstances(executor: WebhookExecutor): Promise<[WaitingApp, WaitingApp]> {
      const namespace = fresh('waits');
      for (let index = 0; index < 2; index += 1) {
        const registry = await stores.open(namespace);
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
      // The run's end is written as it answers, not before: until it lands, A says the address was resumed.
      const again = await until(() => request(a.server).post(resumes[0] as string).send({}), (answer) => answer.body.code !== 'WAIT_ALREADY_RESUMED');
      expect([again.status, again.body.code]).to.deep.equal([409, 'WAIT_RUN_FINISHED']);
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
      // The address is published before its entry is stored and before the run waits for a call: until then B hears
      // that it is unknown, then that the run is running.
      const elsewhere = await until(() => request(b.server).post(resume).send({ approved: true }),
        (answer) => answer.body.code !== 'WAIT_NOT_FOUND' && answer.body.code !== 'WAIT_RUN_RUNNING');
      expect([elsewhere.status, elsewhere.body.code]).to.deep.equal([421, 'WAIT_ON_OTHER_INSTANCE']);
      await request(a.server).post(resume).send({ approved: true }).expect(200);
      expect((await started).body).to.deep.equal({ decision: { approved: true } });
    });

    it('tells exactly one of two instances of a wait that expired with nobody calling, and forgets it', async () => {
      const namespace = fresh('told');
      const pair = [await stores.open(namespace), await stores.open(namespace)];
      const heard: string[] = [];
      const stops = pair.map((registry, index) => registry.onWaitExpired((entry) => heard.push(`${index} ${entry.waitId}`)));
      try {
        const put = (waitId: string, expiresAt: number): Promise<boolean> => (pair[0]?.putWait({
          waitId, status: 'waiting', expiresAt, workflowId: 'w', nodeName: 'Wait', mode: 'production', startedAt: Date.now(),
        }) ?? Promise.resolve(false));
        // Far enough ahead that it is read back before it expires, even on a loaded machine.
        const now = Date.now();
        await put('lapses', now + 2000);
        expect((await pair[1]?.getWait('lapses'))?.status).to.equal('waiting');
        while (heard.length === 0 && Date.now() < now + 12_000) await sleep(100);
        // A later wait, expiring after every instance swept again (once a second each), is told: by then a second
        // telling of the first would have come.
        await put('later', Date.now() + 1500);
        while (heard.length < 2 && Date.now() < now + 24_000) await sleep(100);
        expect(heard.map((line) => line.split(' ')[1])).to.deep.equal(['lapses', 'later']);
        expect(await pair[1]?.getWait('lapses')).to.equal(undefined);
      } finally {
        for (const stop of stops) stop();
      }
    });

    it(`leaves ${store.name} as it was once 10 000 waits have expired`, async () => {
      const namespace = fresh('expiry');
      const registry = await stores.open(namespace);
      const before = await stores.stored(namespace);
      const now = Date.now();
      // Far enough ahead that all 10 000 are stored and counted before the first expires, even on a loaded machine.
      const expiresAt = now + 10_000;
      // In rounds of 1 000, so a loaded machine is not asked 10 000 commands at once within the command timeout.
      for (let first = 0; first < 10_000; first += 1000) {
        await Promise.all(Array.from({ length: 1000 }, (_, offset) => registry.putWait({
          waitId: `w${first + offset}`, status: 'waiting', expiresAt, workflowId: 'w', nodeName: 'Wait', mode: 'production', startedAt: now, form: 'suspended', state: { index: first + offset },
        })));
      }
      expect(Date.now(), 'stored before any expired').to.be.below(expiresAt);
      expect(await stores.stored(namespace)).to.be.above(before + 10_000 - 1);
      while (await stores.stored(namespace) > before && Date.now() < expiresAt + 20_000) await sleep(200);
      expect(await stores.stored(namespace)).to.equal(before);
    });
  });
}
