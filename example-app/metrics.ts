/**
 * The webhooks' metrics for Prometheus: OpenTelemetry's Prometheus exporter as the reader of a meter provider that
 * `webhookTelemetry()` records into, served by the app itself at GET /metrics (no second port). A real backend
 * usually registers one SDK for everything it measures; the three lines are the same there.
 */
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import type express from 'express';
import { webhookTelemetry, type WebhookTelemetry } from 'workflow-webhooks/opentelemetry';

/** Mounts GET /metrics and returns the telemetry to give the webhook middleware. */
export function addMetrics(app: express.Express): WebhookTelemetry {
  const exporter = new PrometheusExporter({ preventServerStart: true });
  const telemetry = webhookTelemetry({ meterProvider: new MeterProvider({ readers: [exporter] }) });
  app.get('/metrics', (req, res) => exporter.getMetricsRequestHandler(req, res));
  return telemetry;
}
