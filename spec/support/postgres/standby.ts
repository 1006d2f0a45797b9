/**
 * A primary and its streaming standby behind one address, as a managed database's endpoint is, for the failover
 * specs: the standby is a base backup of the primary (`pg_basebackup -R`) that follows it by streaming replication,
 * synchronously (the primary's `synchronous_standby_names` names it, `synchronous_commit = on`) or asynchronously; the
 * app reaches whichever is primary through a TCP proxy, which `failover()` moves to the standby once it is promoted.
 * The standby replicates through a TCP proxy of its own, so a spec can cut it off (`cutReplication()`) as a lagging
 * or partitioned standby is: what the primary acknowledges from then on is on the primary alone.
 */
import pg from 'pg';
import { PostgresServer } from '../postgres-server.js';
import { TcpProxy } from '../tcp-proxy.js';

/** The standby's application name on the primary (its `cluster_name`): what `synchronous_standby_names` lists. */
const STANDBY_NAME = 'failover_standby';

export interface ReplicatedPair {
  primary: PostgresServer;
  standby: PostgresServer;
  /** The one address the app is given: the primary's until the failover, then the promoted standby's. */
  url: string;
  /** Stops replication: the standby's connection dropped and its reconnections left unanswered. */
  cutReplication(): void;
  /**
   * As a failover goes: the primary killed (`-m immediate`, no clean shutdown, nothing more sent to the standby), the
   * standby promoted, then the address switched to it. Resolves the time (Date.now()) of the switch.
   */
  failover(): Promise<number>;
  stop(): Promise<void>;
}

/** A connection string for the `postgres` superuser on a loopback port. */
function postgresUrl(port: number): string {
  return `postgres://postgres@127.0.0.1:${port}/postgres`;
}

/** Polls the primary until the standby streams to it, in the replication mode asked for; throws after `limitMs`. */
async function standbyStreaming(primary: PostgresServer, synchronous: boolean, limitMs: number): Promise<void> {
  const client = new pg.Client({ connectionString: primary.url });
  await client.connect();
  try {
    const wanted = synchronous ? 'sync' : 'async';
    const until = Date.now() + limitMs;
    for (;;) {
      const { rows } = await client.query<{ state: string; sync_state: string }>(
        'SELECT state, sync_state FROM pg_stat_replication WHERE application_name = $1', [STANDBY_NAME]);
      if (rows[0]?.state === 'streaming' && rows[0].sync_state === wanted) return;
      if (Date.now() > until) throw new Error(`the standby did not stream (${wanted}) within ${limitMs} ms: ${JSON.stringify(rows)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await client.end();
  }
}

/** Starts both servers and the proxy; undefined when PostgreSQL is not on this machine. */
export async function replicatedPair(options: { synchronous: boolean }): Promise<ReplicatedPair | undefined> {
  const primary = await PostgresServer.start({
    settings: options.synchronous ? { synchronous_standby_names: STANDBY_NAME, synchronous_commit: 'on' } : {},
  });
  if (primary === undefined) return undefined;
  let standby: PostgresServer | undefined;
  let proxy: TcpProxy | undefined;
  let replication: TcpProxy | undefined;
  try {
    replication = await TcpProxy.start(primary.port);
    const link = replication;
    standby = await PostgresServer.start({
      // The walreceiver reports cluster_name as its application name: the name the primary's setting looks for.
      settings: { cluster_name: STANDBY_NAME },
      from: (data, tool) => tool('pg_basebackup', [
        // Through the replication proxy: -R writes this address into the standby's primary_conninfo.
        '-h', '127.0.0.1', '-p', String(link.port), '-U', 'postgres', '-D', data, '-R', '-X', 'stream', '-c', 'fast', '--no-sync',
      ]),
    }) as PostgresServer;
    await standbyStreaming(primary, options.synchronous, 30_000);
    proxy = await TcpProxy.start(primary.port);
  } catch (error) {
    await replication?.stop();
    await standby?.stop();
    await primary.stop();
    throw error;
  }
  const [promoted, endpoint, link] = [standby, proxy, replication];
  return {
    primary,
    standby: promoted,
    url: postgresUrl(endpoint.port),
    cutReplication: () => link.cut(),
    async failover() {
      await primary.stopImmediately();
      await promoted.promote();
      endpoint.switchTo(promoted.port);
      return Date.now();
    },
    async stop() {
      await endpoint.stop();
      await link.stop();
      await promoted.stop();
      await primary.stop();
    },
  };
}
