/**
 * The service's metrics over OTLP, from the same prom-client registry `/metrics` renders: one source,
 * two exports. A request is counted once (service/metrics.ts); the OpenTelemetry SDK's periodic reader
 * takes a reading of the registry at each export through this MetricProducer (the pattern of the
 * OpenTelemetry Go Prometheus bridge), so nothing is recorded twice on the request path and the two
 * exports cannot drift apart. Loaded by service/otel-sdk.ts only when an OTLP endpoint is set.
 *
 * Names: Prometheus keeps prom-client's names (dashboards built on them keep working); OTLP gets the
 * OpenTelemetry semantic-convention names and attributes, taken from `@plumbline/telemetry`'s own
 * constants, so they are the ones its middleware records in an app without prom-client:
 *
 * | `/metrics` (Prometheus) | OTLP |
 * |---|---|
 * | `http_request_duration_seconds{method,route,status}` | `http.server.request.duration` (s) `{http.request.method, http.route, http.response.status_code, url.scheme, error.type}` |
 * | `http_requests_total{method,route,status}` | not sent: the duration histogram's count is the same number |
 * | `plumbline_problems_total{method,route,error_code}` | `plumbline.server.problems` `{http.request.method, http.route, plumbline.error_code}` |
 * | `plumbline_idempotency_outcomes_total{outcome}` | `plumbline.server.idempotency` `{plumbline.idempotency.outcome}` |
 * | `plumbline_api_version_requests_total{version,deprecated}` | `plumbline.server.api_versions` `{plumbline.api.version, plumbline.api.deprecated}` |
 * | `plumbline_auth_failures_total{reason}` | `plumbline.server.auth_failures` `{plumbline.error_code}` |
 * | `plumbline_rate_limit_rejections_total` | `plumbline.server.rate_limit_rejections` |
 * | `plumbline_backend_errors_total{backend}` | `plumbline.server.backend_errors` `{plumbline.backend}` |
 * | `process_*`, `nodejs_*` | the same names, a counter without its `_total` |
 *
 * `route="unmatched"` becomes no `http.route` (the conventions leave it out when no route matched); an
 * unknown method becomes `_OTHER`. Sums and histograms are cumulative from the moment the registry was
 * handed over; prom-client summaries (the service has none) are not sent.
 */
import { type Attributes, type HrTime, ValueType } from '@opentelemetry/api';
import { emptyResource } from '@opentelemetry/resources';
import {
  AggregationTemporality,
  type CollectionResult,
  type DataPoint,
  DataPointType,
  type Histogram,
  type MetricData,
  type MetricProducer,
} from '@opentelemetry/sdk-metrics';
import {
  HTTP_ATTRIBUTES as H,
  KNOWN_METHODS,
  METRICS,
  PLUMBLINE_ATTRIBUTES as P,
} from '@plumbline/telemetry';
import type { MetricObjectWithValues, MetricValue, MetricValueWithName, Registry } from 'prom-client';

type Labels = Readonly<Record<string, string | number | undefined>>;

/** How one prom-client family is sent over OTLP: its name, unit and attributes. */
interface Mapping {
  readonly name: string;
  readonly unit: string;
  readonly attributes: (labels: Labels, scheme: string) => Attributes;
}

const method = (labels: Labels): string => {
  const name = String(labels['method'] ?? 'GET');
  return KNOWN_METHODS.has(name) ? name : '_OTHER';
};

/** `http.request.method` and, when a route matched, `http.route`. */
const routed = (labels: Labels): Attributes => {
  const attributes: Attributes = { [H.requestMethod]: method(labels) };
  if (labels['route'] !== undefined && labels['route'] !== 'unmatched') attributes[H.route] = labels['route'];
  return attributes;
};

const label = (name: string, key: string) => (labels: Labels) => ({ [key]: String(labels[name]) });

/** The semantic-convention names of the service's own families; `null`: not sent (said why above). */
const MAPPINGS: Readonly<Record<string, Mapping | null>> = {
  http_request_duration_seconds: {
    name: METRICS.requestDuration,
    unit: 's',
    attributes: (labels, scheme) => {
      const status = Number(labels['status']);
      const attributes: Attributes = {
        ...routed(labels),
        [H.responseStatusCode]: status,
        [H.urlScheme]: scheme,
      };
      if (status >= 500) attributes[H.errorType] = String(status);
      return attributes;
    },
  },
  http_requests_total: null,
  plumbline_problems_total: {
    name: METRICS.problems,
    unit: '{response}',
    attributes: (labels) => ({ ...routed(labels), [P.errorCode]: String(labels['error_code']) }),
  },
  plumbline_idempotency_outcomes_total: {
    name: METRICS.idempotency,
    unit: '{request}',
    attributes: label('outcome', P.idempotencyOutcome),
  },
  plumbline_api_version_requests_total: {
    name: METRICS.apiVersions,
    unit: '{request}',
    attributes: (labels) => ({
      [P.apiVersion]: String(labels['version']),
      [P.apiDeprecated]: labels['deprecated'] === 'true',
    }),
  },
  plumbline_auth_failures_total: {
    name: 'plumbline.server.auth_failures',
    unit: '{response}',
    attributes: label('reason', P.errorCode),
  },
  plumbline_rate_limit_rejections_total: {
    name: 'plumbline.server.rate_limit_rejections',
    unit: '{response}',
    attributes: () => ({}),
  },
  plumbline_backend_errors_total: {
    name: 'plumbline.server.backend_errors',
    unit: '{error}',
    attributes: label('backend', 'plumbline.backend'),
  },
};

/** The family's type: prom-client's typings declare a numeric enum, its JSON holds the name. */
const kindOf = (family: { readonly type: unknown }): string => String(family.type);

/** Any other family (the process and Node.js defaults): its own name and labels. */
function generic(family: MetricObjectWithValues<MetricValue<string>>): Mapping {
  const name =
    kindOf(family) === 'counter' && family.name.endsWith('_total') ? family.name.slice(0, -6) : family.name;
  return { name, unit: '', attributes: (labels) => ({ ...labels }) as Attributes };
}

const toHrTime = (ms: number): HrTime => [Math.floor(ms / 1000), Math.round((ms % 1000) * 1e6)];

/** The `le` boundaries of one histogram series, and its per-bucket (not cumulative) counts. */
function histogramPoints(
  family: MetricObjectWithValues<MetricValueWithName<string>>,
  mapping: Mapping,
  scheme: string,
  startTime: HrTime,
  endTime: HrTime,
): DataPoint<Histogram>[] {
  const series = new Map<string, { labels: Labels; le: [number, number][]; sum: number; count: number }>();
  for (const value of family.values) {
    const { le, ...labels } = value.labels as Labels;
    const key = JSON.stringify(Object.entries(labels).sort(([a], [b]) => a.localeCompare(b)));
    let entry = series.get(key);
    if (entry === undefined) {
      entry = { labels, le: [], sum: 0, count: 0 };
      series.set(key, entry);
    }
    if (value.metricName?.endsWith('_bucket'))
      entry.le.push([le === '+Inf' ? Number.POSITIVE_INFINITY : Number(le), value.value]);
    else if (value.metricName?.endsWith('_sum')) entry.sum = value.value;
    else if (value.metricName?.endsWith('_count')) entry.count = value.value;
  }
  return [...series.values()].map(({ labels, le, sum, count }) => {
    le.sort(([a], [b]) => a - b);
    const boundaries = le.filter(([bound]) => Number.isFinite(bound)).map(([bound]) => bound);
    const counts = le.map(([, cumulative], i) => cumulative - (i === 0 ? 0 : le[i - 1]![1]));
    return {
      startTime,
      endTime,
      attributes: mapping.attributes(labels, scheme),
      value: { buckets: { boundaries, counts }, sum, count, hasMinMax: false },
    };
  });
}

/** One prom-client family as OTLP metric data; undefined for a family that is not sent. */
function toMetricData(
  family: MetricObjectWithValues<MetricValue<string>>,
  scheme: string,
  startTime: HrTime,
  endTime: HrTime,
): MetricData | undefined {
  const mapped = MAPPINGS[family.name];
  if (mapped === null || kindOf(family) === 'summary') return undefined;
  const mapping = mapped ?? generic(family);
  const descriptor = {
    name: mapping.name,
    description: family.help,
    unit: mapping.unit,
    valueType: ValueType.DOUBLE,
  };
  if (kindOf(family) === 'histogram') {
    return {
      descriptor,
      aggregationTemporality: AggregationTemporality.CUMULATIVE,
      dataPointType: DataPointType.HISTOGRAM,
      dataPoints: histogramPoints(
        family as MetricObjectWithValues<MetricValueWithName<string>>,
        mapping,
        scheme,
        startTime,
        endTime,
      ),
    };
  }
  const dataPoints = family.values.map((value) => ({
    startTime,
    endTime,
    attributes: mapping.attributes(value.labels as Labels, scheme),
    value: value.value,
  }));
  return kindOf(family) === 'counter'
    ? {
        descriptor,
        aggregationTemporality: AggregationTemporality.CUMULATIVE,
        dataPointType: DataPointType.SUM,
        isMonotonic: true,
        dataPoints,
      }
    : {
        descriptor,
        aggregationTemporality: AggregationTemporality.CUMULATIVE,
        dataPointType: DataPointType.GAUGE,
        dataPoints,
      };
}

/** The bridge: registries in, a MetricProducer for the SDK's metric reader out. */
export interface PrometheusBridge {
  /** Pass to `PeriodicExportingMetricReader`'s `metricProducers`. */
  readonly producer: MetricProducer;
  /** Starts exporting a registry's readings (createMetrics hands each one over, service/metrics.ts). */
  add(registry: Registry): void;
}

/**
 * Creates the bridge. `scheme` is the `url.scheme` of the service's listener (`https` with TLS).
 *
 * @example
 * ```ts
 * const bridge = prometheusBridge({ scheme: 'http' });
 * new PeriodicExportingMetricReader({ exporter, metricProducers: [bridge.producer] });
 * bridge.add(metrics.registry);
 * ```
 */
export function prometheusBridge(options: { readonly scheme: string }): PrometheusBridge {
  const registries = new Map<Registry, HrTime>();
  return {
    add(registry) {
      if (!registries.has(registry)) registries.set(registry, toHrTime(Date.now()));
    },
    producer: {
      async collect(): Promise<CollectionResult> {
        const endTime = toHrTime(Date.now());
        const errors: unknown[] = [];
        const metrics: MetricData[] = [];
        for (const [registry, startTime] of registries) {
          try {
            for (const family of await registry.getMetricsAsJSON()) {
              const data = toMetricData(family, options.scheme, startTime, endTime);
              if (data !== undefined && data.dataPoints.length > 0) metrics.push(data);
            }
          } catch (error) {
            errors.push(error);
          }
        }
        return {
          // The reader keeps the SDK's resource and takes only the scope metrics from a producer.
          resourceMetrics: {
            resource: emptyResource(),
            scopeMetrics: [{ scope: { name: '@plumbline/reference-service' }, metrics }],
          },
          errors,
        };
      },
    },
  };
}
