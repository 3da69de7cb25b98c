/**
 * The real OpenTelemetry SDK for the tests: a tracer provider exporting to memory, a meter provider
 * with a reader collected on demand, and (globally) the W3C propagator and the AsyncLocalStorage
 * context manager a service registers.
 */
import { context, propagation } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { MeterProvider, MetricReader, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  type Sampler,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';

/** Registers the propagator and context manager a service's SDK setup registers. */
export function registerGlobals(): void {
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
}

class CollectingReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

/** One SDK: its providers, the spans it finished and the metrics it holds. */
export interface Sdk {
  readonly tracerProvider: TracerProvider;
  readonly meterProvider: MeterProvider;
  readonly exporter: InMemorySpanExporter;
  metrics(): Promise<ResourceMetrics>;
}

/** A tracer provider (always on unless `sampler` says otherwise) and a meter provider. */
export function createSdk(sampler?: Sampler): Sdk {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new TracerProvider({
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
    ...(sampler === undefined ? {} : { sampler }),
  });
  const reader = new CollectingReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  return {
    tracerProvider,
    meterProvider,
    exporter,
    metrics: async () => (await reader.collect()).resourceMetrics,
  };
}

/** The spans finished so far, once `count` have (the server span ends when the response is done). */
export async function finishedSpans(exporter: InMemorySpanExporter, count = 1): Promise<ReadableSpan[]> {
  for (let i = 0; i < 200; i++) {
    const spans = exporter.getFinishedSpans();
    if (spans.length >= count) return spans;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return exporter.getFinishedSpans();
}
