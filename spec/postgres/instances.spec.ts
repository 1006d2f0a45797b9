import { expect } from 'chai';
import { workflowOf } from '../support/registry-contract/fixture.js';
import { eventually } from '../support/registry-contract/instances.js';
import { POSTGRES, sharedPostgres, type PostgresServer } from '../support/postgres-server.js';
import { call, postgresInstances, type PostgresInstances } from '../support/postgres/instances.js';
import { findService, markNotRun } from '../support/services.js';

const hook = (workflowId: string, path: string): ReturnType<typeof workflowOf> =>
  workflowOf(workflowId, { path, httpMethod: 'POST', responseMode: 'lastNode' }, workflowId);

if (findService(POSTGRES) === undefined) {
  markNotRun('three instances on one PostgreSQL behave as one', POSTGRES);
} else {
  describe('three instances on one PostgreSQL behave as one, over HTTP', function () {
    this.timeout(30_000);
    let server: PostgresServer;
    let cluster: PostgresInstances;
    let run = 0;

    before(async () => { server = await sharedPostgres() as PostgresServer; });
    beforeEach(async () => { cluster = await postgresInstances(server.url, `instances_${process.pid}_${(run += 1)}`); });
    afterEach(async () => { await cluster?.stop(); });

    it('serves on B and C within a second what A activated, and stops serving it on all three after a deactivation', async () => {
      const [a, b, c] = cluster.all;
      await a?.registry.activate(hook('orders', 'orders'));
      for (const instance of [b, c]) {
        await eventually(async () => (await call(`${instance?.url}/webhook/orders`)).status === 200, 1000);
        expect((await call(`${instance?.url}/webhook/orders`)).body?.body).to.deep.equal({ n: 1 });
      }
      await b?.registry.deactivate('orders');
      for (const instance of cluster.all) await eventually(async () => (await call(`${instance.url}/webhook/orders`)).status === 404, 1000);
    });

    it('lets exactly one of 60 racing activations of one address win across the three instances', async () => {
      const outcomes = await Promise.allSettled(Array.from({ length: 60 }, (_, index) => cluster.all[index % 3]?.registry.activate(hook(`wf-${index}`, 'race'))));
      const reasons = new Set(outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [(outcome.reason as Error).message] : [])));
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled'), [...reasons].join('; ')).to.have.length(1);
      const codes = new Set(outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [(outcome.reason as { code?: string }).code] : [])));
      expect([...codes], [...reasons].join('; ')).to.deep.equal(['WEBHOOK_CONFLICT']);
    });

    it('hands a test call made on C to the listen held on A', async () => {
      const [a, , c] = cluster.all;
      const handle = await a?.registry.listenForTest(hook('signup', 'signup'));
      await eventually(async () => (await c?.registry.lookup('test', 'POST', 'signup'))?.found === true, 1000);
      const answer = await call(`${c?.url}/webhook-test/signup`, 'POST', { from: 'c' });
      expect([answer.status, answer.body?.instance]).to.deep.equal([200, '2']);
      const result = await handle?.result;
      expect(result?.status === 'received' && [result.run.items[0]?.json.body, result.output?.items[0]?.json]).to.deep.equal([{ from: 'c' }, { instance: '2', body: { from: 'c' } }]);
    });

    it('resumes on B or C, exactly once, a run suspended on A, under 10 racing resumes spread over both', async () => {
      const [a] = cluster.all;
      await a?.registry.activate(hook('suspends', 'suspend'));
      expect((await call(`${a?.url}/webhook/suspend`)).status).to.equal(200);
      const resume = cluster.resumes[0] as string;
      const answers = await Promise.all(Array.from({ length: 10 }, (_, index) => call(`${cluster.all[1 + (index % 2)]?.url}${resume}`, 'POST', { approved: true })));
      const statuses = answers.map((answer) => answer.status).sort();
      expect(statuses).to.deep.equal([200, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
      expect(answers.find((answer) => answer.status === 200)?.body?.resumed).to.deep.equal({ from: 0 });
      expect([cluster.all[0]?.runs, (cluster.all[1]?.runs ?? 0) + (cluster.all[2]?.runs ?? 0)]).to.deep.equal([1, 1]);
    });

    it('tells exactly one of the three instances of a wait that expired with nobody calling, and forgets it', async () => {
      const heard: string[] = [];
      const stops = cluster.all.map((instance, index) => instance.registry.onWaitExpired((entry) => heard.push(`${index} ${entry.waitId}`)));
      const put = (waitId: string, expiresAt: number): Promise<boolean> | undefined => cluster.all[0]?.registry.putWait({
        waitId, status: 'waiting', expiresAt, workflowId: 'wf', nodeName: 'Wait', mode: 'production', startedAt: Date.now(),
      });
      try {
        await put('lapses', Date.now() + 300);
        expect((await cluster.all[1]?.registry.getWait('lapses'))?.status).to.equal('waiting');
        await eventually(async () => heard.length === 1, 5000);
        // A later wait, expiring after every instance swept again (once a second each), is told: by then a second
        // telling of the first would have come.
        await put('later', Date.now() + 1500);
        await eventually(async () => heard.length >= 2, 10_000);
        expect(heard.map((line) => line.split(' ')[1])).to.deep.equal(['lapses', 'later']);
        expect(await cluster.all[2]?.registry.getWait('lapses')).to.equal(undefined);
      } finally {
        for (const stop of stops) stop();
      }
    });

    it('holds a rate limit of 10 per window across the three instances', async () => {
      const [a, b, c] = cluster.all;
      await a?.registry.activate({ ...hook('limited', 'limited'), settings: { rateLimit: { limit: 10, windowMs: 60_000 } } });
      for (const instance of [b, c]) await eventually(async () => (await instance?.registry.lookup('production', 'POST', 'limited'))?.found === true, 1000);
      const answers = await Promise.all(Array.from({ length: 30 }, (_, index) => call(`${cluster.all[index % 3]?.url}/webhook/limited`)));
      const statuses = answers.map((answer) => answer.status);
      expect([statuses.filter((status) => status === 200).length, statuses.filter((status) => status === 429).length]).to.deep.equal([10, 20]);
      expect(cluster.all.reduce((sum, instance) => sum + instance.runs, 0)).to.equal(10);
    });
  });
}
