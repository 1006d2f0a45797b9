/**
 * OpenTelemetry in queue mode, on a real redis-server: one trace follows a call from the web instance (its span and
 * the job's send) to the worker (a process span per attempt, the workflow's own spans under it).
 */
import { expect } from 'chai';
import request from 'supertest';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { MemoryWebhookRegistry } from 'workflow-webhooks';
import { webhookTelemetry } from 'workflow-webhooks/opentelemetry';
import { BASE, queueSetup } from '../support/queue/setup.js';
import { RedisServer, REDIS } from '../support/redis-server.js';
import { findService, markNotRun } from '../support/services.js';
import { histogramPoints, inMemoryOtel } from './harness.js';

if (findService(REDIS) === undefined) {
  markNotRun('OpenTelemetry in queue mode', REDIS);
} else {
  describe('OpenTelemetry in queue mode', function () {
    this.timeout(20_000);
    let server: RedisServer;
    before(async () => { server = await RedisServer.start() as RedisServer; });
    after(async () => { await server?.stop(); });
    const setup = queueSetup(() => server);
    const otel = inMemoryOtel();

    it('follows a call from the web instance to the worker in one trace, each attempt a span of its own', async () => {
      const telemetry = webhookTelemetry({ tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider });
      const workflowTracer = otel.tracerProvider.getTracer('host-workflows');
      const registry = new MemoryWebhookRegistry();
      await registry.activate({ workflowId: 'traced', nodes: [{ name: 'Webhook', parameters: { path: 'traced', httpMethod: 'POST', responseMode: 'lastNode' } }] });
      const queue = setup.queue({ telemetry, attempts: 2, backoffMs: 10 });
      setup.worker(async (run) => {
        if (run.attempt === 1) throw new Error('first attempt fails');
        return workflowTracer.startActiveSpan('send invoice', async (span) => {
          span.end();
          return { items: [{ json: { attempt: run.attempt } }] };
        });
      }, { telemetry });
      await request(setup.app(registry, queue, { telemetry })).post(`${BASE}/webhook/traced`).send({}).expect(200, { attempt: 2 });

      const spans = otel.spans();
      const one = (name: string) => spans.filter((span) => span.name === name);
      const [call] = one('webhook POST /webhook/traced');
      const [send] = one(`send ${setup.name}`);
      const attempts = one(`process ${setup.name}`).sort((a, b) => Number(a.attributes['webhook.job.attempt']) - Number(b.attributes['webhook.job.attempt']));
      const [own] = one('send invoice');
      expect(call, spans.map((span) => span.name).join(', ')).to.not.equal(undefined);
      expect(call?.events.map((event) => event.name)).to.include('webhook.enqueued');
      expect(send?.kind).to.equal(SpanKind.PRODUCER);
      expect(send?.parentSpanContext?.spanId).to.equal(call?.spanContext().spanId);
      expect(send?.attributes['messaging.message.id']).to.be.a('string');
      expect(attempts).to.have.length(2);
      for (const attempt of attempts) {
        expect(attempt.kind).to.equal(SpanKind.CONSUMER);
        expect(attempt.spanContext().traceId).to.equal(call?.spanContext().traceId);
        expect(attempt.parentSpanContext?.spanId).to.equal(send?.spanContext().spanId);
        expect(attempt.links.map((link) => link.context.spanId)).to.deep.equal([send?.spanContext().spanId]);
        expect(attempt.attributes).to.deep.include({ 'webhook.workflow.id': 'traced', 'messaging.message.id': send?.attributes['messaging.message.id'] });
      }
      expect(attempts[0]?.status).to.deep.equal({ code: SpanStatusCode.ERROR, message: 'first attempt fails' });
      expect(attempts[1]?.status.code).to.equal(SpanStatusCode.UNSET);
      expect(own?.parentSpanContext?.spanId).to.equal(attempts[1]?.spanContext().spanId);
      const runs = histogramPoints((await otel.metrics()).get('webhook.run.duration')).filter(([attributes]) => attributes['webhook.workflow.id'] === 'traced');
      // The two attempts on the worker; the web instance's wait for the outcome is not a run.
      expect(runs.reduce((sum, [, count]) => sum + count, 0)).to.equal(2);
      expect(runs.map(([attributes]) => attributes['webhook.run.outcome']).sort()).to.deep.equal(['executed', 'failed']);
    });
  });
}
