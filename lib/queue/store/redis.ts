/**
 * Queue mode's store on Redis (one server, Cluster, Sentinel): the connections a web queue or a worker opens (each a
 * duplicate of the host's client, or of one made from its options), BullMQ on node-redis, the Lua scripts of
 * admission and concurrency slots, the marks of refused calls, the reply channel (pub/sub, and the keys of stored replies), and replica
 * acknowledgement (`WAIT`) for a web queue with the `replicas` option.
 */
import { Queue, Worker } from 'bullmq';
import { errorFields } from '../../core/logger.js';
import { mayHaveApplied } from '../../redis/failure-reasons.js';
import { oneConnectionOptions, replicaShortfall, ReplicaAcks, sendInOrder } from '../../redis/replica-acks.js';
import { bullConnection } from '../bullmq-node-redis.js';
import { baseClient, closeConnection, openConnection, type QueueRedisClient } from '../connection.js';
import type { RedisConnectionForm } from '../connection-forms.js';
import type { WebhookJobData, WebhookJobResult } from '../job-data.js';
import { queueKeys } from '../keys.js';
import type { ResolvedShared } from '../options.js';
import { publishReply, replyReader, routed, shardedReplies, subscribeReplies, takeReplies } from '../redis-route.js';
import { ReplyTakes } from './reply-takes.js';
import { acquireSlot, admit, releaseSlot, unclaim } from '../scripts.js';
import { replyModeOf, type OpeningLink, type QueueStoreLink } from './contract.js';
import { nextMarkPause } from './mark-pauses.js';
import { OutageLog } from './outage-log.js';

/** What a web queue adds: replica acknowledgement. */
export interface RedisWebSettings {
  replicas: number;
  replicaTimeoutMs: number;
}

/** Opens the web side's (with `web` settings) or a worker's connections to Redis. */
export function openRedisLink(options: ResolvedShared, web: RedisWebSettings | undefined): OpeningLink {
  const clients: QueueRedisClient[] = [];
  let closed = false;
  let probe: (() => Promise<unknown>) | undefined;
  const outage = web !== undefined ? undefined : new OutageLog({
    logger: options.logger, who: 'queue worker', store: 'Redis', probe: () => (probe === undefined ? Promise.reject(new Error('not open')) : probe()),
  });
  const closeAll = (): void => {
    closed = true;
    outage?.close();
    for (const client of clients) closeConnection(client);
  };
  const link = (async (): Promise<QueueStoreLink> => {
    const { topology, logger } = options;
    const keys = queueKeys(options.prefix, options.name);
    const routeKey = keys.job('');
    const who = web === undefined ? 'createWebhookWorker' : 'createWebhookQueue';
    const base = await baseClient(options.connection as RedisConnectionForm, logger, who);
    // On the web side, commands fail at once while disconnected instead of waiting in node-redis' queue: a call is
    // refused in time. With no offline queue (one server), node-redis' timeout per command, which only bounds a
    // command's wait to be written, has nothing left to bound; a cluster or Sentinel client keeps its offline queue,
    // and so the timeout. A worker's are untimed, as BullMQ's own (ioredis) connections are: arming that timeout cost
    // a third of the worker's CPU per job.
    const command = web === undefined
      ? openConnection(base, topology, logger, 'worker commands', { untimed: true, outage })
      : openConnection(base, topology, logger, 'queue commands', { overrides: { disableOfflineQueue: true }, untimed: topology === 'single' });
    const other = web === undefined
      ? openConnection(base, topology, logger, 'worker replies', { untimed: true, outage })
      : openConnection(base, topology, logger, 'queue replies');
    clients.push(command.client, other.client);
    // Replica acknowledgement blocks its connection while WAIT waits: a connection of its own, so calls' other
    // commands never queue behind it.
    const acking = web === undefined || web.replicas === 0 ? undefined
      : openConnection(base, topology, logger, 'replica acknowledgement', { overrides: oneConnectionOptions(topology) });
    if (acking !== undefined) clients.push(acking.client);
    // Closed while the client was being made: these connections are not left open behind it.
    if (closed) closeAll();
    await Promise.all([command.ready, other.ready, acking?.ready]);
    const commands = routed(command.client, topology, routeKey);
    probe = () => commands.sendCommand(['EXISTS', routeKey]);
    const acks = acking === undefined || web === undefined ? undefined
      : new ReplicaAcks({ replicas: web.replicas, timeoutMs: web.replicaTimeoutMs }, keys.acks, (sent) => sendInOrder(acking.client, topology, sent, keys.acks));
    // A `replicas` setting the primary cannot meet refuses every call: said once, before the first is refused.
    const shortfall = acks === undefined ? undefined : await replicaShortfall(acks, web?.replicas ?? 0, 'calls');
    if (shortfall !== undefined) logger.warn({ replicas: web?.replicas }, `createWebhookQueue: ${shortfall}`);
    const sharded = await shardedReplies(commands, topology);
    if (closed) throw new Error('closed');
    const replies = replyModeOf(options.keyring);
    const connection = (): never => bullConnection(command.client, topology, routeKey) as never;
    return {
      kind: 'redis',
      newQueue: () => new Queue<WebhookJobData, WebhookJobResult>(options.name, { connection: connection(), prefix: options.prefix }),
      newWorker: (processor, settings) => new Worker<WebhookJobData, WebhookJobResult>(options.name, processor, {
        connection: connection(), prefix: options.prefix, ...settings,
      }),
      admit: (request) => admit(commands, [keys.job(request.jobId), keys.unfinished(request.workflowId), keys.running(request.workflowId), keys.claim(request.jobId)], {
        maxQueued: request.maxQueued, track: request.track, jobId: request.jobId, staleMs: request.staleMs, refusedPrefix: keys.refused(''),
        fingerprint: request.fingerprint, storeId: request.storeId, claimMs: request.claimMs,
      }),
      unclaim: (jobId, storeId) => unclaim(commands, keys.claim(jobId), storeId).then(() => undefined, () => undefined),
      acquireSlot: (workflowId, jobId, limit, leaseMs) => acquireSlot(commands, keys.running(workflowId), jobId, limit, leaseMs),
      releaseSlot: (workflowId, jobId, ended) => releaseSlot(commands, [keys.running(workflowId), keys.unfinished(workflowId)], jobId, ended).then(() => undefined),
      // On the command connection, so it reaches Redis right behind the job it refuses.
      markRefused: (storeId, ttlMs) => untilWritten(() => commands.sendCommand(['SET', keys.refused(storeId), '1', 'PX', String(ttlMs)]), ttlMs, () => closed),
      wasRefused: async (storeId) => await commands.sendCommand(['EXISTS', keys.refused(storeId)]) === 1,
      mayHaveStored: mayHaveApplied,
      replyChannel: (instanceId) => keys.replies(instanceId),
      async listen(channel, message, resumed) {
        const takes = new ReplyTakes(takeReplies(commands), (error) => {
          logger.warn({ err: errorFields(error) }, `${who}: a reply to a waiting call could not be read; the call is answered from its job`);
        });
        const read = replyReader(channel, replies, takes, message);
        await subscribeReplies(other.client, sharded, channel, read);
        // Back after an outage: replies sent meanwhile are lost. (A cluster's node connections say so with 'node-ready'.)
        for (const event of ['ready', 'node-ready']) other.client.on(event, resumed);
      },
      publish: (channel, message) => publishReply(other.client, topology, sharded, channel, message, replies).then(() => undefined),
      binaryHost: { kind: 'redis', client: commands, key: keys.binary },
      confirmReplicas: acks === undefined ? undefined : () => acks.confirm(),
      outage,
      close: () => { closeAll(); return Promise.resolve(); },
    };
  })();
  return {
    link,
    close: closeAll,
  };
}

/**
 * Writes a refusal mark until Redis takes it, for as long as it would have lasted: a lost mark would let a job that
 * Redis kept run although its caller was refused. Tried again with a growing pause (mark-pauses.ts), never once closed.
 */
function untilWritten(write: () => Promise<unknown>, ttlMs: number, closed: () => boolean): void {
  const until = Date.now() + ttlMs;
  const attempt = (pauseMs: number): void => {
    write().catch(() => {
      const pause = nextMarkPause(pauseMs);
      if (closed() || Date.now() + pause >= until) return;
      setTimeout(() => attempt(pause), pause).unref();
    });
  };
  attempt(0);
}
