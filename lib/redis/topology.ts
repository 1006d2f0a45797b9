/**
 * The three node-redis clients production uses — a plain client (`createClient`), a cluster (`createCluster`) and a
 * Sentinel client (`createSentinel`) — told apart, and one way to send a raw command through any of them. Their
 * `sendCommand` signatures differ: a cluster routes by a key it is given, a Sentinel client by whether the command
 * only reads. Also the key rule that makes multi-key scripts work on a cluster: every key of one store shares a
 * hash tag, so all of them live in one slot whatever prefix the user chose.
 */

export type RedisTopology = 'single' | 'cluster' | 'sentinel';

type AnyClient = object & { sendCommand?: unknown };

/** Which kind of node-redis client this is, from the methods only that kind has (version 5 and 6 alike). */
export function topologyOf(client: object): RedisTopology {
  const probe = client as Record<string, unknown>;
  if (typeof probe.getSlotMaster === 'function' && typeof probe.getMasters === 'function') return 'cluster';
  if (typeof probe.getMasterNode === 'function' && typeof probe.getSentinelNode === 'function') return 'sentinel';
  return 'single';
}

type Send = (...args: unknown[]) => Promise<unknown>;

/**
 * Sends one raw command to the primary that holds `routeKey` (on a cluster; any key of the store will do, they share
 * a slot) or to the primary (Sentinel), or through the plain client. Commands are never sent to replicas.
 */
export function sendVia(client: AnyClient, topology: RedisTopology, args: ReadonlyArray<string | Buffer>, routeKey: string | undefined,
  options?: Record<string, unknown>): Promise<unknown> {
  const send = (client.sendCommand as Send).bind(client);
  if (topology === 'cluster') return send(routeKey, false, args, options);
  if (topology === 'sentinel') return send(false, args, options);
  return options === undefined ? send(args) : send(args, options);
}

/**
 * The hash tag Redis Cluster would hash a key starting with `prefix` by, or undefined when the prefix holds none: the
 * text between the first `{` and the first `}` after it, when that text is not empty.
 */
export function hashTagOf(prefix: string): string | undefined {
  const open = prefix.indexOf('{');
  if (open === -1) return undefined;
  const close = prefix.indexOf('}', open + 1);
  return close > open + 1 ? prefix.slice(open + 1, close) : undefined;
}

/**
 * The prefix a store's keys really start with. On a cluster a prefix without a hash tag is wrapped in one
 * (`workflow-webhooks:` becomes `{workflow-webhooks:}`), so a script that touches several keys never meets CROSSSLOT;
 * a prefix that has one, and every prefix on one server or behind Sentinel, is used as given.
 */
export function slotPrefix(prefix: string, topology: RedisTopology, fallbackTag: string): string {
  if (topology !== 'cluster' || hashTagOf(prefix) !== undefined) return prefix;
  return prefix === '' ? `{${fallbackTag}}` : `{${prefix}}`;
}
