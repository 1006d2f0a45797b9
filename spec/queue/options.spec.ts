import { expect } from 'chai';
import { resolveQueueOptions, resolveWorkerOptions } from '../../lib/queue/options.js';
import { webhookTelemetry } from '../../lib/telemetry/index.js';

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
});
