import { expect } from 'chai';
import { EventEmitter } from 'node:events';
import { bullConnection } from '../../lib/queue/bullmq-node-redis.js';

/**
 * A Cluster or Sentinel client as BullMQ is given it: BullMQ's adapter re-emits every 'error' it hears, and stops
 * listening to its own once it has let go of the connection. An error a socket raises after BullMQ closed the
 * connection (a Sentinel's observer losing its server while the queue shuts down) must never reach an emitter nobody
 * listens to: that would end the host's process. node-redis's client is not ours, so an emitter stands for it.
 */
function nodeRedisClient(): EventEmitter & { isOpen: boolean; close(): Promise<void>; destroy(): Promise<void> } {
  return Object.assign(new EventEmitter(), { isOpen: true, close: () => Promise.resolve(), destroy: () => Promise.resolve() });
}

/** What BullMQ's adapter does with the connection's errors: hands them to its own emitter, which nobody may hear. */
function adapterOf(connection: EventEmitter): EventEmitter {
  const adapter = new EventEmitter();
  connection.on('error', (error: unknown) => adapter.emit('error', error));
  return adapter;
}

describe('the Cluster and Sentinel connection BullMQ is given', () => {
  for (const topology of ['sentinel', 'cluster'] as const) {
    for (const closing of ['quit', 'destroy', 'disconnect'] as const) {
      it(`keeps a ${topology} socket's error after ${closing}() from BullMQ, so that nobody-hears-it cannot end the process`, async () => {
        const client = nodeRedisClient();
        const connection = bullConnection(client, topology, '{q}:key') as EventEmitter & Record<typeof closing, () => Promise<unknown>>;
        adapterOf(connection);
        await connection[closing]();
        expect(() => client.emit('error', new Error('Socket closed unexpectedly'))).not.to.throw();
      });
    }

    it(`hands a ${topology} socket's error to BullMQ while the connection is in use`, () => {
      const client = nodeRedisClient();
      const heard: unknown[] = [];
      adapterOf(bullConnection(client, topology, '{q}:key') as EventEmitter).on('error', (error: unknown) => heard.push(error));
      const error = new Error('Socket closed unexpectedly');
      client.emit('error', error);
      expect(heard).to.deep.equal([error]);
    });
  }
});
