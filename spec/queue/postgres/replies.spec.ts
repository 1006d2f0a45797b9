import { expect } from 'chai';
import pg from 'pg';
import { POSTGRES, sharedPostgres, type PostgresServer } from '../../support/postgres-server.js';
import { freshName, openSpecLink, type SpecLink } from '../../support/queue/postgres-link.js';
import { findService, markNotRun } from '../../support/services.js';
import { closeAll } from '../../support/close-all.js';

if (findService(POSTGRES) === undefined) {
  markNotRun('queue mode\'s PostgreSQL reply channel', POSTGRES);
} else {
  describe('queue mode\'s PostgreSQL reply channel', function () {
    this.timeout(60_000);
    let server: PostgresServer;
    let admin: pg.Pool;
    let web: SpecLink;
    let worker: SpecLink;
    const schema = freshName('queue_replies');
    const heard: string[] = [];
    let resumed = 0;
    let channel: string;

    before(async () => {
      server = await sharedPostgres() as PostgresServer;
      admin = new pg.Pool({ connectionString: server.url, max: 2 });
      admin.on('error', () => undefined);
      web = await openSpecLink(server.url, schema);
      worker = await openSpecLink(server.url, schema, web.name, false);
      channel = web.link.replyChannel('instance "one"; DROP TABLE x');
      await web.link.listen(channel, (text) => heard.push(text), () => { resumed += 1; });
    });
    after(() => closeAll(() => worker?.close(), () => web?.close(), () => admin?.end()));
    beforeEach(() => { heard.length = 0; });

    it('names each instance\'s channel as a plain identifier, whatever the instance id holds', () => {
      expect(channel).to.match(/^[a-z_][a-z0-9_]{0,62}$/);
      expect(web.link.replyChannel('instance-two')).to.not.equal(channel);
    });

    it('delivers a reply of 100 bytes and one of 100 kB whole, in the order they were sent, and keeps no row of them', async () => {
      const small = 's'.repeat(100);
      const large = JSON.stringify({ body: 'é'.repeat(50_000) });
      await worker.link.publish(channel, small);
      await worker.link.publish(channel, large);
      await worker.link.publish(channel, 'last');
      await until(() => heard.length === 3);
      expect(heard).to.deep.equal([small, large, 'last']);
      const left = await admin.query(`SELECT count(*)::int AS n FROM ${schema}.queue_replies`);
      expect(left.rows[0].n).to.equal(0);
    });

    it('listens again after its connection was killed, says so (resumed), and hears what is sent next', async () => {
      const before = resumed;
      const killed = await admin.query('SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity WHERE query = $1', [`LISTEN ${channel}`]);
      expect(killed.rows.map((row: { done: boolean }) => row.done)).to.deep.equal([true]);
      await until(() => resumed > before);
      await worker.link.publish(channel, 'after the outage');
      await until(() => heard.length === 1);
      expect(heard).to.deep.equal(['after the outage']);
      expect(web.warnings.some((text) => text.includes('listening for replies'))).to.equal(true);
    });
  });
}

async function until(probe: () => boolean): Promise<void> {
  for (let tries = 0; tries < 400; tries += 1) {
    if (probe()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('never held');
}
