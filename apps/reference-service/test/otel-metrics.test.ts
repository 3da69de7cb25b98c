/**
 * One source, two exports (service/otel-metrics.ts): the prom-client registry `/metrics` renders,
 * read by the OpenTelemetry SDK's own metric reader through the bridge, arrives as the semantic-
 * convention series, with the same counts. Real prom-client, real SDK reader and in-memory exporter.
 */
import {
  AggregationTemporality,
  DataPointType,
  InMemoryMetricExporter,
  MeterProvider,
  type MetricData,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { prometheusBridge } from '../src/service/otel-metrics.js';

let provider: MeterProvider | undefined;
afterEach(async () => {
  await provider?.shutdown();
  provider = undefined;
});

/** Exports `registry` once through a real reader and returns the bridge's metrics by name. */
async function exported(registry: Registry, scheme: 'http' | 'https' = 'http') {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const bridge = prometheusBridge({ scheme });
  bridge.add(registry);
  const reader = new PeriodicExportingMetricReader({
    exporter,
    exportIntervalMillis: 3_600_000,
    metricProducers: [bridge.producer],
  });
  provider = new MeterProvider({ readers: [reader] });
  await reader.forceFlush();
  const scopes = exporter.getMetrics().flatMap((r) => r.scopeMetrics);
  const ours = scopes.filter((s) => s.scope.name === '@plumbline/reference-service');
  expect(ours).toHaveLength(1);
  return new Map<string, MetricData>(ours[0]!.metrics.map((m) => [m.descriptor.name, m]));
}

const points = (metric: MetricData | undefined) =>
  (metric?.dataPoints ?? []).map((p) => [p.attributes, p.value]);

function serviceRegistry() {
  const registry = new Registry();
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'duration',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.1],
    registers: [registry],
  });
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'requests',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const problems = new Counter({
    name: 'plumbline_problems_total',
    help: 'problems',
    labelNames: ['method', 'route', 'error_code'] as const,
    registers: [registry],
  });
  const versions = new Counter({
    name: 'plumbline_api_version_requests_total',
    help: 'versions',
    labelNames: ['version', 'deprecated'] as const,
    registers: [registry],
  });
  const idempotency = new Counter({
    name: 'plumbline_idempotency_outcomes_total',
    help: 'idempotency',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const auth = new Counter({
    name: 'plumbline_auth_failures_total',
    help: 'auth',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  const rateLimited = new Counter({
    name: 'plumbline_rate_limit_rejections_total',
    help: 'rate limited',
    registers: [registry],
  });
  const backend = new Counter({
    name: 'plumbline_backend_errors_total',
    help: 'backend',
    labelNames: ['backend'] as const,
    registers: [registry],
  });
  return { registry, duration, requests, problems, versions, idempotency, auth, rateLimited, backend };
}

describe('prometheusBridge: the /metrics registry over OTLP under the semantic-convention names', () => {
  it('http_request_duration_seconds → http.server.request.duration: per-bucket counts, attributes by the conventions', async () => {
    const m = serviceRegistry();
    const ok = { method: 'GET', route: '/v2/projects', status: '200' };
    m.duration.observe(ok, 0.003);
    m.duration.observe(ok, 0.007);
    m.duration.observe(ok, 0.5);
    m.duration.observe({ method: 'GET', route: 'unmatched', status: '404' }, 0.002);
    m.duration.observe({ method: 'PURGE', route: '/v2/projects', status: '503' }, 0.02);
    const metrics = await exported(m.registry, 'https');
    const duration = metrics.get('http.server.request.duration')!;
    expect(duration.descriptor).toMatchObject({ unit: 's', description: 'duration' });
    expect(duration.dataPointType).toBe(DataPointType.HISTOGRAM);
    expect(duration.aggregationTemporality).toBe(AggregationTemporality.CUMULATIVE);
    const boundaries = [0.005, 0.01, 0.1];
    expect(points(duration)).toEqual([
      [
        {
          'http.request.method': 'GET',
          'http.route': '/v2/projects',
          'http.response.status_code': 200,
          'url.scheme': 'https',
        },
        { buckets: { boundaries, counts: [1, 1, 0, 1] }, sum: 0.51, count: 3, hasMinMax: false },
      ],
      [
        // No route matched: no http.route.
        { 'http.request.method': 'GET', 'http.response.status_code': 404, 'url.scheme': 'https' },
        { buckets: { boundaries, counts: [1, 0, 0, 0] }, sum: 0.002, count: 1, hasMinMax: false },
      ],
      [
        {
          'http.request.method': '_OTHER',
          'http.route': '/v2/projects',
          'http.response.status_code': 503,
          'url.scheme': 'https',
          'error.type': '503',
        },
        { buckets: { boundaries, counts: [0, 0, 1, 0] }, sum: 0.02, count: 1, hasMinMax: false },
      ],
    ]);
  });

  it('the plumbline_* counters → plumbline.server.* sums; http_requests_total is not sent (the histogram counts it)', async () => {
    const m = serviceRegistry();
    m.requests.inc({ method: 'GET', route: '/v2/projects', status: '200' });
    m.problems.inc({ method: 'GET', route: '/v2/projects', error_code: 'sort_field_not_allowed' });
    m.problems.inc({ method: 'GET', route: 'unmatched', error_code: 'not_found' }, 2);
    m.versions.inc({ version: '1', deprecated: 'true' });
    m.versions.inc({ version: '2', deprecated: 'false' }, 3);
    m.idempotency.inc({ outcome: 'replayed' });
    m.idempotency.inc({ outcome: 'in_flight' }, 0);
    m.auth.inc({ reason: 'invalid_token' });
    m.rateLimited.inc();
    m.backend.inc({ backend: 'redis' }, 4);
    const metrics = await exported(m.registry);
    expect(metrics.has('http_requests_total')).toBe(false);
    expect(metrics.has('http_requests')).toBe(false);
    const sums = Object.fromEntries(
      [...metrics].map(([name, metric]) => [
        name,
        {
          unit: metric.descriptor.unit,
          monotonic: metric.dataPointType === DataPointType.SUM && metric.isMonotonic,
          points: points(metric),
        },
      ]),
    );
    expect(sums).toEqual({
      'plumbline.server.problems': {
        unit: '{response}',
        monotonic: true,
        points: [
          [
            {
              'http.request.method': 'GET',
              'http.route': '/v2/projects',
              'plumbline.error_code': 'sort_field_not_allowed',
            },
            1,
          ],
          [{ 'http.request.method': 'GET', 'plumbline.error_code': 'not_found' }, 2],
        ],
      },
      'plumbline.server.api_versions': {
        unit: '{request}',
        monotonic: true,
        points: [
          [{ 'plumbline.api.version': '1', 'plumbline.api.deprecated': true }, 1],
          [{ 'plumbline.api.version': '2', 'plumbline.api.deprecated': false }, 3],
        ],
      },
      'plumbline.server.idempotency': {
        unit: '{request}',
        monotonic: true,
        points: [
          [{ 'plumbline.idempotency.outcome': 'replayed' }, 1],
          [{ 'plumbline.idempotency.outcome': 'in_flight' }, 0],
        ],
      },
      'plumbline.server.auth_failures': {
        unit: '{response}',
        monotonic: true,
        points: [[{ 'plumbline.error_code': 'invalid_token' }, 1]],
      },
      'plumbline.server.rate_limit_rejections': { unit: '{response}', monotonic: true, points: [[{}, 1]] },
      'plumbline.server.backend_errors': {
        unit: '{error}',
        monotonic: true,
        points: [[{ 'plumbline.backend': 'redis' }, 4]],
      },
    });
  });

  it('other families keep their names and labels (a counter without _total); a family with no series is not sent', async () => {
    const registry = new Registry();
    new Counter({ name: 'process_cpu_seconds_total', help: 'cpu', registers: [registry] }).inc(1.5);
    new Gauge({
      name: 'nodejs_version_info',
      help: 'version',
      labelNames: ['version', 'major'] as const,
      registers: [registry],
    }).set({ version: 'v24.0.0', major: '24' }, 1);
    new Counter({
      name: 'never_counted_total',
      help: 'none',
      labelNames: ['x'] as const,
      registers: [registry],
    });
    const metrics = await exported(registry);
    expect([...metrics.keys()]).toEqual(['process_cpu_seconds', 'nodejs_version_info']);
    expect(points(metrics.get('process_cpu_seconds'))).toEqual([[{}, 1.5]]);
    const gauge = metrics.get('nodejs_version_info')!;
    expect(gauge.dataPointType).toBe(DataPointType.GAUGE);
    expect(points(gauge)).toEqual([[{ version: 'v24.0.0', major: '24' }, 1]]);
  });

  it('each reading is cumulative from the hand-over: a later export carries the new totals, same start time', async () => {
    const m = serviceRegistry();
    const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
    const bridge = prometheusBridge({ scheme: 'http' });
    bridge.add(m.registry);
    bridge.add(m.registry); // handing the same registry over twice exports it once
    const reader = new PeriodicExportingMetricReader({
      exporter,
      exportIntervalMillis: 3_600_000,
      metricProducers: [bridge.producer],
    });
    provider = new MeterProvider({ readers: [reader] });
    m.rateLimited.inc();
    await reader.forceFlush();
    m.rateLimited.inc(2);
    await reader.forceFlush();
    const readings = exporter
      .getMetrics()
      .flatMap((r) => r.scopeMetrics)
      .flatMap((s) => s.metrics)
      .filter((metric) => metric.descriptor.name === 'plumbline.server.rate_limit_rejections');
    expect(readings.map((r) => r.dataPoints.map((p) => p.value))).toEqual([[1], [3]]);
    expect(readings[0]!.dataPoints[0]!.startTime).toEqual(readings[1]!.dataPoints[0]!.startTime);
  });
});
