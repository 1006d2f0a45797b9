import { expect } from 'chai';
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createClient } from 'redis';
import { RedisWebhookRegistry, type RedisRegistryEvent } from 'workflow-webhooks/redis';
import { eventually } from '../support/registry-contract/instances.js';
import { REDIS, RedisServer } from '../support/redis-server.js';
import { compileErrors, docBlock } from '../support/readme/blocks.js';
import { findService, markNotRun } from '../support/services.js';
import { closeAll, eachOf } from '../support/close-all.js';

const INSTANCE = fileURLToPath(new URL('../support/redis/readme-instance.ts', import.meta.url));

/** What the block of docs/instances.md leaves to its reader, declared, so the block compiles as a user's file would. */
const PRELUDE = `import express from 'express';
import type { WebhookExecutor } from 'workflow-webhooks';
declare const app: express.Express;
declare const executor: WebhookExecutor;
`;

describe('the instances guide\'s Redis registry code', function () {
  this.timeout(30_000);

  it('compiles as printed under strict', () => {
    const block = docBlock('docs/instances.md', '# Several instances');
    const imports = block.split('\n').filter((line) => line.startsWith('import ')).join('\n');
    const rest = block.split('\n').filter((line) => !line.startsWith('import ')).join('\n');
    expect(compileErrors(`${imports}\n${PRELUDE}${rest}`)).to.deep.equal([]);
  });
});

if (findService(REDIS) === undefined) {
  markNotRun('the instances guide\'s Redis registry code against a Redis that stops', REDIS);
} else {
  describe('the instances guide\'s Redis registry code, run as printed, when Redis stops', function () {
    this.timeout(60_000);
    let server: RedisServer;
    const children: ChildProcess[] = [];

    interface Instance { child: ChildProcess; port: number; exited: Promise<{ code: number | null; stderr: string }>; stderr: () => string }

    async function start(env: Record<string, string> = {}): Promise<Instance> {
      const child = fork(INSTANCE, [], {
        execArgv: ['--conditions=workflow-webhooks-source', '--import', 'tsx'],
        env: { ...process.env, REDIS_URL: server.url, ...env },
        stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      });
      children.push(child);
      let stderr = '';
      child.stderr?.on('data', (chunk: Buffer) => { stderr = (stderr + chunk.toString()).slice(-4000); });
      const exited = new Promise<{ code: number | null; stderr: string }>((resolve) => child.once('exit', (code) => resolve({ code, stderr })));
      const port = await Promise.race([
        new Promise<number>((resolve) => child.once('message', (message: { port: number }) => resolve(message.port))),
        exited.then(({ code, stderr: output }) => { throw new Error(`the instance exited with ${String(code)} before listening:\n${output}`); }),
      ]);
      return { child, port, exited, stderr: () => stderr };
    }

    async function post(port: number): Promise<number> {
      const res = await fetch(`http://127.0.0.1:${port}/api/automation/webhook/orders`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
      await res.arrayBuffer();
      return res.status;
    }

    beforeEach(async () => { server = await RedisServer.start() as RedisServer; });
    afterEach(() => closeAll(...eachOf(children.splice(0), (child) => child.kill('SIGKILL')), () => server?.stop()));

    it('keeps the instance alive and serving from memory while Redis is gone, and after it comes back empty', async () => {
      const instance = await start();
      expect(await post(instance.port)).to.equal(200);
      await server.kill();
      // node-redis reports the lost socket and every failed reconnect as an 'error' event, which the guide's listener
      // prints ("redis: …"): once three are out, each of which kills an instance without the listener, it is alive.
      await eventually(async () => instance.child.exitCode !== null || (instance.stderr().match(/^redis: /gm) ?? []).length >= 3, 10_000);
      expect(instance.child.exitCode, instance.stderr()).to.equal(null);
      expect(await post(instance.port)).to.equal(200);
      await server.restart();
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(await post(instance.port)).to.equal(200);
      expect(instance.child.exitCode).to.equal(null);
    });

    it('is what keeps it alive: without the error listener, the same code dies at the first outage', async () => {
      const instance = await start({ DROP_ERROR_LISTENER: '1' });
      expect(await post(instance.port)).to.equal(200);
      await server.kill();
      const { code, stderr } = await instance.exited;
      expect(code).to.not.equal(0);
      expect(stderr).to.match(/Unhandled 'error' event|SocketClosedUnexpectedlyError/);
    });
  });

  describe('the Redis registry given a client without an error listener', function () {
    this.timeout(20_000);
    let server: RedisServer;
    before(async () => { server = await RedisServer.start() as RedisServer; });
    after(async () => { await server?.stop(); });

    it('warns once at ready(), through onEvent, naming the fix', async () => {
      const client = createClient({ url: server.url });
      await client.connect();
      const events: RedisRegistryEvent[] = [];
      const registry = new RedisWebhookRegistry({ client, prefix: 'no-listener:', onEvent: (event) => events.push(event) });
      try {
        await registry.ready();
        const warnings = events.filter((event) => event.type === 'warning');
        expect(warnings).to.have.length(1);
        expect(warnings[0]).to.include({ code: 'missingErrorListener' });
        expect((warnings[0] as { message: string }).message).to.match(/client\.on\('error'/);
      } finally {
        await registry.close();
        client.destroy();
      }
    });

    it('writes its events to the logger it is given instead of stderr, and says nothing of a client that has its listener', async () => {
      const client = createClient({ url: server.url });
      client.on('error', () => undefined);
      await client.connect();
      const warnings: string[] = [];
      const logger = { warn: (_fields: Record<string, unknown>, message?: string) => warnings.push(message ?? ''), error: () => undefined };
      const registry = new RedisWebhookRegistry({ client, prefix: 'with-listener:', logger, commandTimeoutMs: 300 });
      // What reaches stderr meanwhile is kept aside (and not printed): the events must not go there too.
      const stderr: string[] = [];
      const write = process.stderr.write;
      process.stderr.write = ((chunk: string | Uint8Array) => { stderr.push(String(chunk)); return true; }) as typeof process.stderr.write;
      try {
        await registry.ready();
        expect(warnings).to.deep.equal([]);
        await server.kill();
        await eventually(async () => warnings.some((message) => /unreachable/.test(message)), 5000);
        await server.restart();
        await eventually(async () => warnings.some((message) => /reachable again/.test(message)), 8000);
      } finally {
        process.stderr.write = write;
        await registry.close();
        client.destroy();
      }
      expect(stderr.filter((text) => /workflow-webhooks|Redis/i.test(text)), 'written to stderr').to.deep.equal([]);
    });
  });
}
