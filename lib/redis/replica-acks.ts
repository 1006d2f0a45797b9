/**
 * Replica acknowledgement: confirms that writes already answered by the Redis primary have reached `replicas` of
 * its replicas, with Redis's `WAIT numreplicas timeout`. Shared by queue mode (a stored job) and the Redis registry
 * (a route, a wait).
 *
 * Why a write of ours and then WAIT, on a connection of its own:
 * - WAIT waits for the replication offset of the *connection's own last write*. The writes to confirm were made on
 *   other connections (BullMQ's add, the registry's scripts), so each round first writes a marker key on this
 *   connection and then sends WAIT on the same one. Replication is one ordered stream per primary: a replica that
 *   acknowledged the marker has every write the primary answered before the marker was sent, the job among them.
 *   (On a cluster the marker lives in the queue's or registry's slot, so it goes to the primary that holds their keys.)
 * - WAIT blocks its connection; on a shared one it would hold every other command behind it for up to the timeout.
 * - Rounds are grouped: while one round is under way, every write that asks for confirmation joins the next one, and
 *   one marker + WAIT confirms them all. A connection carries one round at a time, so the cost per call stays small.
 *
 * WAIT, not WAITAOF (Redis 7.2): WAIT confirms the write is in the replicas' memory, which is what a failover needs
 * (the promoted replica has it). WAITAOF would also confirm the replicas' fsync, at the price of an fsync per round.
 */
import { sendVia, type RedisTopology } from './topology.js';

/** What replica acknowledgement is set to: how many replicas, and how long to wait for them. */
export interface ReplicaSettings {
  replicas: number;
  timeoutMs: number;
}

/**
 * The outcome of one confirmation: how many replicas acknowledged, and whether that was enough. Not confirmed, also
 * how many replicas the primary had connected then (undefined when it did not say): fewer than asked means no wait
 * would have helped, and the caller is told so rather than that the replicas were late.
 */
export interface Confirmation {
  confirmed: boolean;
  acknowledged: number;
  connected?: number;
}

/** The replicas connected to the primary, from its `INFO replication` (`connected_slaves`); undefined when not said. */
export function connectedReplicasOf(info: unknown): number | undefined {
  const found = typeof info === 'string' ? /^connected_slaves:(\d+)/m.exec(info) : null;
  return found === null ? undefined : Number(found[1]);
}

/**
 * Why a write was not confirmed, worded to follow "…but ": too few replicas connected (no wait would have helped: the
 * primary needs more replicas), or the replicas did not catch up within a round's wait.
 */
export function unconfirmedReason(confirmation: Confirmation, settings: ReplicaSettings): string {
  const { connected, acknowledged } = confirmation;
  if (connected !== undefined && connected < settings.replicas) {
    return `the Redis primary has ${connected} replica(s) connected, fewer than the ${settings.replicas} asked to confirm each write (option replicas)`;
  }
  return `${acknowledged} of the ${settings.replicas} replica(s) asked for (option replicas) confirmed it within ${settings.timeoutMs} ms`;
}

/**
 * The warning said at start when the primary has fewer replicas connected than `replicas` asks for (undefined when
 * it has enough, or does not say): every `writes` would be refused until more connect. `writes` names them in the
 * plural ("calls", "registry changes").
 */
export async function replicaShortfall(acks: ReplicaAcks, replicas: number, writes: string): Promise<string | undefined> {
  const connected = await acks.connectedReplicas();
  if (connected === undefined || connected >= replicas) return undefined;
  return `option replicas asks ${replicas} replica(s) to confirm each write, but the Redis primary has ${connected} connected: ${writes} are refused 503 ` +
    `until enough connect. To go on through a failover (the promoted replica leaves one fewer), run at least replicas + 1 replicas.`;
}

/** Sends a list of commands in order on one connection and answers their replies. */
export type InOrder = (commands: ReadonlyArray<ReadonlyArray<string>>) => Promise<unknown[]>;

/**
 * The options a confirmer's own duplicate of the host's client is made with, so that it sends every command to the
 * primary on one connection: a plain client has one (and refuses commands while offline instead of queueing them);
 * a cluster has one per node (the route key picks the node); a Sentinel client spreads commands over a pool of
 * primary connections unless it reserves one (`reserveClient`; leasing one per round with `acquire()` costs tens
 * of milliseconds in node-redis 5 and 6).
 */
export function oneConnectionOptions(topology: RedisTopology): Record<string, unknown> | undefined {
  if (topology === 'sentinel') return { reserveClient: true };
  return topology === 'single' ? { disableOfflineQueue: true } : undefined;
}

type NodeClientForKey = (key: string, isReadonly: boolean) => Promise<object>;

/**
 * Sends `commands` one after another on one connection of `client` (made with `oneConnectionOptions`): node-redis
 * writes them in the order they are given, and Redis answers them in that order. On a cluster they go to the
 * connection of the master of `routeKey`'s slot itself: through the cluster client, node-redis follows WAIT's
 * command tips (`request_policy:all_shards`, `agg_min`) and sends it to every master, so one shard's late replica
 * would refuse every other shard's writes. (node-redis before 6.3 has no `getNodeClientForKey`: there WAIT goes to
 * every master, stricter than needed, never weaker.)
 */
export async function sendInOrder(client: object, topology: RedisTopology, commands: ReadonlyArray<ReadonlyArray<string>>, routeKey: string): Promise<unknown[]> {
  const forKey = (client as { getNodeClientForKey?: NodeClientForKey }).getNodeClientForKey;
  const [target, kind] = topology === 'cluster' && typeof forKey === 'function' ? [await forKey.call(client, routeKey, false), 'single' as const] : [client, topology];
  return Promise.all(commands.map((args) => sendVia(target, kind, args, routeKey)));
}

interface Round {
  promise: Promise<Confirmation>;
  resolve(confirmation: Confirmation): void;
  reject(error: unknown): void;
}

function newRound(): Round {
  let resolve!: Round['resolve'];
  let reject!: Round['reject'];
  const promise = new Promise<Confirmation>((yes, no) => { resolve = yes; reject = no; });
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

/** Marker writes expire: one small key per queue or registry, gone a day after the last confirmation. */
const MARKER_TTL_MS = String(24 * 3600_000);

export class ReplicaAcks {
  readonly #settings: ReplicaSettings;
  readonly #marker: string;
  readonly #inOrder: InOrder;
  #running = false;
  #next: Round | undefined;

  /** `marker`: the key each round writes (in the slot of the keys it confirms); `inOrder`: this confirmer's own connection. */
  constructor(settings: ReplicaSettings, marker: string, inOrder: InOrder) {
    this.#settings = settings;
    this.#marker = marker;
    this.#inOrder = inOrder;
  }

  /**
   * Confirms every write the primary answered before this call. Rejects when Redis itself failed; resolves
   * `confirmed: false` when fewer replicas than asked acknowledged within the timeout.
   */
  confirm(): Promise<Confirmation> {
    this.#next ??= newRound();
    const round = this.#next.promise;
    if (!this.#running) this.#start();
    return round;
  }

  /**
   * How many replicas the primary that holds the confirmed keys has connected now (undefined when it does not say,
   * or does not answer): asked at start, so that a `replicas` setting no write can meet is said before calls fail.
   */
  async connectedReplicas(): Promise<number | undefined> {
    try {
      return connectedReplicasOf((await this.#inOrder([['INFO', 'replication']]))[0]);
    } catch {
      return undefined;
    }
  }

  #start(): void {
    const round = this.#next as Round;
    this.#next = undefined;
    this.#running = true;
    const { replicas, timeoutMs } = this.#settings;
    this.#inOrder([['SET', this.#marker, String(Date.now()), 'PX', MARKER_TTL_MS], ['WAIT', String(replicas), String(timeoutMs)]]).then(async (replies) => {
      const acknowledged = Number(replies[1]);
      const confirmation: Confirmation = { confirmed: acknowledged >= replicas, acknowledged };
      // Not enough: whether the replicas were late or are not there at all (asked only then, on the same connection).
      if (!confirmation.confirmed) confirmation.connected = await this.connectedReplicas();
      round.resolve(confirmation);
      // The replicas have not caught up for a whole timeout: the writes that joined meanwhile are refused with this
      // round, so no caller waits longer than one timeout once its write is answered.
      if (!confirmation.confirmed) this.#takeNext()?.resolve(confirmation);
    }, (error: unknown) => {
      round.reject(error);
      this.#takeNext()?.reject(error);
    }).finally(() => {
      this.#running = false;
      if (this.#next !== undefined) this.#start();
    });
  }

  #takeNext(): Round | undefined {
    const next = this.#next;
    this.#next = undefined;
    return next;
  }
}
