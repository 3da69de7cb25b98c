/**
 * The attribute and metric names this package records: the stable HTTP semantic conventions of
 * OpenTelemetry, written as literals (no runtime dependency on `@opentelemetry/semantic-conventions`;
 * a test compares them with that package's stable exports), and the `plumbline.*` names of our own.
 */

/**
 * Stable HTTP server attribute names (OpenTelemetry semantic conventions).
 *
 * @example
 * ```ts
 * span.attributes[HTTP_ATTRIBUTES.route]; // '/projects/:id'
 * ```
 */
export const HTTP_ATTRIBUTES = Object.freeze({
  requestMethod: 'http.request.method',
  requestMethodOriginal: 'http.request.method_original',
  responseStatusCode: 'http.response.status_code',
  route: 'http.route',
  errorType: 'error.type',
  urlScheme: 'url.scheme',
  urlPath: 'url.path',
  serverAddress: 'server.address',
  serverPort: 'server.port',
  clientAddress: 'client.address',
  userAgentOriginal: 'user_agent.original',
} as const);

/**
 * The `plumbline.*` attribute names, the small semantic convention of this package (see the
 * README's table for what each holds and when it is set).
 *
 * @example
 * ```ts
 * span.attributes[PLUMBLINE_ATTRIBUTES.errorCode]; // 'invalid_sort'
 * ```
 */
export const PLUMBLINE_ATTRIBUTES = Object.freeze({
  requestId: 'plumbline.request_id',
  errorCode: 'plumbline.error_code',
  apiVersion: 'plumbline.api.version',
  apiVersionSource: 'plumbline.api.version_source',
  apiDeprecated: 'plumbline.api.deprecated',
  apiSunset: 'plumbline.api.sunset',
  mediaType: 'plumbline.response.media_type',
  language: 'plumbline.response.language',
  idempotencyOutcome: 'plumbline.idempotency.outcome',
  originalRequestId: 'plumbline.idempotency.original_request_id',
  authMethod: 'plumbline.auth.method',
  principalId: 'plumbline.auth.principal_id',
  rateLimitRemaining: 'plumbline.rate_limit.remaining',
  rateLimitPolicy: 'plumbline.rate_limit.policy',
} as const);

/**
 * The metric names: the stable `http.server.request.duration` and the `plumbline.*` counters.
 *
 * @example
 * ```ts
 * METRICS.requestDuration; // 'http.server.request.duration'
 * ```
 */
export const METRICS = Object.freeze({
  requestDuration: 'http.server.request.duration',
  problems: 'plumbline.server.problems',
  idempotency: 'plumbline.server.idempotency',
  apiVersions: 'plumbline.server.api_versions',
} as const);

/**
 * The bucket boundaries the semantic conventions advise for `http.server.request.duration`, in seconds.
 *
 * @example
 * ```ts
 * DURATION_BUCKETS[0]; // 0.005
 * ```
 */
export const DURATION_BUCKETS: readonly number[] = Object.freeze([
  0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10,
]);

/**
 * The request methods `http.request.method` records as sent (the semantic conventions' known
 * methods); any other is recorded as `_OTHER`, so a client cannot create series with made-up methods.
 *
 * @example
 * ```ts
 * const method = KNOWN_METHODS.has(req.method) ? req.method : '_OTHER';
 * ```
 */
export const KNOWN_METHODS: ReadonlySet<string> = new Set([
  'CONNECT',
  'DELETE',
  'GET',
  'HEAD',
  'OPTIONS',
  'PATCH',
  'POST',
  'PUT',
  'TRACE',
]);
