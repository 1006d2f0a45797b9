import { expect } from 'chai';
import { clusterInProcess, clusterOfProcesses, type Cluster } from '../support/instances/cluster.js';
import { eventually } from '../support/registry-contract/instances.js';
import { workflowOf } from '../support/registry-contract/fixture.js';
import { REDIS, RedisServer } from '../support/redis-server.js';
import { findService, markNotRun } from '../support/services.js';

async function call(url: string, method = 'POST', body: unknown = { n: 1 }): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, { method, headers: { 'content-type': 'application/json' }, body: method === 'GET' ? undefined : JSON.stringify(body) });
  return { status: res.status, body: await res.json() as Record<string, unknown> };
}

const hook = (workflowId: string, path: string): ReturnType<typeof workflowOf> =>
  workflowOf(workflowId, { path, httpMethod: 'POST', responseMode: 'lastNode' }, workflowId);

if (findService(REDIS) === undefined) {
  markNotRun('three instances on one Redis', REDIS);
} else {
  for (const [label, start] of [['in one process', clusterInProcess], ['as three processes', clusterOfProcesses]] as const) {
    describe(`three instances on one Redis, ${label}`, function () {
      this.timeout(30_000);
      let server: RedisServer;
      let cluster: Cluster;
      let run = 0;

      before(async () => { server = await RedisServer.start() as RedisServer; });
      after(async () => { await server?.stop(); });
      beforeEach(async () => { cluster = await start(server.url, `instances-${(run += 1)}:`); });
      afterEach(async () => { await cluster?.stop(); });

      it('serves on the other instances a workflow one instance activated, and stops serving it on all of them after a deactivation', async () => {
        await cluster.activate(0, hook('orders', 'orders'));
        for (const url of cluster.urls.slice(1)) {
          await eventually(async () => (await call(`${url}/webhook/orders`)).status === 200);
          expect((await call(`${url}/webhook/orders`)).body.body).to.deep.equal({ n: 1 });
        }
        await cluster.deactivate(0, 'orders');
        // How fast it spreads is measured by `npm run bench -- redis` (deactivate(), until B and C no longer find it).
        for (const url of cluster.urls) await eventually(async () => (await call(`${url}/webhook/orders`)).status === 404, 3000);
        for (const url of cluster.urls) expect((await call(`${url}/webhook/orders`)).status, url).to.equal(404);
      });

      it('lets exactly one of 90 racing activations of one address win across the instances', async () => {
        const outcomes = await Promise.allSettled(Array.from({ length: 90 }, (_, index) => cluster.activate(index % 3, hook(`wf-${index}`, 'race'))));
        const winners = outcomes.filter((outcome) => outcome.status === 'fulfilled');
        expect(winners).to.have.length(1);
        const codes = new Set(outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [(outcome.reason as { code?: string }).code] : [])));
        expect([...codes]).to.deep.equal(['WEBHOOK_CONFLICT']);
      });

      it('runs exactly one of 20 test calls hitting the two other instances at once, and hands it to the one that listens', async () => {
        const { result } = await cluster.listen(0, hook('signup', 'signup'));
        // Once an instance knows of the listen, the address takes POST only: a GET is refused 405 (and runs nothing).
        for (const url of cluster.urls.slice(1)) await eventually(async () => (await call(`${url}/webhook-test/signup`, 'GET')).status === 405, 5000);
        const answers = await Promise.all(Array.from({ length: 20 }, (_, index) =>
          call(`${cluster.urls[1 + (index % 2)] as string}/webhook-test/signup`, 'POST', { index })));
        const served = answers.filter((answer) => answer.status === 200);
        expect(served).to.have.length(1);
        expect(answers.filter((answer) => answer.status === 404 && answer.body.code === 'WEBHOOK_TEST_NOT_LISTENING')).to.have.length(19);
        expect(served[0]?.body.instance).to.be.oneOf(['1', '2']);
        const outcome = await result as { status: string; body: unknown; output: { items: { json: unknown }[] } };
        expect(outcome.status).to.equal('received');
        expect(outcome.body).to.deep.equal(served[0]?.body.body);
        expect(outcome.output.items[0]?.json).to.deep.equal(served[0]?.body);
      });

      it('keeps serving through a Redis stop and restart, and propagates changes again once it is back', async () => {
        await cluster.activate(0, hook('orders', 'orders'));
        for (const url of cluster.urls) await eventually(async () => (await call(`${url}/webhook/orders`)).status === 200);
        await server.kill();
        for (const url of cluster.urls) expect((await call(`${url}/webhook/orders`)).status).to.equal(200);
        const refused = await cluster.deactivate(1, 'orders').then(() => undefined, (error: { code?: string }) => error.code);
        expect(refused).to.equal('REGISTRY_UNAVAILABLE');
        await server.restart();
        await eventually(async () => cluster.activate(2, hook('orders', 'orders')).then(() => true, () => false), 5000);
        await cluster.activate(0, hook('returns', 'returns'));
        for (const url of cluster.urls) await eventually(async () => (await call(`${url}/webhook/returns`)).status === 200, 2000);
        await cluster.deactivate(1, 'orders');
        for (const url of cluster.urls) await eventually(async () => (await call(`${url}/webhook/orders`)).status === 404, 2000);
      });
    });
  }
}
