/**
 * How queue mode's own commands reach Redis on every topology: through the kind of node-redis client it was given
 * (plain, cluster, Sentinel), each command routed by a key of the queue. Every key of one queue — BullMQ's
 * `<prefix>:<name>:…` and ours `<prefix>:<name>:wh:…` — shares one hash slot (the prefix has a hash tag on a
 * cluster), so one route key serves them all. Also the reply channel's pub/sub: sharded (SSUBSCRIBE/SPUBLISH) on a
 * cluster of Redis 7 or later, so a reply goes to the one shard that holds the queue instead of every node. A reply
 * without a keyring is stored under a key named after its channel (so in the queue's slot) and the message names
 * that key: a user allowed to PUBLISH but not to write the queue's keys cannot put words in a caller's answer.
 */
import { randomUUID } from 'node:crypto';
import { sendVia, type RedisTopology } from '../redis/topology.js';
import type { QueueRedisClient } from './connection.js';
import type { ReplyMode } from './store/contract.js';
import type { ReplyTakes, TakeMany } from './store/reply-takes.js';

/** How long a stored reply waits to be read: its listener reads it at once, or never (its calls look at their jobs). */
const STORED_REPLY_MS = 60_000;

/** KEYS: the stored reply. ARGV: the reply, its expiry in ms, the channel, and the publish command. Stores, then names it. */
const STORE_AND_PUBLISH = `
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return redis.call(ARGV[4], ARGV[3], KEYS[1])`;

/** KEYS: stored replies (one channel's, so one slot). Reads each once: the first to read it deletes it; '' when gone. */
const TAKE = `
local replies = {}
for i, key in ipairs(KEYS) do
  local reply = redis.call('GET', key)
  if reply then redis.call('DEL', key) end
  replies[i] = reply or ''
end
return replies`;

const REPLY_ID = /^[0-9a-f-]{36}$/;

/** Whether `message` names a stored reply of `channel`: the channel, `:`, then the random id a worker gave it. */
function namesStoredReply(channel: string, message: string): boolean {
  return message.startsWith(`${channel}:`) && REPLY_ID.test(message.slice(channel.length + 1));
}

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

/**
 * Publishes a reply on the channel (routed by the channel itself: it shares the queue's hash tag): `sealed`, in the
 * message; `stored`, under a key of its own that the message names, both in one script.
 */
export function publishReply(client: QueueRedisClient, topology: RedisTopology, sharded: boolean, channel: string, message: string, mode: ReplyMode): Promise<unknown> {
  const command = sharded ? 'SPUBLISH' : 'PUBLISH';
  if (mode === 'sealed') return sendVia(client, topology, [command, channel, message], channel);
  const key = `${channel}:${randomUUID()}`;
  return sendVia(client, topology, ['EVAL', STORE_AND_PUBLISH, '1', key, message, String(STORED_REPLY_MS), channel, command], channel);
}

/**
 * The listener's side of `publishReply`: hands on each reply heard on `channel`, in the order heard. `sealed`: the
 * message is the reply. `stored`: the message must name a stored reply of this channel (anything else did not come
 * from a worker, and is dropped unheard: reporting each would let anyone allowed to PUBLISH fill the host's log),
 * which `takes` reads from the store, a batch at a time; one that cannot be read is lost as a whole.
 */
export function replyReader(channel: string, mode: ReplyMode, takes: ReplyTakes, hand: (reply: string) => void): (message: string) => void {
  if (mode === 'sealed') return hand;
  let order: Promise<void> = Promise.resolve();
  return (message) => {
    if (!namesStoredReply(channel, message)) return;
    const reply = takes.take(message);
    order = order.then(async () => {
      const text = await reply;
      if (text !== undefined) hand(text);
    });
  };
}

/** Reads stored replies once each, deleting them (one script: the names share their channel's slot). */
export function takeReplies(commands: QueueCommands): TakeMany {
  return async (keys) => {
    const replies = await commands.sendCommand(['EVAL', TAKE, String(keys.length), ...keys]) as unknown[];
    const found = new Map<string, string>();
    keys.forEach((key, index) => {
      const reply = replies[index];
      if (typeof reply === 'string' && reply !== '') found.set(key, reply);
    });
    return found;
  };
}
