/**
 * OpenTelemetry counts rate-limited calls by their error code: `webhook.calls` with `error.type` RATE_LIMITED and
 * status class 4xx, beside the calls let through; each refusal's span carries the code, and a refusal never counts
 * as a run.
 */
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SpanStatusCode } from '@opentelemetry/api';
import { createWebhookMiddleware, MemoryWebhookRegistry } from 'workflow-webhooks';
import { webhookTelemetry } from 'workflow-webhooks/opentelemetry';
import { histogramPoints, inMemoryOtel, sumPoints } from './harness.js';

describe('OpenTelemetry: rate-limited calls', () => {
  const otel = inMemoryOtel();
  let server: Server;
  let origin: string;

  before(async () => {
    const registry = new MemoryWebhookRegistry();
    await registry.activate({
      workflowId: 'limited', nodes: [{ name: 'Webhook', parameters: { path: 'limited', httpMethod: 'POST' } }], settings: { rateLimit: { limit: 4, windowMs: 60_000 } },
    });
    const telemetry = webhookTelemetry({ tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider });
    const middleware = createWebhookMiddleware(registry, () => ({ items: [] }), { telemetry });
    server = createServer((req, res) => middleware(req, res, () => { res.statusCode = 404; res.end(); }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => { if (server !== undefined) await new Promise((resolve) => server.close(resolve)); });

  it('counts 10 calls to an address limited to 4 as 4 let through and 6 refused RATE_LIMITED, and runs only the 4', async () => {
    const statuses = [];
    for (let call = 0; call < 10; call += 1) statuses.push((await fetch(`${origin}/webhook/limited`, { method: 'POST' })).status);
    expect(statuses.filter((status) => status === 429)).to.have.length(6);
    const metrics = await otel.metrics();
    const calls = sumPoints(metrics.get('webhook.calls')).filter(([attributes]) => attributes['webhook.workflow.id'] === 'limited');
    const byCode = calls.map(([attributes, value]) => [attributes['error.type'] ?? 'none', attributes['webhook.response.status_class'], value]);
    expect(byCode.sort()).to.deep.equal([['RATE_LIMITED', '4xx', 6], ['none', '2xx', 4]]);
    const runs = histogramPoints(metrics.get('webhook.run.duration')).filter(([attributes]) => attributes['webhook.workflow.id'] === 'limited');
    expect(runs.reduce((sum, [, count]) => sum + count, 0)).to.equal(4);
    const refused = otel.spans().filter((span) => span.attributes['error.type'] === 'RATE_LIMITED');
    expect(refused).to.have.length(6);
    for (const span of refused) expect([span.status.code, span.attributes['http.response.status_code']]).to.deep.equal([SpanStatusCode.ERROR, 429]);
  });
});
