import { createClient } from 'redis';
import { expect } from 'chai';
import { RedisCallLog, type RedisCallLogClient } from 'workflow-webhooks/redis';
import { callOf, describeCallLogContract } from '../support/call-log-contract/index.js';
import { timersArmed, watched, withFakeTimers } from '../support/fake-clock.js';
import { REDIS, RedisServer } from '../support/redis-server.js';
import { findService, markNotRun } from '../support/services.js';
import { NODE_REDIS_5, TOPOLOGIES, type RunningTopology } from '../support/redis/topologies.js';

const TITLE = 'RedisCallLog';

const clientOf = (url: string, name?: string) => createClient({ url, name });
type Client = ReturnType<typeof clientOf>;

if (findService(REDIS) === undefined) {
  markNotRun(`${TITLE} keeps the call log contract`, REDIS);
} else {
  for (const starter of [...TOPOLOGIES, ...NODE_REDIS_5]) {
    describe(`${TITLE} on ${starter.name}`, function () {
      this.timeout(20_000);
      let topology: RunningTopology;
      let next = 0;
      before(async () => { topology = await starter.start() as RunningTopology; });
      after(async () => { await topology?.stop(); });

      describeCallLogContract(TITLE, async () => {
        const keyPrefix = `calls-${process.pid}-${(next += 1)}:`;
        const [one, two] = await Promise.all([topology.client(), topology.client()]);
        const log = new RedisCallLog({ client: one, keyPrefix, capacity: 10, onError: () => undefined });
        const second = new RedisCallLog({ client: two, keyPrefix, capacity: 10, onError: () => undefined });
        return {
          log,
          second,
          subscribed: (made) => (made as RedisCallLog).subscribed(),
          cleanup: async () => {
            await Promise.all([log.close(), second.close()]);
            await Promise.all([one.destroy(), two.destroy()]);
          },
        };
      }, { sharedStore: true });
    });
  }

  describe(TITLE, function () {
    this.timeout(20_000);
    let server: RedisServer;

    before(async () => { server = await RedisServer.start() as RedisServer; });
    after(async () => { await server?.stop(); });

    async function connected(url = server.url, name?: string): Promise<Client> {
      const client = clientOf(url, name);
      client.on('error', () => undefined);
      await client.connect();
      return client;
    }

    /** The connections of that name the server holds now: `subscriber` for one in subscribe mode, else `commands`. */
    async function connections(client: Client, name: string): Promise<string[]> {
      const list = String(await client.sendCommand(['CLIENT', 'LIST']));
      return list.trim().split('\n').filter((line) => line.includes(` name=${name} `))
        .map((line) => (/ sub=[1-9]/.test(line) ? 'subscriber' : 'commands')).sort();
    }

    describe('beside the contract', () => {
      let client: Client;
      /** What a test opened, closed after it whether it passed or not (an open connection keeps mocha running). */
      const closers: (() => unknown)[] = [];
      beforeEach(async () => { client = await connected(); });
      afterEach(async () => {
        for (const close of closers.splice(0).reverse()) await close();
        client?.destroy();
      });

      it('keeps its calls under `<keyPrefix>calls` and publishes them on `<keyPrefix>calls:new`', async () => {
        const heard: string[] = [];
        const listener = client.duplicate();
        listener.on('error', () => undefined);
        closers.push(() => listener.destroy());
        await listener.connect();
        await listener.subscribe('keys-spec:calls:new', (message) => heard.push(message));
        const log = new RedisCallLog({ client, keyPrefix: 'keys-spec:' });
        await log.append(callOf(1));
        expect(await client.sendCommand(['LRANGE', 'keys-spec:calls', '0', '-1'])).to.deep.equal([JSON.stringify(callOf(1))]);
        const start = Date.now();
        while (heard.length === 0 && Date.now() - start < 2000) await new Promise((resolve) => setTimeout(resolve, 5));
        expect(heard).to.deep.equal([JSON.stringify(callOf(1))]);
        const defaults = new RedisCallLog({ client });
        await defaults.append(callOf(2));
        expect(await client.sendCommand(['LLEN', 'workflow-webhooks:calls'])).to.be.above(0);
        await client.sendCommand(['DEL', 'workflow-webhooks:calls']);
      });

      it('leaves out what does not parse as a call, in the list and on the channel', async () => {
        const keyPrefix = `junk-${process.pid}:`;
        const log = new RedisCallLog({ client, keyPrefix, capacity: 10 });
        closers.push(() => log.close());
        const heard: string[] = [];
        log.subscribe((call) => heard.push(call.callId));
        await log.subscribed();
        await log.append(callOf(1));
        await client.sendCommand(['LPUSH', `${keyPrefix}calls`, 'not json', '{"no":"callId"}', 'null']);
        await client.sendCommand(['PUBLISH', `${keyPrefix}calls:new`, 'not json']);
        await log.append(callOf(2));
        expect((await log.recent()).map((call) => call.callId)).to.deep.equal(['call-2', 'call-1']);
        const start = Date.now();
        while (heard.length < 2 && Date.now() - start < 2000) await new Promise((resolve) => setTimeout(resolve, 5));
        expect(heard).to.deep.equal(['call-1', 'call-2']);
      });

      it('opens one subscription connection at the first subscribe, and close() closes it, not the given client', async () => {
        const name = `close-spec-${process.pid}`;
        const given = await connected(server.url, name);
        closers.push(() => given.destroy());
        const log = new RedisCallLog({ client: given, keyPrefix: `close-${process.pid}:` });
        expect(await connections(client, name)).to.deep.equal(['commands']);
        log.subscribe(() => undefined);
        log.subscribe(() => undefined);
        await log.subscribed();
        expect(await connections(client, name)).to.deep.equal(['commands', 'subscriber']);
        await log.close();
        const start = Date.now();
        while ((await connections(client, name)).length > 1 && Date.now() - start < 2000) await new Promise((resolve) => setTimeout(resolve, 5));
        expect(await connections(client, name)).to.deep.equal(['commands']);
        expect(given.isOpen).to.equal(true);
        await log.append(callOf(1));
        expect((await log.recent()).map((call) => call.callId)).to.deep.equal(['call-1']);
        expect(() => log.subscribe(() => undefined)).to.throw(Error, 'the RedisCallLog was closed');
      });

      it('rejects an append or a read within commandTimeoutMs when Redis does not answer', async () => {
        const paused = await RedisServer.start() as RedisServer;
        closers.push(() => paused.stop());
        const stalled = await connected(paused.url);
        closers.push(() => { paused.resume(); stalled.destroy(); });
        const log = new RedisCallLog({ client: stalled, commandTimeoutMs: 100 });
        paused.pause();
        const errors = await withFakeTimers(async (clock) => {
          const works = [watched<unknown>(log.append(callOf(1))), watched<unknown>(log.recent())];
          await timersArmed(clock, 2);
          await clock.tickAsync(99);
          expect(works.map((work) => work.settled), 'settled before commandTimeoutMs').to.deep.equal([false, false]);
          await clock.tickAsync(1);
          return works.map((work) => work.error as Error | undefined);
        });
        expect(errors.map((error) => error?.message)).to.deep.equal([
          'workflow-webhooks/redis: RedisCallLog failed while appending a call: no answer within 100 ms',
          'workflow-webhooks/redis: RedisCallLog failed while reading the recent calls: no answer within 100 ms',
        ]);
      });

      it('tells the host\'s logger, not stderr, when its subscription cannot connect', async () => {
        const logged: string[] = [];
        const unreachable = createClient({ url: 'redis://127.0.0.1:1', socket: { reconnectStrategy: false } });
        unreachable.on('error', () => undefined);
        const log = new RedisCallLog({
          client: unreachable as unknown as RedisCallLogClient,
          logger: { error: (fields, message) => logged.push(`${message} / ${String(fields.message)}`), warn: () => undefined },
        });
        closers.push(() => log.close());
        // Whatever reaches stderr meanwhile (console.error and console.warn write there too) is kept aside.
        const stderr: string[] = [];
        const write = process.stderr.write;
        process.stderr.write = ((chunk: string | Uint8Array) => { stderr.push(String(chunk)); return true; }) as typeof process.stderr.write;
        try {
          log.subscribe(() => undefined);
          await log.subscribed().then(() => { throw new Error('subscribed to an unreachable Redis'); }, () => undefined);
        } finally {
          process.stderr.write = write;
        }
        expect(stderr.filter((line) => /RedisCallLog|subscription/.test(line)), 'written to stderr').to.deep.equal([]);
        expect(logged).to.have.length.greaterThan(0);
        for (const line of logged) expect(line).to.match(/^workflow-webhooks\/redis: the RedisCallLog subscription failed; it reconnects by itself \/ \S/);
      });

      it('refuses options it cannot use, with a TypeError naming the option', () => {
        const valid = client as unknown as RedisCallLogClient;
        for (const [options, message] of [
          [undefined, 'workflow-webhooks/redis: RedisCallLog option object is required: new RedisCallLog({ client })'],
          [{}, 'option client must be a node-redis client'],
          [{ client: { sendCommand: () => Promise.resolve() } }, 'option client must be a node-redis client'],
          [{ client: valid, keyPrefix: 7 }, 'option keyPrefix must be a string'],
          [{ client: valid, capacity: 0 }, 'RedisCallLog capacity must be a whole number from 1 to 100000'],
          [{ client: valid, capacity: 2.5 }, 'RedisCallLog capacity must be a whole number from 1 to 100000'],
          [{ client: valid, commandTimeoutMs: 0 }, 'option commandTimeoutMs must be a positive number'],
          [{ client: valid, onError: 'log' }, 'option onError must be a function'],
          [{ client: valid, logger: { error: () => undefined } }, 'option logger must have error(fields, message) and warn(fields, message)'],
        ] as const) {
          expect(() => new RedisCallLog(options as never), message).to.throw(TypeError, message);
        }
        expect(new RedisCallLog({ client: valid }).capacity).to.equal(200);
      });
    });
  });
}
