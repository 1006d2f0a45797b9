/**
 * The setting of the Redis fault specs of queue mode: a private redis-server, a web instance in the mocha process
 * (so an unhandled rejection of the queue surfaces here), one worker as a child process writing its completion log,
 * and hooks that take it all down again, whatever a test left behind.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Children } from './children.js';
import { closeConnections } from './load.js';
import { RedisServer } from '../redis-server.js';
import { startWeb, type RunningWeb } from './web.js';

export interface QueueFaultFixture {
  server: RedisServer;
  web: RunningWeb;
  children: Children;
  /** The worker's completion log. */
  log: string;
  /** Rejections nobody handled in the mocha process while the spec ran. */
  unhandled: unknown[];
  enqueueTimeoutMs: number;
}

/** Registers before/after hooks in the calling describe(); the fixture is filled in once `before` ran. */
export function queueFaultFixture(name: string, enqueueTimeoutMs: number): QueueFaultFixture {
  const fixture = { children: new Children(), unhandled: [] as unknown[], enqueueTimeoutMs } as QueueFaultFixture;
  let directory: string | undefined;
  const onUnhandled = (reason: unknown): void => { fixture.unhandled.push(reason); };

  before(async function () {
    // tsx compiles the worker's entry on a cold start; a loaded machine can take a while.
    this.timeout(60_000);
    process.on('unhandledRejection', onUnhandled);
    fixture.server = await RedisServer.start() as RedisServer;
    directory = mkdtempSync(join(tmpdir(), `queue-${name}-`));
    fixture.log = join(directory, 'worker.log');
    const queueName = `${name}-${process.pid}`;
    [fixture.web] = await Promise.all([
      startWeb({ redisUrl: fixture.server.url, queueName, enqueueTimeoutMs }),
      fixture.children.start('worker', 'worker', { REDIS_URL: fixture.server.url, QUEUE_NAME: queueName, COMPLETION_LOG: fixture.log, WORK_MS: '2' }),
    ]);
  });

  after(async function () {
    this.timeout(30_000);
    // A test that failed half-way may have left Redis stopped: a stopped process can be neither closed nor killed.
    fixture.server?.resume();
    await fixture.children.killAll();
    await fixture.web?.close();
    closeConnections();
    await fixture.server?.stop();
    if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
    process.off('unhandledRejection', onUnhandled);
  });

  return fixture;
}
