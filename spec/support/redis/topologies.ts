/**
 * The three Redis topologies every Redis suite runs on — one redis-server, a 3-master Redis Cluster, a primary with a
 * replica behind three sentinels — each started by the suite that needs it, and the node-redis client a user would
 * write for it (`createClient`, `createCluster`, `createSentinel`), connected, with an error listener. TOPOLOGIES
 * uses node-redis 6; NODE_REDIS_5 the same topologies through node-redis 5's clients, whose cluster and Sentinel
 * commands are sent the same way but which are separate code.
 */
import * as redis6 from 'redis';
import * as redis5 from 'redis5';
import { REDIS, RedisServer } from '../redis-server.js';
import { findService } from '../services.js';
import { RedisClusterGroup, RedisSentinelGroup } from '../redis-topologies.js';

export type TopologyName = 'one redis-server' | 'Redis Cluster' | 'Sentinel'
  | 'one redis-server (node-redis 5)' | 'Redis Cluster (node-redis 5)' | 'Sentinel (node-redis 5)';

/** The client the registry, call log and queue are given: the three node-redis kinds, typed loosely on purpose. */
export type AnyRedisClient = ReturnType<typeof redis6.createClient> | ReturnType<typeof redis6.createCluster> | ReturnType<typeof redis6.createSentinel>;

/** What both node-redis versions export for making clients; their types differ, so the clients are typed as 6's. */
interface NodeRedis {
  createClient(options: { url: string }): unknown;
  createCluster(options: { rootNodes: Array<{ url: string }> }): unknown;
  createSentinel(options: { name: string; sentinelRootNodes: Array<{ host: string; port: number }> }): unknown;
}

export interface RunningTopology {
  readonly name: TopologyName;
  /** A new connected client of this topology's kind. */
  client(): Promise<AnyRedisClient>;
  /** A new client of this topology's kind, not connected, with an error listener (what a host hands a library). */
  make(): AnyRedisClient;
  /** A URL of a server that holds the data (the primary; on a cluster, one master). */
  readonly url: string;
  /** The redis-server itself, on one redis-server only (to pause or kill it). */
  readonly server?: RedisServer;
  stop(): Promise<void>;
}

function listened<T extends { on(event: 'error', listener: () => void): unknown }>(client: T): T {
  client.on('error', () => undefined);
  return client;
}

async function connected<T extends { on(event: 'error', listener: () => void): unknown; connect(): Promise<unknown> }>(client: T): Promise<T> {
  await listened(client).connect();
  return client;
}

export interface TopologyStarter {
  readonly name: TopologyName;
  /** Starts it, or undefined when redis-server is not on this machine. */
  start(): Promise<RunningTopology | undefined>;
}

function startersOf(redis: NodeRedis, version: '' | ' (node-redis 5)'): TopologyStarter[] {
  const client = (made: unknown): Promise<AnyRedisClient> => connected(made as AnyRedisClient);
  const make = (made: unknown): AnyRedisClient => listened(made as AnyRedisClient);
  return [
    {
      name: `one redis-server${version}`,
      async start() {
        const server = await RedisServer.start();
        if (server === undefined) return undefined;
        return {
          name: `one redis-server${version}`,
          url: server.url,
          server,
          client: () => client(redis.createClient({ url: server.url })),
          make: () => make(redis.createClient({ url: server.url })),
          stop: () => server.stop(),
        };
      },
    },
    {
      name: `Redis Cluster${version}`,
      async start() {
        const binary = findService(REDIS);
        if (binary === undefined) return undefined;
        const group = await RedisClusterGroup.start(binary);
        return {
          name: `Redis Cluster${version}`,
          url: group.rootNodes[0]!.url,
          client: () => client(redis.createCluster({ rootNodes: group.rootNodes })),
          make: () => make(redis.createCluster({ rootNodes: group.rootNodes })),
          stop: () => group.stop(),
        };
      },
    },
    {
      name: `Sentinel${version}`,
      async start() {
        const binary = findService(REDIS);
        if (binary === undefined) return undefined;
        const group = await RedisSentinelGroup.start(binary);
        return {
          name: `Sentinel${version}`,
          url: `redis://127.0.0.1:${await group.primaryPort()}`,
          client: () => client(redis.createSentinel({ name: group.name, sentinelRootNodes: group.sentinelRootNodes })),
          make: () => make(redis.createSentinel({ name: group.name, sentinelRootNodes: group.sentinelRootNodes })),
          stop: () => group.stop(),
        };
      },
    },
  ] as TopologyStarter[];
}

/** One redis-server, a Redis Cluster and Sentinel, through node-redis 6. */
export const TOPOLOGIES: readonly TopologyStarter[] = startersOf(redis6 as unknown as NodeRedis, '');

/** A Redis Cluster and Sentinel through node-redis 5 (a plain client is sent commands the same way in 5 and 6). */
export const NODE_REDIS_5: readonly TopologyStarter[] = startersOf(redis5 as unknown as NodeRedis, ' (node-redis 5)').slice(1);
