import { expect } from 'chai';
import pg from 'pg';
import { PostgresCallLog } from 'workflow-webhooks/postgres';
import { callOf, describeCallLogContract } from '../support/call-log-contract/index.js';
import { POSTGRES, PostgresServer, sharedPostgres } from '../support/postgres-server.js';
import { findService, markNotRun } from '../support/services.js';

const TITLE = 'PostgresCallLog';

if (findService(POSTGRES) === undefined) {
  markNotRun(`${TITLE} keeps the call log contract`, POSTGRES);
} else {
  describe(`${TITLE} on a real PostgreSQL server`, function () {
    this.timeout(30_000);
    let server: PostgresServer;
    let pool: pg.Pool;
    let next = 0;
    before(async () => {
      server = await sharedPostgres() as PostgresServer;
      pool = new pg.Pool({ connectionString: server.url, max: 10 });
      pool.on('error', () => undefined);
    });
    after(async () => { await pool?.end(); });

    describeCallLogContract(TITLE, async () => {
      const schema = `calls_${process.pid}_${(next += 1)}`;
      const log = new PostgresCallLog({ pool, schema, capacity: 10, onError: () => undefined });
      const second = new PostgresCallLog({ pool, schema, capacity: 10, onError: () => undefined });
      return {
        log,
        second,
        subscribed: (made) => (made as PostgresCallLog).subscribed(),
        cleanup: async () => { await Promise.all([log.close(), second.close()]); },
      };
    }, { sharedStore: true });

    it('hears a call too long for a notification, read from its row', async () => {
      const schema = `calls_${process.pid}_long`;
      const [writer, reader] = [new PostgresCallLog({ pool, schema }), new PostgresCallLog({ pool, schema })];
      // Closed whatever the outcome: the reader's LISTEN connection would keep the pool, and mocha, from ending.
      try {
        const heard: string[] = [];
        reader.subscribe((call) => heard.push(call.message ?? ''));
        await reader.subscribed();
        const long = { ...callOf(1), message: 'x'.repeat(20_000) };
        await writer.append(long);
        for (let tries = 0; heard.length === 0 && tries < 400; tries += 1) await new Promise((resolve) => setTimeout(resolve, 5));
        expect(heard).to.deep.equal([long.message]);
      } finally {
        await Promise.all([writer.close(), reader.close()]);
      }
    });

    it('opens a pool of its own from a connection string, and ends it on close()', async () => {
      const log = new PostgresCallLog({ connectionString: server.url, schema: `calls_${process.pid}_own` });
      try {
        await log.append(callOf(7));
        expect((await log.recent()).map((call) => call.callId)).to.deep.equal(['call-7']);
      } finally {
        await log.close();
      }
      const error = await log.recent().then(() => undefined, (failure: unknown) => failure as Error);
      expect(error?.message).to.match(/closed/);
    });
  });
}

if (findService(POSTGRES) !== undefined) {
  describe(`${TITLE} subscribed while the database is down`, function () {
    this.timeout(60_000);
    let server: PostgresServer;
    before(async function () {
      this.timeout(60_000);
      server = await PostgresServer.start() as PostgresServer;
      await server.stopImmediately();
    });
    after(async () => { await server?.stop(); });

    it('tells the outage once however many tries it takes, and hears calls once the database is back', async () => {
      const errors: Error[] = [];
      // Each try makes a client for a new connection: counted, they show the tries made while the database is away.
      let connects = 0;
      class CountedClient extends pg.Client {
        constructor(config?: string | pg.ClientConfig) {
          super(config);
          connects += 1;
        }
      }
      const pool = new pg.Pool({ connectionString: server.url, max: 2, Client: CountedClient });
      pool.on('error', () => undefined);
      const log = new PostgresCallLog({ pool, schema: 'calls_down', onError: (error) => errors.push(error) });
      try {
        const heard = new Promise<string>((resolve) => { log.subscribe((call) => resolve(call.callId)); });
        const until = Date.now() + 10_000;
        while (connects < 4 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
        expect(connects, 'tries while the database is away').to.be.at.least(4);
        expect(errors.map((error) => error.message.startsWith('workflow-webhooks/postgres: PostgresCallLog lost its subscription'))).to.deep.equal([true]);
        await server.startAgain();
        // Appended until one is heard: the subscription opens again at its next try, within half a second.
        let heardId: string | undefined;
        void heard.then((id) => { heardId = id; });
        const heardUntil = Date.now() + 10_000;
        while (heardId === undefined && Date.now() < heardUntil) {
          await log.append(callOf(5)).catch(() => undefined);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        expect(heardId).to.equal(callOf(5).callId);
      } finally {
        await log.close();
        await pool.end();
      }
    });
  });
}
