/**
 * Recent calls across instances: two hosts, each with its own middleware and console, share one RedisCallLog list
 * on a real redis-server, so a call answered by one shows on the other's page, live and on reload, with the
 * instance that served it.
 */
import { expect } from 'chai';
import { createClient } from 'redis';
import { RedisCallLog, type RedisCallLogClient } from '../../lib/redis/index.js';
import type { CallListing, CallRecord } from '../../lib/console/index.js';
import { startConsoleApp, WEBHOOK_BASE, type ConsoleApp } from '../support/console-app.js';
import { consoleSession } from '../support/console-session.js';
import { REDIS, RedisServer } from '../support/redis-server.js';
import { findService, markNotRun } from '../support/services.js';
import { closeAll, eachOf } from '../support/close-all.js';

const TITLE = 'the console of one instance shows the calls of every instance (redis-server)';

if (findService(REDIS) === undefined) {
  markNotRun(TITLE, REDIS);
} else {
  describe(TITLE, function () {
    this.timeout(20_000);
    let server: RedisServer;
    const clients: { destroy(): void }[] = [];
    const apps: ConsoleApp[] = [];
    const logs: RedisCallLog[] = [];

    async function instance(name: string): Promise<ConsoleApp> {
      const client = createClient({ url: server.url });
      client.on('error', () => undefined);
      await client.connect();
      clients.push(client);
      const callLog = new RedisCallLog({ client: client as unknown as RedisCallLogClient, keyPrefix: 'spec-instances:', onError: () => undefined });
      logs.push(callLog);
      const app = await startConsoleApp({ console: { callLog, instance: name } });
      apps.push(app);
      await callLog.subscribed();
      return app;
    }

    before(async () => { server = await RedisServer.start() as RedisServer; });
    after(() => closeAll(
      ...eachOf(apps, (app) => app.close()),
      // The host's log: the console leaves it open, so the host closes it (its subscription connection).
      ...eachOf(logs, (log) => log.close()),
      ...eachOf(clients, (client) => client.destroy()),
      () => server?.stop(),
    ));

    it('shows a call answered by instance A on the page of instance B, live and on reload, naming A', async () => {
      const [a, b] = [await instance('a'), await instance('b')];
      const pageOfB = await consoleSession(b);
      const stream = await pageOfB.events();
      const answer = await fetch(`${a.origin}${WEBHOOK_BASE}/webhook/fails`, { method: 'POST', headers: { 'x-request-id': 'served-by-a' } });
      expect(answer.status).to.equal(500);
      const live = await stream.next<{ call: CallRecord }>('call', (event) => event.call.callId === 'served-by-a', 1000);
      stream.close();
      expect(live.call).to.deep.include({ instance: 'a', code: 'WORKFLOW_FAILED', status: 500 });
      const listing = await pageOfB.get<CallListing>('/api/calls');
      expect(listing.calls[0]).to.deep.include({ callId: 'served-by-a', instance: 'a' });
    });
  });
}
