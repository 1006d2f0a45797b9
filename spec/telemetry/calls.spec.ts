/**
 * OpenTelemetry for webhook calls, with the real SDK in memory: one span per call under the host's HTTP span, the
 * workflow's own spans under it, error spans with the library's code, and metrics that add up to the calls made.
 */
import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { createWebhookMiddleware, MemoryWebhookRegistry, type WebhookExecutor } from 'workflow-webhooks';
import { webhookTelemetry, type WebhookTelemetry } from 'workflow-webhooks/opentelemetry';
import { histogramPoints, inMemoryOtel, sumPoints } from './harness.js';

const BASE = '/api/automation';

/** Reads the metrics until `ready` says what a call that ended on its own time recorded is there (at most 2 s). */
async function eventuallyMetrics<T>(read: () => Promise<T>, ready: (found: T) => boolean): Promise<T> {
  for (const started = Date.now(); ; await new Promise((resolve) => setTimeout(resolve, 20))) {
    const found = await read();
    if (ready(found) || Date.now() - started > 2000) return found;
  }
}
const SILENT = { error: (): void => undefined, warn: (): void => undefined };

/** The webhook.runs.active values of one workflow: [0] once its runs have ended, [] if the gauge is missing. */
function activeRuns(metrics: Awaited<ReturnType<ReturnType<typeof inMemoryOtel>['metrics']>>, workflowId: string): number[] {
  return sumPoints(metrics.get('webhook.runs.active')).filter(([attributes]) => attributes['webhook.workflow.id'] === workflowId).map(([, value]) => value);
}

describe('OpenTelemetry: a span and metrics per webhook call', () => {
  const otel = inMemoryOtel();
  let telemetry: WebhookTelemetry;
  let server: Server;

  before(async () => {
    const registry = new MemoryWebhookRegistry();
    await registry.activate({ workflowId: 'orders', workflowName: 'Order status', nodes: [{ name: 'Order hook', parameters: { path: 'orders/:orderId', httpMethod: 'POST', responseMode: 'lastNode' } }] });
    await registry.activate({ workflowId: 'broken', nodes: [{ name: 'Webhook', parameters: { path: 'broken', httpMethod: 'POST', responseMode: 'lastNode' } }] });
    await registry.activate({ workflowId: 'quick', nodes: [{ name: 'Webhook', parameters: { path: 'quick', httpMethod: 'POST' } }] });
    await registry.activate({ workflowId: 'slow', nodes: [{ name: 'Webhook', parameters: { path: 'slow', httpMethod: 'POST', responseMode: 'lastNode' } }] });
    const workflowTracer = otel.tracerProvider.getTracer('host-workflows');
    const executor: WebhookExecutor = async (run) => {
      if (run.workflowId === 'broken') throw new Error('database down');
      if (run.workflowId === 'slow') {
        await new Promise((resolve) => { run.signal.addEventListener('abort', resolve, { once: true }); });
        throw run.signal.reason;
      }
      // The host's own tracing inside its workflow: it must land under the call's span.
      return workflowTracer.startActiveSpan('load order', async (span) => {
        span.end();
        return { items: [{ json: { orderId: (run.items[0]?.json as { params: { orderId?: string } }).params.orderId ?? null } }] };
      });
    };
    telemetry = webhookTelemetry({ tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider });
    const hostTracer = otel.tracerProvider.getTracer('host-http');
    const app = express();
    // What the host's HTTP instrumentation does: a server span, active while the request is handled.
    app.use((req, res, next) => {
      const span = hostTracer.startSpan(`${req.method} ${req.path}`, { kind: SpanKind.SERVER });
      res.on('close', () => span.end());
      context.with(trace.setSpan(context.active(), span), next);
    });
    app.use(BASE, createWebhookMiddleware(registry, executor, { telemetry, logger: SILENT }));
    server = app.listen(0, '127.0.0.1');
  });
  after(() => { server?.close(); server?.closeAllConnections(); });
  beforeEach(() => otel.reset());

  it('makes one span per call, named by its address template, under the host\'s HTTP span, with the workflow\'s own spans under it', async () => {
    await request(server).post(`${BASE}/webhook/orders/42`).send({ note: 'rush' }).expect(200, { orderId: '42' });
    const spans = otel.spans();
    const call = spans.find((span) => span.name === 'webhook POST /webhook/orders/:orderId');
    const host = spans.find((span) => span.kind === SpanKind.SERVER);
    const own = spans.find((span) => span.name === 'load order');
    expect(call, spans.map((span) => span.name).join(', ')).to.not.equal(undefined);
    expect(call?.parentSpanContext?.spanId).to.equal(host?.spanContext().spanId);
    expect(call?.spanContext().traceId).to.equal(host?.spanContext().traceId);
    expect(own?.parentSpanContext?.spanId).to.equal(call?.spanContext().spanId);
    expect(call?.attributes).to.deep.include({
      'http.request.method': 'POST', 'http.route': '/webhook/orders/:orderId', 'http.response.status_code': 200,
      'webhook.workflow.id': 'orders', 'webhook.workflow.name': 'Order status', 'webhook.node.name': 'Order hook',
      'webhook.mode': 'production', 'webhook.response_mode': 'lastNode', 'webhook.path': 'orders/42',
    });
    expect(call?.status.code).to.equal(SpanStatusCode.UNSET);
    expect(telemetry.openCalls).to.equal(0);
  });

  it('marks refused calls and failed runs as errors with the library\'s code, the run\'s failure as the span\'s exception', async () => {
    await request(server).post(`${BASE}/webhook/nowhere`).send({}).expect(404);
    await request(server).get(`${BASE}/webhook/broken`).expect(405);
    await request(server).post(`${BASE}/webhook/broken`).send({}).expect(500);
    const byName = (name: string) => otel.spans().find((span) => span.name === name);
    const unknown = byName('webhook POST');
    expect(unknown?.attributes).to.deep.include({ 'error.type': 'WEBHOOK_NOT_FOUND', 'http.response.status_code': 404 });
    expect(unknown?.status).to.deep.equal({ code: SpanStatusCode.ERROR, message: 'WEBHOOK_NOT_FOUND' });
    const wrongMethod = byName('webhook GET');
    expect(wrongMethod?.attributes['error.type']).to.equal('WEBHOOK_METHOD_NOT_ALLOWED');
    const failed = byName('webhook POST /webhook/broken');
    expect(failed?.status).to.deep.equal({ code: SpanStatusCode.ERROR, message: 'WORKFLOW_FAILED' });
    expect(failed?.attributes).to.deep.include({ 'error.type': 'WORKFLOW_FAILED', 'http.response.status_code': 500 });
    const exception = failed?.events.find((event) => event.name === 'exception');
    expect(exception?.attributes?.['exception.message']).to.equal('database down');
    // A method HTTP does not define is one series, not one per spelling a caller sends.
    await new Promise<void>((resolve, reject) => {
      const { port } = server.address() as AddressInfo;
      httpRequest({ host: '127.0.0.1', port, method: 'PROPFIND', path: `${BASE}/webhook/broken` }, (res) => { res.resume().on('end', resolve); }).on('error', reject).end();
    });
    const other = byName('webhook _OTHER');
    expect(other?.attributes).to.deep.include({ 'http.request.method': '_OTHER', 'http.request.method_original': 'PROPFIND' });
  });

  it('counts 100 calls as 100, split by status class and code, with durations, body sizes and runs in flight that add up', async () => {
    const before = await otel.metrics();
    const countOf = (points: ReturnType<typeof sumPoints>) => points.reduce((sum, [, value]) => sum + value, 0);
    const callsBefore = countOf(sumPoints(before.get('webhook.calls')));
    const body = JSON.stringify({ item: 'tea' });
    const calls = Array.from({ length: 100 }, (_, index) => (index % 4 === 3
      ? request(server).post(`${BASE}/webhook/nowhere`).send({}).expect(404)
      : request(server).post(`${BASE}/webhook/quick`).set('content-type', 'application/json').send(body).expect(200)));
    await Promise.all(calls);
    const after = await otel.metrics();
    const points = sumPoints(after.get('webhook.calls'));
    expect(countOf(points) - callsBefore).to.equal(100);
    const quick = points.find(([attributes]) => attributes['webhook.workflow.id'] === 'quick');
    expect(quick?.[0]).to.deep.include({ 'http.request.method': 'POST', 'webhook.response.status_class': '2xx', 'webhook.mode': 'production' });
    expect(quick?.[1]).to.equal(75);
    const missing = points.find(([attributes]) => attributes['error.type'] === 'WEBHOOK_NOT_FOUND' && attributes['http.request.method'] === 'POST');
    expect(missing?.[0]['webhook.response.status_class']).to.equal('4xx');
    expect(missing?.[1]).to.be.at.least(25);
    const durations = histogramPoints(after.get('webhook.call.duration')).filter(([attributes]) => attributes['webhook.workflow.id'] === 'quick');
    expect(durations.reduce((sum, [, count]) => sum + count, 0)).to.equal(75);
    expect(after.get('webhook.call.duration')?.descriptor.unit).to.equal('s');
    const sizes = histogramPoints(after.get('webhook.request.body.size')).find(([attributes]) => attributes['webhook.workflow.id'] === 'quick');
    expect(sizes?.[1]).to.equal(75);
    expect(sizes?.[2]).to.equal(75 * Buffer.byteLength(body));
    const runs = histogramPoints(after.get('webhook.run.duration')).filter(([attributes]) => attributes['webhook.workflow.id'] === 'quick');
    expect(runs.reduce((sum, [, count]) => sum + count, 0)).to.equal(75);
    // Every run that started has ended: nothing is left in flight (and the gauge is there: an empty list is no pass).
    expect(activeRuns(after, 'quick')).to.deep.equal([0]);
    expect(sumPoints(after.get('webhook.runs.active')).filter(([, value]) => value !== 0)).to.deep.equal([]);
    expect(telemetry.openCalls).to.equal(0);
  });

  it('counts a call whose caller hung up as answered with no status, and its run as no longer under way', async () => {
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => {
      const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: `${BASE}/webhook/slow`, headers: { 'content-type': 'application/json' } });
      req.on('error', () => resolve());
      req.end('{}', () => setTimeout(() => { req.destroy(); resolve(); }, 100));
    });
    const metrics = await eventuallyMetrics(() => otel.metrics(), (found) => sumPoints(found.get('webhook.calls'))
      .some(([attributes]) => attributes['webhook.workflow.id'] === 'slow'));
    const slow = sumPoints(metrics.get('webhook.calls')).find(([attributes]) => attributes['webhook.workflow.id'] === 'slow');
    expect(slow?.[0]['webhook.response.status_class']).to.equal('none');
    expect(slow?.[1]).to.equal(1);
    expect(activeRuns(metrics, 'slow')).to.deep.equal([0]);
    expect(telemetry.openCalls).to.equal(0);
  });

  it('does nothing for a call while no OpenTelemetry SDK is registered, and traces once one is', async () => {
    const registry = new MemoryWebhookRegistry();
    await registry.activate({ workflowId: 'plain', nodes: [{ name: 'Webhook', parameters: { path: 'plain', httpMethod: 'POST', responseMode: 'lastNode' } }] });
    const noSdk = webhookTelemetry();
    const app = express().use(BASE, createWebhookMiddleware(registry, async (run) => ({ items: run.items.map((item) => ({ json: { body: (item.json as { body: unknown }).body } })) }), { telemetry: noSdk, logger: SILENT }));
    expect(noSdk.enabled?.()).to.equal(false);
    await request(app).post(`${BASE}/webhook/plain`).send({ a: 1 }).expect(200, { body: { a: 1 } });
    expect(noSdk.openCalls).to.equal(0);
    // An SDK registered after the middleware was built is used from the next call on.
    trace.setGlobalTracerProvider(otel.tracerProvider);
    try {
      expect(noSdk.enabled?.()).to.equal(true);
      await request(app).post(`${BASE}/webhook/plain`).send({ a: 2 }).expect(200);
      expect(otel.spans().map((span) => span.name)).to.include('webhook POST /webhook/plain');
    } finally {
      trace.disable();
    }
    expect(() => createWebhookMiddleware(registry, async () => ({ items: [] }), { telemetry: {} as WebhookTelemetry })).to.throw(TypeError, /telemetry must be an object with onEvent\(\) and within\(\)/);
  });
});
