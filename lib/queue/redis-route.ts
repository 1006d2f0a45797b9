/**
 * How queue mode's own commands reach Redis on every topology: through the kind of node-redis client it was given
 * (plain, cluster, Sentinel), each command routed by a key of the queue. Every key of one queue — BullMQ's
 * `<prefix>:<name>:…` and ours `<prefix>:<name>:wh:…` — shares one hash slot (the prefix has a hash tag on a
 * cluster), so one route key serves them all. Also the reply channel's pub/sub: sharded (SSUBSCRIBE/SPUBLISH) on a
 * cluster of Redis 7 or later, so a reply goes to the one shard that holds the queue instead of every node.
 */
import { sendVia, type RedisTopology } from '../redis/topology.js';
import type { QueueRedisClient } from './connection.js';

/** Raw commands to the queue's Redis, as a plain node-redis client's `sendCommand`, whatever the client's kind. */
export interface QueueCommands {
  sendCommand(args: ReadonlyArray<string | Buffer>, options?: Record<string, unknown>): Promise<unknown>;
}

/** `client`'s commands, each routed by `routeKey` (a key of the queue). */
export function routed(client: QueueRedisClient, topology: RedisTopology, routeKey: string): QueueCommands {
  return { sendCommand: (args, options) => sendVia(client, topology, args, routeKey, options) };
}

/**
 * Whether replies travel by sharded pub/sub: on a cluster whose node that holds the queue runs Redis 7 or later (a
 * web instance and its workers ask the same cluster, so they agree). Plain PUBLISH works on any cluster too, but
 * every node then carries every reply.
 */
export async function shardedReplies(commands: QueueCommands, topology: RedisTopology): Promise<boolean> {
  if (topology !== 'cluster') return false;
  const info = String(await commands.sendCommand(['INFO', 'server']));
  const major = Number(/redis_version:(\d+)/.exec(info)?.[1] ?? '0');
  return major >= 7;
}

type Subscribe = (channel: string, listener: (message: string) => void) => Promise<unknown>;

/** Listens on a reply channel with the subscriber connection; node-redis subscribes again after a reconnect. */
export function subscribeReplies(subscriber: QueueRedisClient, sharded: boolean, channel: string, listener: (message: string) => void): Promise<unknown> {
  const probe = subscriber as unknown as { subscribe: Subscribe; sSubscribe: Subscribe };
  return sharded ? probe.sSubscribe(channel, listener) : probe.subscribe(channel, listener);
}

/** Publishes a reply on the channel (routed by the channel itself: it shares the queue's hash tag). */
export function publishReply(client: QueueRedisClient, topology: RedisTopology, sharded: boolean, channel: string, message: string): Promise<unknown> {
  return sendVia(client, topology, [sharded ? 'SPUBLISH' : 'PUBLISH', channel, message], channel);
}
