/**
 * The Redis topologies production uses, started for the specs on loopback ports: a Redis Cluster of three masters
 * (`--cluster-enabled`, joined with `redis-cli --cluster create`) and a Sentinel group (a primary, its replicas and
 * three sentinels). Each server runs in a folder of its own under the OS temp folder, persistence off, and is
 * stopped by PID; a primary can be SIGKILLed to make Sentinel fail over. The benchmarks use it too, so it takes the
 * redis-server binary it is given and never installs anything (the specs find it with findService).
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A loopback port nothing listens on now (the OS picks it); something else may take it before it is bound. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** One redis-server child, started in `folder` with `args`, ready when its log says so. */
class Child {
  port: number;
  #process: ChildProcess | undefined;

  constructor(port: number) {
    this.port = port;
  }

  /**
   * Starts redis-server with the arguments `argsFor(port)` gives. A free port can be taken by another socket between
   * its probe and the bind (the suite opens many connections): then it starts again on another free port.
   */
  async start(binary: string, argsFor: (port: number) => string[], folder: string): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        await this.#spawn(binary, argsFor(this.port), folder);
        return;
      } catch (error) {
        if (attempt === 3 || !/Address already in use/.test((error as Error).message)) throw error;
        this.port = await freePort();
      }
    }
  }

  async #spawn(binary: string, args: string[], folder: string): Promise<void> {
    const child = spawn(binary, args, { cwd: folder, stdio: ['ignore', 'pipe', 'pipe'] });
    this.#process = child;
    await new Promise<void>((resolve, reject) => {
      let output = '';
      const timer = setTimeout(() => reject(new Error(`redis-server on port ${this.port} did not start:\n${output}`)), 10_000);
      child.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (/Ready to accept connections|Sentinel ID is/.test(output)) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server on port ${this.port} exited with ${String(code)}:\n${output}`));
      });
    });
    child.stdout?.removeAllListeners('data');
    child.stdout?.resume();
    child.stderr?.resume();
  }

  /** Stops the process (SIGSTOP): a replica so stopped acknowledges nothing; `resume()` lets it go on. */
  pause(): void {
    this.#process?.kill('SIGSTOP');
  }

  resume(): void {
    this.#process?.kill('SIGCONT');
  }

  get alive(): boolean {
    return this.#process !== undefined && this.#process.exitCode === null && this.#process.signalCode === null;
  }

  async kill(): Promise<void> {
    const child = this.#process;
    if (child === undefined || !this.alive) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGCONT');
    child.kill('SIGKILL');
    await exited;
  }
}

/** Persistence off; a replica's first sync starts at once (Redis waits 5 s for more replicas by default). */
const PLAIN = ['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'yes', '--repl-diskless-sync-delay', '0'];

async function waitUntil(check: () => Promise<boolean>, what: string, ms = 15_000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > until) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A local Redis Cluster of `masters` masters, each with `replicas` replicas (default none), every slot covered. */
export class RedisClusterGroup {
  readonly #folder: string;
  readonly #cli: string;
  readonly nodes: Child[];

  private constructor(folder: string, cli: string, nodes: Child[]) {
    this.#folder = folder;
    this.#cli = cli;
    this.nodes = nodes;
  }

  /** Starts one with the redis-server at `binary` (redis-cli beside it joins the nodes), `replicas` per master. */
  static async start(binary: string, masters = 3, replicas = 0): Promise<RedisClusterGroup> {
    const folder = mkdtempSync(join(tmpdir(), 'wwh-cluster-'));
    const nodes = await Promise.all(Array.from({ length: masters * (1 + replicas) }, async () => new Child(await freePort())));
    const group = new RedisClusterGroup(folder, join(dirname(binary), 'redis-cli'), nodes);
    try {
      await Promise.all(nodes.map(async (node) => {
        const own = mkdtempSync(join(folder, 'node-'));
        await node.start(binary, (port) => ['--port', String(port), ...PLAIN, '--cluster-enabled', 'yes',
          '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '2000'], own);
      }));
      await run(group.#cli, ['--cluster', 'create', ...nodes.map((node) => `127.0.0.1:${node.port}`), '--cluster-replicas', String(replicas), '--cluster-yes']);
      await waitUntil(async () => (await Promise.all(nodes.map((node) => group.cli(node.port, 'CLUSTER', 'INFO'))))
        .every((info) => info.includes('cluster_state:ok')), 'cluster_state:ok on every node');
      // A replica counts once in sync (a diskless full sync starts after a delay of 5 s).
      if (replicas > 0) {
        await waitUntil(async () => (await Promise.all(nodes.map((node) => group.cli(node.port, 'INFO', 'replication'))))
          .every((info) => !info.includes('role:master') || (info.match(/state=online/g) ?? []).length === replicas), 'every replica in sync', 30_000);
      }
    } catch (error) {
      await group.stop();
      throw error;
    }
    return group;
  }

  /** The root nodes a node-redis `createCluster({ rootNodes })` takes. */
  get rootNodes(): Array<{ url: string }> {
    return this.nodes.map((node) => ({ url: `redis://127.0.0.1:${node.port}` }));
  }

  /** Runs a redis-cli command against one node and returns its output. */
  async cli(port: number, ...args: string[]): Promise<string> {
    return (await run(this.#cli, ['-p', String(port), ...args])).stdout;
  }

  /** The port of the master that serves `slot` now. */
  async ownerOf(slot: number): Promise<number> {
    const lines = (await this.cli(this.nodes[0]!.port, 'CLUSTER', 'NODES')).trim().split('\n');
    for (const line of lines) {
      const [, address, flags, , , , , , ...ranges] = line.split(' ');
      if (!flags?.includes('master')) continue;
      for (const range of ranges) {
        const [from, to = from] = range.split('-').map(Number);
        if (from !== undefined && to !== undefined && slot >= from && slot <= to) return Number(address?.split(':')[1]?.split('@')[0]);
      }
    }
    throw new Error(`no master serves slot ${slot}`);
  }

  /** Moves a slot and its keys from one master to another, as `redis-cli --cluster reshard` does: clients get MOVED. */
  async moveSlot(slot: number, from: number, to: number): Promise<void> {
    const [fromId, toId] = await Promise.all([from, to].map(async (port) => (await this.cli(port, 'CLUSTER', 'MYID')).trim()));
    await this.cli(to, 'CLUSTER', 'SETSLOT', String(slot), 'IMPORTING', fromId!);
    await this.cli(from, 'CLUSTER', 'SETSLOT', String(slot), 'MIGRATING', toId!);
    for (;;) {
      const keys = (await this.cli(from, 'CLUSTER', 'GETKEYSINSLOT', String(slot), '100')).split('\n').filter((key) => key !== '');
      if (keys.length === 0) break;
      await this.cli(from, 'MIGRATE', '127.0.0.1', String(to), '', '0', '5000', 'KEYS', ...keys);
    }
    for (const node of this.nodes) await this.cli(node.port, 'CLUSTER', 'SETSLOT', String(slot), 'NODE', toId!);
  }

  async stop(): Promise<void> {
    await Promise.all(this.nodes.map((node) => node.kill()));
    rmSync(this.#folder, { recursive: true, force: true });
  }
}

/** A primary, `replicas` replicas of it, and three sentinels that watch it under the name `name`. */
export class RedisSentinelGroup {
  readonly name = 'wwh-primary';
  readonly #folder: string;
  readonly #cli: string;
  readonly servers: Child[];
  readonly sentinels: Child[];

  private constructor(folder: string, cli: string, servers: Child[], sentinels: Child[]) {
    this.#folder = folder;
    this.#cli = cli;
    this.servers = servers;
    this.sentinels = sentinels;
  }

  static async start(binary: string, options: { replicas?: number; downAfterMs?: number } = {}): Promise<RedisSentinelGroup> {
    const folder = mkdtempSync(join(tmpdir(), 'wwh-sentinel-'));
    const servers = await Promise.all(Array.from({ length: 1 + (options.replicas ?? 1) }, async () => new Child(await freePort())));
    const sentinels = await Promise.all(Array.from({ length: 3 }, async () => new Child(await freePort())));
    const group = new RedisSentinelGroup(folder, join(dirname(binary), 'redis-cli'), servers, sentinels);
    const [primary] = servers as [Child];
    try {
      for (const [index, server] of servers.entries()) {
        const replicaOf = index === 0 ? [] : ['--replicaof', '127.0.0.1', String(primary.port)];
        await server.start(binary, (port) => ['--port', String(port), ...PLAIN, ...replicaOf], folder);
      }
      // Online, not only connected: a replica promoted before its first full sync would come up empty.
      await waitUntil(async () => ((await group.cli(primary.port, 'INFO', 'replication')).match(/state=online/g) ?? []).length === servers.length - 1,
        'the replicas to finish their first sync');
      await Promise.all(sentinels.map((sentinel, index) => sentinel.start(binary, (port) => {
        // The sentinel rewrites its file as it learns: one file per sentinel, written for the port it starts on.
        const file = join(folder, `sentinel-${index}.conf`);
        writeFileSync(file, [`port ${port}`, 'bind 127.0.0.1', `dir ${folder}`,
          `sentinel monitor ${group.name} 127.0.0.1 ${primary.port} 2`,
          `sentinel down-after-milliseconds ${group.name} ${options.downAfterMs ?? 1000}`,
          `sentinel failover-timeout ${group.name} 3000`, ''].join('\n'));
        return [file, '--sentinel'];
      }, folder)));
      await waitUntil(async () => (await group.cli(sentinels[0]!.port, 'SENTINEL', 'REPLICAS', group.name)).includes('127.0.0.1'),
        'the sentinels to find the replicas');
    } catch (error) {
      await group.stop();
      throw error;
    }
    return group;
  }

  /** What node-redis `createSentinel({ name, sentinelRootNodes })` takes. */
  get sentinelRootNodes(): Array<{ host: string; port: number }> {
    return this.sentinels.map((sentinel) => ({ host: '127.0.0.1', port: sentinel.port }));
  }

  /** The port of the primary the sentinels name now. */
  async primaryPort(): Promise<number> {
    const answer = await this.cli(this.sentinels[0]!.port, 'SENTINEL', 'GET-MASTER-ADDR-BY-NAME', this.name);
    return Number(answer.trim().split('\n')[1]);
  }

  /**
   * SIGKILLs the current primary and resolves once the sentinels name another one. `afterKill` runs once it is dead,
   * before the promotion (to let a stopped replica go on, say).
   */
  async killPrimary(afterKill?: () => void): Promise<{ was: number; now: number }> {
    const was = await this.primaryPort();
    await this.servers.find((server) => server.port === was)?.kill();
    afterKill?.();
    let now = was;
    await waitUntil(async () => (now = await this.primaryPort()) !== was, 'Sentinel to promote a replica', 30_000);
    return { was, now };
  }

  async cli(port: number, ...args: string[]): Promise<string> {
    return (await run(this.#cli, ['-p', String(port), ...args])).stdout;
  }

  async stop(): Promise<void> {
    await Promise.all([...this.sentinels, ...this.servers].map((child) => child.kill()));
    rmSync(this.#folder, { recursive: true, force: true });
  }
}
