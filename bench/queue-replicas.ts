/**
 * What replica acknowledgement costs: the same queue-mode web instance (Express 5, onReceived, no worker) with
 * `replicas: 0` and `replicas: 1`, on a primary and one replica on loopback, measured in alternating rounds: calls/s
 * and the p50 and p99 latency of a call. Every server is a process of its own; both redis-servers are started here.
 */
import { createClient } from 'redis';
import { median, stop, type BenchSettings, type Sample } from './http.js';
import { pair, start, until, type Child } from './queue-mode.js';
import { startRedis } from './redis-server.js';

export async function benchReplicas(base: BenchSettings): Promise<string> {
  const settings = { ...base, connections: 10 };
  const primary = await startRedis();
  const port = new URL(primary.url).port;
  // Loaded from the socket: a replica otherwise writes the primary's snapshot to dump.rdb in the working folder.
  const replica = await startRedis(undefined, ['--replicaof', '127.0.0.1', port, '--repl-diskless-load', 'swapdb']);
  const children: Child[] = [];
  try {
    const probe = createClient({ url: replica.url });
    probe.on('error', () => undefined);
    await probe.connect();
    await until(async () => (await probe.sendCommand(['INFO', 'replication']) as string).includes('master_link_status:up'));
    probe.destroy();
    const none = await start('queue-mode-web.ts', ['queue', 'onReceived'], { REDIS_URL: primary.url, QUEUE_NAME: 'bench-r0', QUEUE_REPLICAS: '0' });
    children.push(none);
    const one = await start('queue-mode-web.ts', ['queue', 'onReceived'], { REDIS_URL: primary.url, QUEUE_NAME: 'bench-r1', QUEUE_REPLICAS: '1' });
    children.push(one);
    const [zero, acked] = await pair(none, one, settings);
    const row = (label: string, list: Sample[]): string => `| ${label} | ${Math.round(median(list.map((s) => s.requests))).toLocaleString('en')} | ` +
      `${median(list.map((s) => s.p50)).toFixed(2)} ms | ${median(list.map((s) => s.p99)).toFixed(2)} ms | ${list.map((s) => Math.round(s.requests)).join(', ')} |`;
    return ['| onReceived JSON, Express 5, 10 connections, no worker | calls/s | p50 | p99 | rounds (calls/s) |', '|---|---:|---:|---:|---|',
      row('`replicas: 0` (a 2xx: the primary stored the job)', zero), row('`replicas: 1` (a 2xx: the replica holds it too; WAIT)', acked)].join('\n');
  } finally {
    await Promise.all(children.map(({ child }) => stop(child)));
    await replica.stop();
    await primary.stop();
  }
}
