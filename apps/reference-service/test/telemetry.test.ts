/**
 * OpenTelemetry in the service (service/telemetry.ts): the SDK's settings read from the standard
 * OpenTelemetry variables only, nothing when no OTLP endpoint is set, a configuration error for what
 * the service cannot honour; and the `http.route` every wiring records. The SDK itself, against a
 * real OTLP receiver, is apps/system-tests/test/telemetry.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../src/service/config.js';
import {
  otelSettings,
  telemetryEnabled,
  telemetryNodeError,
  telemetryRoute,
  tracesEnabled,
} from '../src/service/telemetry.js';

const ENDPOINT = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };
const DEFAULT_TRACES = {
  protocol: 'http/protobuf',
  sampler: 'parentbased_always_on',
  ratio: 1,
  batch: {
    scheduledDelayMillis: 5000,
    exportTimeoutMillis: 30_000,
    maxQueueSize: 2048,
    maxExportBatchSize: 512,
  },
};
const DEFAULT_METRICS = {
  protocol: 'http/protobuf',
  exportIntervalMillis: 60_000,
  exportTimeoutMillis: 30_000,
};

describe('otelSettings: the SDK only when an OTLP endpoint is set', () => {
  it.each([
    ['nothing set', {}],
    ['only OTEL_SERVICE_NAME', { OTEL_SERVICE_NAME: 'api' }],
    ['an empty endpoint', { OTEL_EXPORTER_OTLP_ENDPOINT: ' ' }],
    ['OTEL_SDK_DISABLED=true', { ...ENDPOINT, OTEL_SDK_DISABLED: 'true' }],
    ['both exporters none', { ...ENDPOINT, OTEL_TRACES_EXPORTER: 'none', OTEL_METRICS_EXPORTER: 'none' }],
  ])('%s: undefined (the SDK is not loaded, the middleware not mounted)', (_label, env) => {
    expect(otelSettings(env)).toBeUndefined();
    expect(telemetryEnabled(env)).toBe(false);
  });

  it('an endpoint: the wirings mount the telemetry middleware', () => {
    expect(telemetryEnabled(ENDPOINT)).toBe(true);
    expect(telemetryEnabled({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' })).toBe(
      true,
    );
  });

  it('the endpoint alone: the specification’s defaults', () => {
    expect(otelSettings(ENDPOINT)).toEqual({
      traces: DEFAULT_TRACES,
      metrics: DEFAULT_METRICS,
      propagators: ['tracecontext', 'baggage'],
    });
  });

  it.each([
    ['traces endpoint only', { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c/v1/traces' }, true, false],
    ['metrics endpoint only', { OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://c/v1/metrics' }, false, true],
    ['OTEL_TRACES_EXPORTER=none', { ...ENDPOINT, OTEL_TRACES_EXPORTER: 'none' }, false, true],
    ['OTEL_METRICS_EXPORTER=none', { ...ENDPOINT, OTEL_METRICS_EXPORTER: 'none' }, true, false],
  ])('%s: traces %s, metrics %s', (_label, env, traces, metrics) => {
    const settings = otelSettings(env);
    expect([settings?.traces !== undefined, settings?.metrics !== undefined]).toEqual([traces, metrics]);
  });

  it('every other standard variable is read', () => {
    expect(
      otelSettings({
        ...ENDPOINT,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'http/protobuf',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.25',
        OTEL_BSP_SCHEDULE_DELAY: '100',
        OTEL_BSP_EXPORT_TIMEOUT: '2000',
        OTEL_BSP_MAX_QUEUE_SIZE: '100',
        OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '10',
        OTEL_METRIC_EXPORT_INTERVAL: '500',
        OTEL_METRIC_EXPORT_TIMEOUT: '30000',
        OTEL_PROPAGATORS: 'tracecontext',
      }),
    ).toEqual({
      traces: {
        protocol: 'http/json',
        sampler: 'parentbased_traceidratio',
        ratio: 0.25,
        batch: {
          scheduledDelayMillis: 100,
          exportTimeoutMillis: 2000,
          maxQueueSize: 100,
          maxExportBatchSize: 10,
        },
      },
      // The export timeout is at most the interval (the metric reader refuses a longer one).
      metrics: { protocol: 'http/protobuf', exportIntervalMillis: 500, exportTimeoutMillis: 500 },
      propagators: ['tracecontext'],
    });
  });

  it.each([
    ['OTEL_PROPAGATORS=none', { OTEL_PROPAGATORS: 'none' }, []],
    [
      'OTEL_PROPAGATORS twice the same',
      { OTEL_PROPAGATORS: 'baggage, baggage,tracecontext' },
      ['baggage', 'tracecontext'],
    ],
  ])('%s', (_label, env, propagators) => {
    expect(otelSettings({ ...ENDPOINT, ...env })?.propagators).toEqual(propagators);
  });

  it.each([
    [
      { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
      /OTEL_EXPORTER_OTLP_PROTOCOL must be http\/protobuf or http\/json, not "grpc"/,
    ],
    [{ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' }, /OTEL_EXPORTER_OTLP_TRACES_PROTOCOL must be/],
    [{ OTEL_TRACES_EXPORTER: 'zipkin' }, /OTEL_TRACES_EXPORTER must be otlp or none, not "zipkin"/],
    [{ OTEL_METRICS_EXPORTER: 'prometheus' }, /OTEL_METRICS_EXPORTER must be otlp or none, not "prometheus"/],
    [{ OTEL_TRACES_SAMPLER: 'xray' }, /OTEL_TRACES_SAMPLER must be one of always_on, /],
    [
      { OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' },
      /OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1, not "2"/,
    ],
    [
      { OTEL_BSP_SCHEDULE_DELAY: '1s' },
      /OTEL_BSP_SCHEDULE_DELAY must be a whole number of at least 0, not "1s"/,
    ],
    [
      { OTEL_METRIC_EXPORT_INTERVAL: '0' },
      /OTEL_METRIC_EXPORT_INTERVAL must be a whole number of at least 1, not "0"/,
    ],
    [{ OTEL_PROPAGATORS: 'b3' }, /OTEL_PROPAGATORS may list tracecontext, baggage or none, not "b3"/],
  ])('%o: a configuration error that names the variable', (env, message) => {
    expect(() => otelSettings({ ...ENDPOINT, ...env })).toThrow(ConfigError);
    expect(() => otelSettings({ ...ENDPOINT, ...env })).toThrow(message);
  });
});

describe('telemetryRoute: the route template the metrics label, for every framework', () => {
  const templates: Record<string, string> = {
    '/v2/projects': '/v2/projects',
    '/v2/projects/42': '/v2/projects/{project_id}',
    '/v2/projects/search': '/v2/projects/search',
  };
  const route = telemetryRoute((path) => templates[path] ?? 'unmatched');

  it.each([
    ['/v2/projects', '/v2/projects'],
    ['/v2/projects/42', '/v2/projects/{project_id}'],
    ['/v2/projects/search', '/v2/projects/search'],
    ['/nowhere', undefined],
    ['/v2/projects/', undefined],
  ])('%s → %s', (path, expected) => {
    expect(route(path)).toBe(expected);
  });
});

describe('telemetryNodeError: an OTLP endpoint on a Node.js the SDK does not support stops the start', () => {
  const settings = otelSettings(ENDPOINT);
  it.each([
    ['22.13.0', false],
    ['22.14.9', false],
    ['22.15.0', true],
    ['23.0.0', true],
    ['24.21.0', true],
  ])('%s with an endpoint → starts: %s', (version, starts) => {
    expect(telemetryNodeError(settings, version) === undefined).toBe(starts);
  });

  it('without an endpoint, any Node.js the service runs on is fine', () => {
    expect(telemetryNodeError(undefined, '22.13.0')).toBeUndefined();
  });

  it('says what is set, what the SDK needs, what it found and the two ways out', () => {
    const error = telemetryNodeError(settings, '22.13.0');
    expect(error).toBeInstanceOf(ConfigError);
    expect(error?.message).toBe(
      'OTEL_EXPORTER_OTLP_ENDPOINT is set, and the OpenTelemetry SDK the service exports with needs Node.js 22.15 or newer; this is Node.js 22.13.0. Upgrade Node.js, or unset the endpoint to run without OpenTelemetry.',
    );
  });
});

describe('tracesEnabled: the Redis client sends each command from its own request only when traces are exported', () => {
  it.each([
    ['nothing set', {}, false],
    ['an endpoint', ENDPOINT, true],
    ['an endpoint, traces off', { ...ENDPOINT, OTEL_TRACES_EXPORTER: 'none' }, false],
    [
      'only a traces endpoint',
      { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' },
      true,
    ],
  ])('%s → %s', (_label, env, traced) => {
    expect(tracesEnabled(env)).toBe(traced);
  });
});
