/**
 * The OpenTelemetry SDK, loaded by main.ts (with `import()`) only when `otelSettings` found an OTLP
 * endpoint. It registers the global tracer and meter providers, the AsyncLocalStorage context
 * manager and the W3C propagators that `@plumbline/telemetry`'s middleware uses through
 * `@opentelemetry/api`. Exporters read the standard `OTEL_EXPORTER_OTLP_*` variables themselves
 * (endpoint, headers, timeout, compression, certificates); the resource reads `OTEL_SERVICE_NAME`
 * and `OTEL_RESOURCE_ATTRIBUTES`, over the service's default name `plumbline-reference-service`.
 */
import { register } from 'node:module';
import { context, metrics, propagation, type TextMapPropagator, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import {
  defaultResource,
  detectResources,
  envDetector,
  resourceFromAttributes,
} from '@opentelemetry/resources';
import {
  MeterProvider,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
} from '@opentelemetry/sdk-metrics';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  type SpanExporter,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { exportRegistries } from './metrics.js';
import { prometheusBridge } from './otel-metrics.js';
import type { OtelSettings, OtlpProtocol, SamplerName } from './telemetry.js';

/** The running SDK: flush and stop it once the server has closed. */
export interface OtelSdk {
  /** Exports what is buffered (spans, the last metric readings) and stops; resolves within `timeoutMs`. */
  shutdown(timeoutMs: number): Promise<void>;
}

function sampler(name: SamplerName, ratio: number): Sampler {
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio);
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
  }
}

// Only the exporter of the protocol asked for is loaded.
async function spanExporter(protocol: OtlpProtocol): Promise<SpanExporter> {
  return protocol === 'http/json'
    ? new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter()
    : new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter();
}

async function metricExporter(protocol: OtlpProtocol): Promise<PushMetricExporter> {
  return protocol === 'http/json'
    ? new (await import('@opentelemetry/exporter-metrics-otlp-http')).OTLPMetricExporter()
    : new (await import('@opentelemetry/exporter-metrics-otlp-proto')).OTLPMetricExporter();
}

/**
 * Starts the SDK and registers it globally. Call before the app is built (main.ts does, right after
 * reading the configuration).
 *
 * @example
 * ```ts
 * const settings = otelSettings();
 * const sdk = settings && (await import('./service/otel-sdk.js')).startOtelSdk(settings);
 * ```
 */
export async function startOtelSdk(
  settings: OtelSettings,
  listener: { readonly scheme: 'http' | 'https' } = { scheme: 'http' },
): Promise<OtelSdk> {
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': 'plumbline-reference-service' }))
    .merge(detectResources({ detectors: [envDetector] }));
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const propagators: TextMapPropagator[] = settings.propagators.map((p) =>
    p === 'tracecontext' ? new W3CTraceContextPropagator() : new W3CBaggagePropagator(),
  );
  propagation.setGlobalPropagator(new CompositePropagator({ propagators }));

  const stops: (() => Promise<void>)[] = [];
  if (settings.traces) {
    const provider = new TracerProvider({
      resource,
      sampler: sampler(settings.traces.sampler, settings.traces.ratio),
      spanProcessors: [
        new BatchSpanProcessor({
          exporter: await spanExporter(settings.traces.protocol),
          ...settings.traces.batch,
        }),
      ],
    });
    trace.setGlobalTracerProvider(provider);
    stops.push(() => provider.shutdown());
  }
  if (settings.metrics) {
    // The service's own metrics are read from the registry `/metrics` renders (service/otel-metrics.ts):
    // every registry createMetrics makes from now on is exported too. The provider itself carries what
    // the instrumentations record (instrumentation-pg's client metrics).
    const bridge = prometheusBridge(listener);
    exportRegistries((registry) => bridge.add(registry));
    stops.push(async () => exportRegistries(undefined));
    const provider = new MeterProvider({
      resource,
      readers: [
        new PeriodicExportingMetricReader({
          exporter: await metricExporter(settings.metrics.protocol),
          exportIntervalMillis: settings.metrics.exportIntervalMillis,
          exportTimeoutMillis: settings.metrics.exportTimeoutMillis,
          metricProducers: [bridge.producer],
        }),
      ],
    });
    metrics.setGlobalMeterProvider(provider);
    stops.push(() => provider.shutdown());
  }

  // Child spans for Redis commands and SQL statements: the instrumentations patch ioredis and pg as
  // they load, so this runs before main.ts imports service/context.ts (which imports both). The
  // service is ESM: its `import` of them goes through import-in-the-middle's loader hook, registered
  // here (it sees the modules loaded after this point only). Only calls made for a request are
  // recorded: the migrations and the seeding at start would each be a trace of their own.
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
  registerInstrumentations({
    instrumentations: [
      new IORedisInstrumentation({ requireParentSpan: true }),
      new PgInstrumentation({ requireParentSpan: true }),
    ],
  });

  return {
    async shutdown(timeoutMs) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      });
      const done = Promise.allSettled(stops.map((stop) => stop())).then(() => undefined);
      await Promise.race([done, late]);
      clearTimeout(timer);
    },
  };
}
