/**
 * OpenTelemetry's own SDK, in memory, for the telemetry specs: a tracer provider whose spans land in an in-memory
 * exporter, a meter provider read on demand, and the async-hooks context manager and W3C propagator registered for
 * the describe block only (and taken away after it, so no other spec runs with them).
 */
import { context, propagation, type Attributes } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { DataPointType, MeterProvider, MetricReader, type HistogramMetricData, type MetricData, type SumMetricData } from '@opentelemetry/sdk-metrics';

class OnDemandReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

export interface Otel {
  tracerProvider: TracerProvider;
  meterProvider: MeterProvider;
  spans(): ReadableSpan[];
  /** The metrics recorded so far, by name. */
  metrics(): Promise<Map<string, MetricData>>;
  reset(): void;
}

/** Call inside a describe. */
export function inMemoryOtel(): Otel {
  const exporter = new InMemorySpanExporter();
  const reader = new OnDemandReader();
  const otel: Otel = {
    tracerProvider: new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }),
    meterProvider: new MeterProvider({ readers: [reader] }),
    spans: () => exporter.getFinishedSpans(),
    async metrics() {
      const { resourceMetrics } = await reader.collect();
      return new Map(resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics).map((metric) => [metric.descriptor.name, metric]));
    },
    reset: () => exporter.reset(),
  };
  before(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  });
  after(async () => {
    context.disable();
    propagation.disable();
    await otel.tracerProvider.shutdown();
    await otel.meterProvider.shutdown();
  });
  return otel;
}

/** The data points of a counter or up-down counter, as [attributes, value]. */
export function sumPoints(metric: MetricData | undefined): [Attributes, number][] {
  if (metric?.dataPointType !== DataPointType.SUM) return [];
  return (metric as SumMetricData).dataPoints.map((point) => [point.attributes, point.value]);
}

/** The data points of a histogram, as [attributes, count, sum]. */
export function histogramPoints(metric: MetricData | undefined): [Attributes, number, number][] {
  if (metric?.dataPointType !== DataPointType.HISTOGRAM) return [];
  return (metric as HistogramMetricData).dataPoints.map((point) => [point.attributes, point.value.count, point.value.sum ?? 0]);
}
