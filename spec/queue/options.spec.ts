import { expect } from 'chai';
import { resolveQueueOptions, resolveWorkerOptions } from '../../lib/queue/options.js';
import { webhookTelemetry } from '../../lib/telemetry/index.js';
import { redisBinaryStore } from '../../lib/queue/binary/redis-store.js';

describe('queue mode options', () => {
  it('takes inlineBinaryBytes as a size string too, and names the option when it is malformed', () => {
    expect(resolveQueueOptions({ connection: 'redis://127.0.0.1:1' }).inlineBinaryBytes).to.equal(1024 * 1024);
    expect(resolveQueueOptions({ connection: 'redis://127.0.0.1:1', inlineBinaryBytes: '256kb' }).inlineBinaryBytes).to.equal(256 * 1024);
    expect(resolveQueueOptions({ connection: 'redis://127.0.0.1:1', inlineBinaryBytes: 0 }).inlineBinaryBytes).to.equal(0);
    expect(() => resolveQueueOptions({ connection: 'redis://127.0.0.1:1', inlineBinaryBytes: 'lots' })).to.throw(TypeError, /inlineBinaryBytes/);
  });

  it('takes replicas (a whole number, default 0) and replicaTimeoutMs (whole ms, at least 1, default 1000), refusing anything else by rule', () => {
    const url = 'redis://127.0.0.1:1';
    expect(resolveQueueOptions({ connection: url })).to.include({ replicas: 0, replicaTimeoutMs: 1000 });
    expect(resolveQueueOptions({ connection: url, replicas: 2, replicaTimeoutMs: 250 })).to.include({ replicas: 2, replicaTimeoutMs: 250 });
    for (const replicas of [-1, 1.5, '1', Infinity, Number.NaN]) {
      expect(() => resolveQueueOptions({ connection: url, replicas: replicas as number }), String(replicas)).to.throw(TypeError, /option replicas must be a (finite )?whole number/);
    }
    for (const replicaTimeoutMs of [0, -5, 2.5, Infinity]) {
      expect(() => resolveQueueOptions({ connection: url, replicas: 1, replicaTimeoutMs }), String(replicaTimeoutMs)).to.throw(TypeError, /option replicaTimeoutMs must be a (finite )?whole number/);
    }
  });

  it('takes the telemetry of workflow-webhooks/opentelemetry, on the queue and the worker, and refuses anything else by name', () => {
    const telemetry = webhookTelemetry();
    expect(resolveQueueOptions({ connection: 'redis://127.0.0.1:1', telemetry }).telemetry).to.equal(telemetry);
    expect(resolveWorkerOptions({ connection: 'redis://127.0.0.1:1', executor: () => ({ items: [] }), telemetry }).telemetry).to.equal(telemetry);
    expect(() => resolveQueueOptions({ connection: 'redis://127.0.0.1:1', telemetry: { onEvent() {} } as never }))
      .to.throw(TypeError, /option telemetry of createWebhookQueue must have enqueue\(\) and process\(\)/);
  });

  it('tells a PostgreSQL connection by its URL, pool config or pool, with the schema and migrate options (defaults workflow_webhooks and true)', () => {
    for (const connection of ['postgres://app@127.0.0.1/app', 'postgresql://127.0.0.1/app', { connectionString: 'postgres://127.0.0.1/app' }, { host: '127.0.0.1', database: 'app' }]) {
      expect(resolveQueueOptions({ connection }), JSON.stringify(connection)).to.include({ store: 'postgres', schema: 'workflow_webhooks', migrate: true });
    }
    const pool = { connect: async () => undefined, query: async () => undefined, end: async () => undefined, on: () => undefined, totalCount: 0 };
    expect(resolveWorkerOptions({ connection: pool, executor: () => ({ items: [] }), schema: 'hooks', migrate: false })).to.include({ store: 'postgres', schema: 'hooks', migrate: false });
    expect(resolveQueueOptions({ connection: 'redis://127.0.0.1:1' })).to.include({ store: 'redis' });
    expect(() => resolveQueueOptions({ connection: 'postgres://127.0.0.1/app', schema: 'Bad-Name' })).to.throw(TypeError, /option schema must be lower-case letters/);
    expect(resolveQueueOptions({ connection: 'postgres://pooler/app', directUrl: 'postgres://db/app' }).directUrl).to.equal('postgres://db/app');
    expect(() => resolveQueueOptions({ connection: 'postgres://pooler/app', directUrl: 'db:5432' })).to.throw(TypeError, /option directUrl of createWebhookQueue must be a postgres:\/\/ or postgresql:\/\/ URL/);
  });

  it('refuses what names Redis only on PostgreSQL, and PostgreSQL\'s options on Redis, saying what to do instead', () => {
    const postgres = 'postgres://127.0.0.1/app';
    expect(() => resolveQueueOptions({ connection: postgres, prefix: 'jobs' })).to.throw(TypeError, /option prefix of createWebhookQueue names Redis keys; on PostgreSQL, queues are kept apart by name/);
    expect(() => resolveQueueOptions({ connection: postgres, binaryStore: redisBinaryStore() })).to.throw(TypeError, /use postgresBinaryStore\(\) or directoryBinaryStore/);
    expect(() => resolveQueueOptions({ connection: postgres, replicas: 1 })).to.throw(TypeError, /set synchronous_standby_names .* on the server/);
    expect(resolveQueueOptions({ connection: postgres, replicas: 0 }).replicas).to.equal(0);
    expect(() => resolveQueueOptions({ connection: 'redis://127.0.0.1:1', schema: 'hooks' })).to.throw(TypeError, /options schema, migrate and directUrl of createWebhookQueue are for a PostgreSQL connection/);
    expect(() => resolveQueueOptions({ connection: 'redis://127.0.0.1:1', directUrl: postgres })).to.throw(TypeError, /directUrl of createWebhookQueue are for a PostgreSQL connection/);
    expect(() => resolveWorkerOptions({ connection: 'redis://127.0.0.1:1', migrate: false, executor: () => ({ items: [] }) })).to.throw(TypeError, /createWebhookWorker are for a PostgreSQL connection/);
  });
});
