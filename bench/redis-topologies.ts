/**
 * `npm run bench -- topologies`: the Redis registry on one redis-server, on a 3-master Redis Cluster and behind
 * Sentinel (a primary, a replica, three sentinels), all started here on loopback and measured in one run: how fast a
 * change reaches two other instances, and how many activations one instance makes. The cluster pays a hash-slot
 * routing step per command; Sentinel pays nothing per command once its client knows the primary.
 */
import { RedisClusterGroup, RedisSentinelGroup } from '../spec/support/redis-topologies.js';
import { activations, propagation, type RedisRegistrySettings } from './redis-registry.js';
import { startRedis } from './redis-server.js';

const binary = process.env.REDIS_SERVER ?? 'redis-server';
const setting = (name: string, fallback: number): number => Number(process.env[name] ?? fallback);

interface Topology { name: string; url: string; stop(): Promise<void> }

async function started(): Promise<Topology[]> {
  const single = await startRedis(binary);
  const cluster = await RedisClusterGroup.start(binary);
  const sentinel = await RedisSentinelGroup.start(binary, { replicas: 1 });
  return [
    { name: 'one redis-server', url: single.url, stop: () => single.stop() },
    { name: 'Redis Cluster, 3 masters', url: `cluster:${cluster.rootNodes.map((node) => node.url).join(',')}`, stop: () => cluster.stop() },
    { name: 'Sentinel, primary + replica', url: `sentinel:${sentinel.name}@${sentinel.sentinelRootNodes.map((node) => `${node.host}:${node.port}`).join(',')}`, stop: () => sentinel.stop() },
  ];
}

export async function benchRedisTopologies(): Promise<string> {
  const settings: RedisRegistrySettings = {
    cycles: setting('REDIS_CYCLES', 200), sequential: setting('REDIS_SEQUENTIAL', 3000), concurrent: setting('REDIS_CONCURRENT', 10_000),
    concurrency: 50, coldRoutes: 0, coldStarts: 0,
  };
  const topologies = await started();
  const parts: string[] = [];
  try {
    for (const topology of topologies) {
      parts.push(`#### ${topology.name}\n\n${await propagation(topology.url, settings.cycles)}\n\n${await activations(topology.url, settings)}`);
    }
  } finally {
    await Promise.all(topologies.map((topology) => topology.stop()));
  }
  return parts.join('\n\n');
}
