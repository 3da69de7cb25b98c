/**
 * Prometheus metrics (prom-client), one registry per app. Requests are labelled by route template
 * (`/v2/projects/{project_id}`, matched against the OpenAPI paths), never by the raw path: an id, a
 * query string or a path nobody routes (`unmatched`) cannot create new series.
 *
 * Families:
 * - `http_requests_total{method,route,status}` and `http_request_duration_seconds{method,route,status}`
 * - `plumbline_idempotency_outcomes_total{outcome}`: new | replayed | in_flight | mismatch | conflict
 * - `plumbline_auth_failures_total{reason}`: the error_code of a 401/403 or credential refusal
 * - `plumbline_rate_limit_rejections_total`
 * - `plumbline_backend_errors_total{backend}`: redis | database
 * - `plumbline_problems_total{method,route,error_code}`: every problem document sent, by its error_code
 * - `plumbline_api_version_requests_total{version,deprecated}`: requests by the API version served
 * - the prom-client process and Node.js defaults (`process_*`, `nodejs_*`)
 *
 * This registry is the service's one source of metrics. `/metrics` renders it for Prometheus; with an
 * OTLP endpoint set, service/otel-metrics.ts exports the same readings over OTLP under the
 * OpenTelemetry semantic-convention names (the mapping is in that file), so a request is counted once
 * and both exports agree.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError } from '@plumbline/errors';
import { DURATION_BUCKETS } from '@plumbline/telemetry';
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import type { AppContext } from './context.js';
import type { PlainReply } from './plain-reply.js';

const AUTH_FAILURES = new Set([
  'unauthorized',
  'invalid_token',
  'forbidden',
  'insufficient_scope',
  'https_required',
  'credentials_in_query',
  'csrf_rejected',
]);

/** Paths the service answers that are not operations of the OpenAPI document. */
const EXTRA_ROUTES = [
  '/ready',
  '/errors',
  '/oauth/revoke',
  '/openapi.json',
  '/docs/assets/{file}',
  '/docs/init.js',
  '/assets/{file}',
  '/docs/deprecations/v1',
  '/docs/sunset-policy',
];

/**
 * Turns path templates into one matcher: raw path in, template (or `unmatched`) out.
 *
 * @example
 * ```ts
 * routeMatcher(['/v2/projects/{project_id}'])('/v2/projects/42'); // '/v2/projects/{project_id}'
 * ```
 */
export function routeMatcher(templates: readonly string[]): (path: string) => string {
  // Literal templates first, so /v2/projects/search wins over /v2/projects/{project_id}.
  const sorted = [...templates].sort((a, b) => a.split('{').length - b.split('{').length);
  const compiled = sorted.map((template) => {
    const pattern = template
      .split(/\{[^}]+\}/)
      .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
      .join('[^/]+');
    return { template, regex: new RegExp(`^${pattern}/?$`) };
  });
  return (path) => compiled.find(({ regex }) => regex.test(path))?.template ?? 'unmatched';
}

/** The service's metrics: neutral hooks on Node's request and response (each wiring binds them to its framework). */
export interface ServiceMetrics {
  readonly registry: Registry;
  /**
   * Times the request and, when the response finishes, counts it by method, route template and
   * status (and the error, idempotency and rate-limit families). Call first, before anything can
   * answer; `path` is the request path as received, without the query string (the route template
   * is matched from it, `unmatched` when no template fits). `responseHeader` reads a header of the
   * response as sent; by default `res.getHeader`, which does not see headers a framework hands to
   * `writeHead` (@hono/node-server sends every header that way). `apiVersion` reads the API version
   * the request was served in once the response is sent (undefined on version-neutral routes).
   */
  track(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    responseHeader?: (name: string) => unknown,
    apiVersion?: () => string | undefined,
  ): void;
  /**
   * The route template of a request path, as the `route` label has it (`/v2/projects/{project_id}`,
   * `unmatched` when no template fits); the OpenTelemetry spans use it too (service/telemetry.ts).
   */
  routeOf(path: string): string;
  /** Records the error a response was answered with; call from the error handler, before it sends. */
  recordError(req: IncomingMessage, error: HttpError): void;
  /** The `/metrics` answer: the registry in the Prometheus text format, never cached. */
  render(): Promise<PlainReply>;
}

const ERROR_CODE = Symbol('plumbline.metrics.error_code');

let exportRegistry: ((registry: Registry) => void) | undefined;

/**
 * Hands every registry {@link createMetrics} creates from now on to `listener`: the OpenTelemetry SDK
 * (service/otel-sdk.ts) registers here, before the app is built, to export the same readings over
 * OTLP. `undefined` stops handing them over.
 *
 * @example
 * ```ts
 * exportRegistries((registry) => bridge.add(registry));
 * ```
 */
export function exportRegistries(listener: ((registry: Registry) => void) | undefined): void {
  exportRegistry = listener;
}

/**
 * Creates the registry, the families and the backend instrumentation for one app.
 *
 * @example
 * ```ts
 * const metrics = createMetrics(ctx, () => Object.keys(openapi.paths));
 * metrics.track(req, res, '/v2/projects');
 * const reply = await metrics.render(); // the /metrics answer
 * ```
 */
export function createMetrics(
  ctx: AppContext,
  templates: readonly string[] | (() => readonly string[]),
): ServiceMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  exportRegistry?.(registry);
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by route template, method and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from request to the end of the response, by route template, method and status',
    labelNames: ['method', 'route', 'status'] as const,
    // The boundaries the OpenTelemetry semantic conventions advise for http.server.request.duration,
    // so the OTLP export (service/otel-metrics.ts) carries the histogram a collector expects.
    buckets: [...DURATION_BUCKETS],
    registers: [registry],
  });
  const idempotency = new Counter({
    name: 'plumbline_idempotency_outcomes_total',
    help: 'POSTs with an idempotency key by outcome: new, replayed, in_flight, mismatch, conflict',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const authFailures = new Counter({
    name: 'plumbline_auth_failures_total',
    help: 'Refused credentials and permissions by reason (the error_code)',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  const rateLimited = new Counter({
    name: 'plumbline_rate_limit_rejections_total',
    help: 'Requests answered 429 rate_limited',
    registers: [registry],
  });
  const backendErrors = new Counter({
    name: 'plumbline_backend_errors_total',
    help: 'Failed Redis commands or connections and failed database calls',
    labelNames: ['backend'] as const,
    registers: [registry],
  });
  const problems = new Counter({
    name: 'plumbline_problems_total',
    help: 'Problem documents sent, by route template, method and error_code',
    labelNames: ['method', 'route', 'error_code'] as const,
    registers: [registry],
  });
  const versions = new Counter({
    name: 'plumbline_api_version_requests_total',
    help: 'Requests by the API version served and whether that version is deprecated',
    labelNames: ['version', 'deprecated'] as const,
    registers: [registry],
  });
  for (const outcome of ['new', 'replayed', 'in_flight', 'mismatch', 'conflict'])
    idempotency.inc({ outcome }, 0);
  for (const backend of ['redis', 'database']) backendErrors.inc({ backend }, 0);
  rateLimited.inc(0);

  instrumentDatabase(ctx, () => backendErrors.inc({ backend: 'database' }));
  instrumentRedis(ctx, () => backendErrors.inc({ backend: 'redis' }));

  let matcher: ((path: string) => string) | undefined;
  const route = (path: string) => {
    matcher ??= routeMatcher([
      ...(typeof templates === 'function' ? templates() : templates),
      ...EXTRA_ROUTES,
    ]);
    return matcher(path);
  };

  const observe = (
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    responseHeader: (name: string) => unknown,
    apiVersion: (() => string | undefined) | undefined,
    started: bigint,
  ) => {
    const labels = { method: req.method ?? 'GET', route: route(path), status: String(res.statusCode) };
    requests.inc(labels);
    duration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    const code = (req as unknown as Record<symbol, string | undefined>)[ERROR_CODE];
    if (code) problems.inc({ method: labels.method, route: labels.route, error_code: code });
    const version = apiVersion?.();
    if (version !== undefined)
      versions.inc({
        version,
        deprecated: String((responseHeader('deprecation') ?? undefined) !== undefined),
      });
    if (code && AUTH_FAILURES.has(code)) authFailures.inc({ reason: code });
    if (code === 'rate_limited') rateLimited.inc();
    if (req.method === 'POST' && (req.headers['idempotency-key'] || req.headers['x-idempotency-key'])) {
      const outcome =
        responseHeader('idempotent-replayed') === 'true'
          ? 'replayed'
          : code === 'idempotency_key_in_use'
            ? 'in_flight'
            : code === 'idempotency_key_reused'
              ? 'mismatch'
              : code === 'idempotency_key_invalid'
                ? 'conflict'
                : res.statusCode < 500 && !code?.startsWith('idempotency_')
                  ? 'new'
                  : undefined;
      if (outcome) idempotency.inc({ outcome });
    }
  };

  const track = (
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    responseHeader: (name: string) => unknown = (name) => res.getHeader(name),
    apiVersion?: () => string | undefined,
  ) => {
    const started = process.hrtime.bigint();
    res.once('finish', () => observe(req, res, path, responseHeader, apiVersion, started));
  };
  const render = async (): Promise<PlainReply> => ({
    status: 200,
    headers: { 'Cache-Control': 'no-store', 'Content-Type': registry.contentType },
    body: await registry.metrics(),
  });

  return {
    registry,
    track,
    render,
    routeOf: route,
    recordError(req, error) {
      (req as unknown as Record<symbol, string>)[ERROR_CODE] = error.code;
    },
  };
}

// Each backend object is wrapped once; every app built on it (tests build several) gets its count.
const listeners = new WeakMap<object, Set<() => void>>();

function listen(target: object, count: () => void, wrap: (notify: () => void) => void): void {
  let set = listeners.get(target);
  if (!set) {
    const created = new Set<() => void>();
    set = created;
    listeners.set(target, created);
    wrap(() => {
      for (const listener of created) listener();
    });
  }
  set.add(count);
}

// A failed call is counted and rethrown unchanged: the callers decide what it means (503, 500).
// Counted: a driver error (it has a `code`) or a mapped 5xx (`service_unavailable`). Not counted: a
// 4xx (a unique name taken is 409), or an application error thrown inside a transaction to roll it
// back. An error seen twice (inside a transaction, then by the transaction) counts once.
const counted = new WeakSet<object>();

function isDatabaseFailure(error: unknown): boolean {
  if (typeof error !== 'object' || error === null || counted.has(error)) return false;
  if (error instanceof HttpError) return error.status >= 500;
  return typeof (error as { code?: unknown }).code === 'string';
}

function instrumentDatabase(ctx: AppContext, count: () => void): void {
  listen(ctx.db, count, (notify) => {
    const db = ctx.db as unknown as Record<string, unknown>;
    for (const method of ['all', 'allNative', 'run', 'transaction']) {
      const original = db[method];
      if (typeof original !== 'function') continue;
      db[method] = async (...args: unknown[]) => {
        try {
          return await (original as (...a: unknown[]) => Promise<unknown>).apply(ctx.db, args);
        } catch (error) {
          if (isDatabaseFailure(error)) {
            counted.add(error as object);
            notify();
          }
          throw error;
        }
      };
    }
  });
}

function instrumentRedis(ctx: AppContext, count: () => void): void {
  const redis = ctx.redis;
  if (!redis) return;
  listen(redis, count, (notify) => {
    redis.on('error', notify);
    const send = redis.sendCommand.bind(redis) as (...args: unknown[]) => unknown;
    // Every argument is passed on: a Cluster's sendCommand takes a third one (the node), and
    // dropping it crashed the process on the first command.
    redis.sendCommand = ((command: { promise?: Promise<unknown> }, ...rest: unknown[]) => {
      const result = send(command, ...rest);
      command.promise?.catch(notify);
      return result;
    }) as typeof redis.sendCommand;
  });
}
