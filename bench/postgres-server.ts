/**
 * A throwaway PostgreSQL server for the benchmarks (the specs' own, spec/support/postgres-server.ts: initdb in a temp
 * folder, a free loopback port), and the database's own CPU so far: the postmaster and every backend it forked (those
 * that ended too), read from /proc, so a benchmark can give the database's time per call beside the server's.
 */
import { readFileSync, readdirSync } from 'node:fs';
import pg from 'pg';
import { PostgresServer } from '../spec/support/postgres-server.js';

export interface BenchPostgres {
  url: string;
  /** µs of CPU (user + system) the server's processes have used, those that ended included. */
  cpuMicros(): number;
  stop(): Promise<void>;
}

const TICKS_PER_SECOND = 100;

/**
 * utime + stime of one process, in clock ticks, its parent's id, and the time of its children that ended (cutime +
 * cstime); undefined once it has gone.
 */
function statOf(pid: string): { parent: number; ticks: number; endedChildren: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces: the fields after it start past its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { parent: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]), endedChildren: Number(fields[13]) + Number(fields[14]) };
  } catch {
    return undefined;
  }
}

/**
 * `statements`: with pg_stat_statements loaded (it must be preloaded: set, then the server restarted), so a benchmark
 * can say which statements the database's time went to.
 */
export async function startPostgres({ statements = false }: { statements?: boolean } = {}): Promise<BenchPostgres> {
  const server = await PostgresServer.start();
  if (server === undefined) throw new Error('PostgreSQL is not on this machine (Debian: apt-get install postgresql)');
  if (statements) {
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    await client.query("ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'");
    await client.end();
    await server.restartImmediately();
  }
  const postmaster = server.pid;
  return {
    url: server.url,
    cpuMicros: () => {
      let ticks = 0;
      for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
        const stat = statOf(pid);
        // A backend that ended (a pool closed its connection) counts on in the postmaster's time of ended children:
        // without it, the total would drop when a client disconnects.
        if (stat !== undefined && Number(pid) === postmaster) ticks += stat.ticks + stat.endedChildren;
        else if (stat !== undefined && stat.parent === postmaster) ticks += stat.ticks;
      }
      return Math.round((ticks * 1e6) / TICKS_PER_SECOND);
    },
    stop: () => server.stop(),
  };
}
