/**
 * A throwaway PostgreSQL server for the benchmarks (the specs' own, spec/support/postgres-server.ts: initdb in a temp
 * folder, a free loopback port), and the database's own CPU so far: the postmaster and every backend it forked, read
 * from /proc, so a benchmark can give the database's time per call beside the server's.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { PostgresServer } from '../spec/support/postgres-server.js';

export interface BenchPostgres {
  url: string;
  /** µs of CPU (user + system) the server's processes have used, those still running. */
  cpuMicros(): number;
  stop(): Promise<void>;
}

const TICKS_PER_SECOND = 100;

/** utime + stime of one process, in clock ticks, and its parent's id; undefined once it has gone. */
function statOf(pid: string): { parent: number; ticks: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces: the fields after it start past its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { parent: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return undefined;
  }
}

export async function startPostgres(): Promise<BenchPostgres> {
  const server = await PostgresServer.start();
  if (server === undefined) throw new Error('PostgreSQL is not on this machine (Debian: apt-get install postgresql)');
  const postmaster = server.pid;
  return {
    url: server.url,
    cpuMicros: () => {
      let ticks = 0;
      for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
        const stat = statOf(pid);
        if (stat !== undefined && (Number(pid) === postmaster || stat.parent === postmaster)) ticks += stat.ticks;
      }
      return Math.round((ticks * 1e6) / TICKS_PER_SECOND);
    },
    stop: () => server.stop(),
  };
}
