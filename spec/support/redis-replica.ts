/**
 * A primary and one replica of it (`--replicaof`), on loopback ports, persistence off: what replica acknowledgement
 * (Redis WAIT) needs. The replica can be stopped (SIGSTOP) so that it acknowledges nothing, and let go again.
 */
import { createClient } from 'redis';
import { RedisServer } from './redis-server.js';

export class RedisReplicaPair {
  readonly primary: RedisServer;
  readonly replica: RedisServer;

  private constructor(primary: RedisServer, replica: RedisServer) {
    this.primary = primary;
    this.replica = replica;
  }

  /** Starts both and resolves once the replica is in sync; undefined when redis-server is not on this machine. */
  static async start(): Promise<RedisReplicaPair | undefined> {
    const primary = await RedisServer.start();
    if (primary === undefined) return undefined;
    // Loaded from the socket: a replica otherwise writes the primary's snapshot to dump.rdb in its working folder.
    const replica = await RedisServer.start(() => ['--replicaof', '127.0.0.1', String(primary.port), '--repl-diskless-load', 'swapdb']) as RedisServer;
    const pair = new RedisReplicaPair(primary, replica);
    await pair.#until(async (info) => /master_link_status:up/.test(info), replica.url, 'the replica to sync');
    return pair;
  }

  /** The replica stops acknowledging anything (SIGSTOP): WAIT on the primary times out. */
  stopReplica(): void {
    this.replica.pause();
  }

  /** The replica goes on (SIGCONT), and catches up with the primary's stream. */
  resumeReplica(): void {
    this.replica.resume();
  }

  async stop(): Promise<void> {
    await Promise.all([this.replica.stop(), this.primary.stop()]);
  }

  async #until(check: (info: string) => Promise<boolean>, url: string, what: string): Promise<void> {
    const client = createClient({ url });
    client.on('error', () => undefined);
    await client.connect();
    try {
      const until = Date.now() + 15_000;
      while (!await check(await client.sendCommand(['INFO', 'replication']) as string)) {
        if (Date.now() > until) throw new Error(`gave up waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      client.destroy();
    }
  }
}
