/**
 * OpenTelemetry, the framework-neutral part: whether to start the SDK and how, read from the
 * standard OpenTelemetry environment variables only (`OTEL_EXPORTER_OTLP_ENDPOINT`,
 * `OTEL_SERVICE_NAME`, `OTEL_TRACES_SAMPLER`, ...), and the options every wiring passes to
 * `@plumbline/telemetry`'s middleware. Nothing here loads the SDK: main.ts imports
 * `service/otel-sdk.ts` only when {@link otelSettings} returns settings, so without an OTLP endpoint
 * the start and every request cost what they did before (the middleware sees the API's no-op
 * providers and calls `next()`).
 */
import { createNoopMeter, type MeterProvider } from '@opentelemetry/api';
import { ConfigError } from './config.js';

type Env = Readonly<Record<string, string | undefined>>;

/** `OTEL_EXPORTER_OTLP_PROTOCOL` values the service exports with (OTLP over HTTP). */
export type OtlpProtocol = 'http/protobuf' | 'http/json';

/** `OTEL_TRACES_SAMPLER` values (the SDK's built-in samplers). */
export type SamplerName =
  | 'always_on'
  | 'always_off'
  | 'traceidratio'
  | 'parentbased_always_on'
  | 'parentbased_always_off'
  | 'parentbased_traceidratio';

/** What the SDK is started with, all from standard variables (defaults of the specification). */
export interface OtelSettings {
  /** Traces over OTLP, when `OTEL_EXPORTER_OTLP_ENDPOINT` or `_TRACES_ENDPOINT` is set and `OTEL_TRACES_EXPORTER` is not `none`. */
  readonly traces:
    | {
        readonly protocol: OtlpProtocol;
        readonly sampler: SamplerName;
        /** `OTEL_TRACES_SAMPLER_ARG`: the ratio of the `traceidratio` samplers (default 1). */
        readonly ratio: number;
        /** `OTEL_BSP_*`: the batch span processor. */
        readonly batch: {
          readonly scheduledDelayMillis: number;
          readonly exportTimeoutMillis: number;
          readonly maxQueueSize: number;
          readonly maxExportBatchSize: number;
        };
      }
    | undefined;
  /** Metrics over OTLP, when `OTEL_EXPORTER_OTLP_ENDPOINT` or `_METRICS_ENDPOINT` is set and `OTEL_METRICS_EXPORTER` is not `none`. */
  readonly metrics:
    | {
        readonly protocol: OtlpProtocol;
        /** `OTEL_METRIC_EXPORT_INTERVAL` (default 60000 ms). */
        readonly exportIntervalMillis: number;
        /** `OTEL_METRIC_EXPORT_TIMEOUT` (default 30000 ms, at most the interval). */
        readonly exportTimeoutMillis: number;
      }
    | undefined;
  /** `OTEL_PROPAGATORS`: `tracecontext` and `baggage` (the default), or `none`. */
  readonly propagators: readonly ('tracecontext' | 'baggage')[];
}

const SAMPLERS: readonly SamplerName[] = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
];

const set = (env: Env, name: string): string | undefined => {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
};

function count(env: Env, name: string, fallback: number, min: number): number {
  const value = set(env, name);
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min) {
    throw new ConfigError(`${name} must be a whole number of at least ${min}, not "${value}"`);
  }
  return Number(value);
}

function protocol(env: Env, signal: 'TRACES' | 'METRICS'): OtlpProtocol {
  const name = set(env, `OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`)
    ? `OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`
    : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const value = set(env, name) ?? 'http/protobuf';
  if (value === 'http/protobuf' || value === 'http/json') return value;
  throw new ConfigError(
    `${name} must be http/protobuf or http/json, not "${value}" (the service exports OTLP over HTTP; put a collector in front for gRPC)`,
  );
}

/** Whether a signal exports: its endpoint (or the common one) is set and its exporter is not `none`. */
function exports(env: Env, signal: 'TRACES' | 'METRICS'): boolean {
  const exporter = set(env, `OTEL_${signal}_EXPORTER`) ?? 'otlp';
  if (exporter === 'none') return false;
  if (exporter !== 'otlp') {
    throw new ConfigError(`OTEL_${signal}_EXPORTER must be otlp or none, not "${exporter}"`);
  }
  return (
    set(env, 'OTEL_EXPORTER_OTLP_ENDPOINT') !== undefined ||
    set(env, `OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`) !== undefined
  );
}

/**
 * The SDK's settings from the standard OpenTelemetry variables, or undefined when nothing is to be
 * exported (no OTLP endpoint set, or `OTEL_SDK_DISABLED=true`): then the SDK is not loaded at all.
 * Throws {@link ConfigError} for a value the service cannot honour (a gRPC protocol, another
 * exporter, an unknown sampler), so a misconfiguration stops the start instead of losing data.
 *
 * @example
 * ```ts
 * otelSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })?.traces?.protocol; // 'http/protobuf'
 * otelSettings({}); // undefined
 * ```
 */
export function otelSettings(env: Env = process.env): OtelSettings | undefined {
  if (set(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return undefined;
  const traces = exports(env, 'TRACES');
  const metrics = exports(env, 'METRICS');
  if (!traces && !metrics) return undefined;

  const sampler = (set(env, 'OTEL_TRACES_SAMPLER') ?? 'parentbased_always_on') as SamplerName;
  if (!SAMPLERS.includes(sampler)) {
    throw new ConfigError(`OTEL_TRACES_SAMPLER must be one of ${SAMPLERS.join(', ')}, not "${sampler}"`);
  }
  const arg = set(env, 'OTEL_TRACES_SAMPLER_ARG');
  const ratio = arg === undefined || !sampler.endsWith('traceidratio') ? 1 : Number(arg);
  if (!(ratio >= 0 && ratio <= 1)) {
    throw new ConfigError(`OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1, not "${arg}"`);
  }
  const propagators = (set(env, 'OTEL_PROPAGATORS') ?? 'tracecontext,baggage')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  for (const p of propagators) {
    if (p !== 'tracecontext' && p !== 'baggage' && p !== 'none') {
      throw new ConfigError(`OTEL_PROPAGATORS may list tracecontext, baggage or none, not "${p}"`);
    }
  }
  const interval = count(env, 'OTEL_METRIC_EXPORT_INTERVAL', 60_000, 1);
  return {
    traces: traces
      ? {
          protocol: protocol(env, 'TRACES'),
          sampler,
          ratio,
          batch: {
            scheduledDelayMillis: count(env, 'OTEL_BSP_SCHEDULE_DELAY', 5000, 0),
            exportTimeoutMillis: count(env, 'OTEL_BSP_EXPORT_TIMEOUT', 30_000, 1),
            maxQueueSize: count(env, 'OTEL_BSP_MAX_QUEUE_SIZE', 2048, 1),
            maxExportBatchSize: count(env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 512, 1),
          },
        }
      : undefined,
    metrics: metrics
      ? {
          protocol: protocol(env, 'METRICS'),
          exportIntervalMillis: interval,
          exportTimeoutMillis: Math.min(count(env, 'OTEL_METRIC_EXPORT_TIMEOUT', 30_000, 1), interval),
        }
      : undefined,
    propagators: propagators.includes('none')
      ? []
      : (propagators as ('tracecontext' | 'baggage')[]).filter((p, i, all) => all.indexOf(p) === i),
  };
}

/**
 * The `http.route` of a request path: the path template of the OpenAPI document (or of the
 * service's other pages) it falls under, `/v2/projects/{project_id}`, the same as the `route` label
 * of the Prometheus metrics (`routeOf` of service/metrics.ts); undefined when none does (a 404 for a
 * path nobody routes). Every wiring passes it as the middleware's `route`, so the three frameworks
 * record the same template whatever answered: a route, or a middleware before it (401, 429, 503),
 * which Express's `req.route` does not see inside the version routers.
 *
 * @example
 * ```ts
 * const route = telemetryRoute(metrics.routeOf);
 * route('/v2/projects/42'); // '/v2/projects/{project_id}'
 * route('/v2/projects/'); // undefined
 * ```
 */
export function telemetryRoute(routeOf: (path: string) => string): (path: string) => string | undefined {
  return (path) => {
    // Paths match exactly on every framework: a trailing slash is a 404, never the route.
    if (path.length > 1 && path.endsWith('/')) return undefined;
    const template = routeOf(path);
    return template === 'unmatched' ? undefined : template;
  };
}

/**
 * What every wiring passes to `@plumbline/telemetry`'s middleware besides its framework's getters
 * (`getPrincipal`, `getApiVersion`, the path for {@link telemetryRoute}): principal ids hashed (the
 * package's default, written out so a copy of the service sees the choice), the request id from
 * `X-Request-Id` as `@plumbline/errors` sends it, and spans only: the service's metrics have one
 * source, the registry `/metrics` renders, which service/otel-metrics.ts exports over OTLP under the
 * same semantic-convention names the middleware would record (a no-op meter here, so no request is
 * counted twice).
 */
export const TELEMETRY_OPTIONS = {
  principalId: 'hashed',
  requestIdHeader: 'X-Request-Id',
  meterProvider: { getMeter: () => createNoopMeter() },
} as const satisfies { meterProvider: MeterProvider; principalId: string; requestIdHeader: string };

/**
 * `plumbline.api.version_source`: how the version served was read, the service's versioning strategy
 * (VERSIONING_STRATEGY) when the request named one, `default` when it named none; undefined on
 * version-neutral routes. Every wiring passes it as the middleware's `apiVersionSource`.
 *
 * @example
 * ```ts
 * versionSource('header', { defaulted: false }); // 'header'
 * versionSource('header', { defaulted: true }); // 'default'
 * ```
 */
export function versionSource(
  strategy: string,
  resolved: { readonly defaulted: boolean } | undefined,
): string | undefined {
  return resolved === undefined ? undefined : resolved.defaulted ? 'default' : strategy;
}

/**
 * Whether this process runs OpenTelemetry: `main.ts` starts the SDK exactly when {@link otelSettings}
 * finds an endpoint. The wirings mount the telemetry middleware only then, so a service without an
 * endpoint does not pay its no-SDK check on every request (7.8 k to 20 k instructions, `bench:guard`).
 *
 * @example
 * ```ts
 * if (telemetryEnabled()) app.use(telemetry({ ...TELEMETRY_OPTIONS, route }));
 * ```
 */
export const telemetryEnabled = (env: Env = process.env): boolean => otelSettings(env) !== undefined;

/**
 * Whether this process exports traces (an OTLP endpoint for traces, {@link otelSettings}): the Redis
 * client then sends each command from its own request (no auto-pipelining), so its span has the
 * right parent (service/context.ts).
 *
 * @example
 * ```ts
 * new Redis(url, { enableAutoPipelining: !tracesEnabled() });
 * ```
 */
export const tracesEnabled = (env: Env = process.env): boolean => otelSettings(env)?.traces !== undefined;

/** The oldest Node.js the OpenTelemetry SDK packages the service loads declare they run on. */
const MIN_NODE_SDK = [22, 15] as const;

/**
 * A configuration error when an OTLP endpoint is set on a Node.js the OpenTelemetry SDK does not
 * support (before 22.15; the service itself starts from 22.13); undefined otherwise. main.ts stops
 * with it rather than start an SDK that may fail half-way.
 *
 * @example
 * ```ts
 * telemetryNodeError(otelSettings(), '22.13.0'); // ConfigError: ... needs Node.js 22.15 or newer ...
 * ```
 */
export function telemetryNodeError(
  settings: OtelSettings | undefined,
  version: string,
): ConfigError | undefined {
  if (settings === undefined) return undefined;
  const [major = 0, minor = 0] = version.split('.').map(Number);
  const [minMajor, minMinor] = MIN_NODE_SDK;
  if (major > minMajor || (major === minMajor && minor >= minMinor)) return undefined;
  return new ConfigError(
    `OTEL_EXPORTER_OTLP_ENDPOINT is set, and the OpenTelemetry SDK the service exports with needs Node.js ${minMajor}.${minMinor} or newer; this is Node.js ${version}. Upgrade Node.js, or unset the endpoint to run without OpenTelemetry.`,
  );
}
