/**
 * The framework-neutral core: starts a server span (and a duration measurement) per request and
 * ends it with the stable HTTP attributes and the `plumbline.*` ones, read from plain values the
 * adapters hand over. Only `@opentelemetry/api` is used; with no SDK registered `start` returns
 * undefined before anything is allocated.
 */
import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex } from '@noble/hashes/utils';
import {
  type Attributes,
  type Context,
  type Counter,
  context,
  createNoopMeter,
  type Histogram,
  type Meter,
  type MeterProvider,
  metrics,
  ProxyTracerProvider,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import {
  DURATION_BUCKETS,
  HTTP_ATTRIBUTES as H,
  KNOWN_METHODS,
  METRICS,
  PLUMBLINE_ATTRIBUTES as P,
} from './attributes.js';

const NAME = '@plumbline/telemetry';
// What the global tracer provider delegates to while no SDK is registered: the API's no-op
// provider (a fresh proxy has not been given a delegate yet).
const NOOP_TRACER_PROVIDER = new ProxyTracerProvider().getDelegate();
// The API's no-op meter class, to tell a registered MeterProvider from none.
const NOOP_METER = createNoopMeter().constructor;

/**
 * How the principal id is recorded in `plumbline.auth.principal_id`: `hashed` (the default: the
 * first 16 hex digits of the SHA-256 of the client id, stable across requests and processes, not
 * reversible without guessing ids), `raw` (the client id itself: opt in only if ids are not
 * personal data) or `none` (left out; the auth method is still recorded).
 *
 * @example
 * ```ts
 * const mode: PrincipalIdMode = 'raw';
 * ```
 */
export type PrincipalIdMode = 'hashed' | 'raw' | 'none';

/**
 * Options of {@link createTelemetry} (and, with framework getters added, of every adapter).
 *
 * @example
 * ```ts
 * const options: TelemetryOptions = { principalId: 'none' };
 * ```
 */
export interface TelemetryOptions {
  /** Tracer provider to use instead of the global one (`trace.setGlobalTracerProvider`). */
  readonly tracerProvider?: TracerProvider;
  /** Meter provider to use instead of the global one (`metrics.setGlobalMeterProvider`). */
  readonly meterProvider?: MeterProvider;
  /** How the principal id is recorded. Default `hashed`. */
  readonly principalId?: PrincipalIdMode;
  /** The request id response header to record as `plumbline.request_id`. Default `X-Request-Id`. */
  readonly requestIdHeader?: string;
}

/**
 * What an adapter knows of the request once a span records (read only then).
 *
 * @example
 * ```ts
 * const facts: RequestFacts = { scheme: 'http', path: '/projects', serverAddress: 'localhost', serverPort: 3000 };
 * ```
 */
export interface RequestFacts {
  /** `http` or `https`, as the server (or a trusted proxy) saw it. */
  readonly scheme: string;
  /** The path, without the query. */
  readonly path: string;
  /** The host the request was sent to (`Host`, or a trusted `X-Forwarded-Host`), without the port. */
  readonly serverAddress?: string | undefined;
  /** The port the request was sent to, when known. */
  readonly serverPort?: number | undefined;
  /** The client's address (the framework's trusted-proxy rule applies). */
  readonly clientAddress?: string | undefined;
  /** `User-Agent`. */
  readonly userAgent?: string | undefined;
  /** Whether the request carried an `Idempotency-Key`. */
  readonly idempotencyKey?: boolean;
}

/**
 * A principal as `getPrincipal` of `@plumbline/auth` returns it (only these fields are read).
 *
 * @example
 * ```ts
 * const principal: PrincipalLike = { type: 'api_key', clientId: 'acme' };
 * ```
 */
export interface PrincipalLike {
  /** How it authenticated: `api_key`, `jwt`, `session`. */
  readonly type: string;
  /** The client id. */
  readonly clientId: string;
}

/**
 * What an adapter knows when the response is done.
 *
 * @example
 * ```ts
 * const facts: ResponseFacts = { status: 200, route: '/projects', header: () => undefined };
 * ```
 */
export interface ResponseFacts {
  /** The status sent. */
  readonly status: number;
  /** The route template (`/projects/:id`), undefined when no route matched. */
  readonly route?: string | undefined;
  /** A response header's value (case-insensitive name), as one string. */
  readonly header: (name: string) => string | undefined;
  /** The `error_code` of the problem document sent, if one was. */
  readonly errorCode?: string | undefined;
  /** The authenticated principal, if any. */
  readonly principal?: PrincipalLike | undefined;
  /** The API version served, if versioning ran. */
  readonly apiVersion?: string | undefined;
  /** How that version was read: the strategy that found it in the request (`header`, `path`, ...) or `default`. */
  readonly apiVersionSource?: string | undefined;
}

/**
 * One request being measured: `recording` says whether the span takes attributes (if not, the
 * adapter reads nothing more and `end` only records metrics, if a meter is registered).
 *
 * @example
 * ```ts
 * const active = telemetry.start('GET', headers, getter);
 * active?.end({ status: 200, route: '/projects', header: () => undefined });
 * ```
 */
export interface RequestTelemetry {
  /** The server span, undefined when only metrics are recorded. */
  readonly span: Span | undefined;
  /** The context to run the route in (the server span active in it). */
  readonly context: Context;
  /** Whether the span records: only then are {@link RequestFacts} read and attributes set. */
  readonly recording: boolean;
  /** Sets the request's attributes (call once, only when `recording`). */
  request(facts: RequestFacts): void;
  /** Ends the span and records the metrics. Call once; later calls do nothing. */
  end(facts: ResponseFacts): void;
}

/**
 * The core an adapter drives: `start` per request (undefined when neither a tracer nor a meter is
 * registered), then `request` and `end` on what it returned.
 *
 * @example
 * ```ts
 * const telemetry = createTelemetry();
 * ```
 */
export interface Telemetry {
  /**
   * Starts measuring a request: continues `traceparent`/`tracestate` from `carrier` through the
   * registered propagator and starts the server span. Undefined, with nothing allocated, when no
   * SDK is registered.
   */
  start<Carrier>(
    method: string,
    carrier: Carrier,
    getter: TextMapGetter<Carrier>,
  ): RequestTelemetry | undefined;
}

interface Instruments {
  readonly duration: Histogram;
  readonly problems: Counter;
  readonly idempotency: Counter;
  readonly versions: Counter;
}

/**
 * The `plumbline.idempotency.outcome` of a response, or undefined when idempotency did not apply:
 * `replayed` (`Idempotent-Replayed: true`), `in_flight` (409 `idempotency_key_in_use`), `mismatch`
 * (422 `idempotency_key_reused`), `invalid` / `missing` (400 `idempotency_key_invalid` /
 * `_missing`), `unavailable` (503 while a key was sent: the store failed), `new` (a key was sent and
 * the route ran).
 *
 * @example
 * ```ts
 * idempotencyOutcome(true, 409, 'idempotency_key_in_use', undefined); // 'in_flight'
 * ```
 */
export function idempotencyOutcome(
  keySent: boolean,
  status: number,
  errorCode: string | undefined,
  replayed: string | undefined,
): string | undefined {
  switch (errorCode) {
    case 'idempotency_key_in_use':
      return 'in_flight';
    case 'idempotency_key_reused':
      return 'mismatch';
    case 'idempotency_key_invalid':
      return 'invalid';
    case 'idempotency_key_missing':
      return 'missing';
  }
  if (!keySent) return undefined;
  if (replayed === 'true') return 'replayed';
  if (status === 503 && errorCode === 'service_unavailable') return 'unavailable';
  return 'new';
}

/**
 * The remaining budget a `RateLimit` field announces, in any of the drafts `@plumbline/rate-limit`
 * sends (`"default";r=7;t=60` of draft-10, `limit=10, remaining=7, reset=60` of draft-8), or the
 * draft-7 `RateLimit-Remaining` value; undefined when there is none.
 *
 * @example
 * ```ts
 * rateLimitRemaining('"default";r=7;t=60', undefined); // 7
 * ```
 */
export function rateLimitRemaining(
  rateLimit: string | undefined,
  remaining: string | undefined,
): number | undefined {
  const match = rateLimit === undefined ? null : /(?:^|[;,\s])(?:r|remaining)=(\d+)/.exec(rateLimit);
  const digits =
    match?.[1] ?? (remaining !== undefined && /^\d+$/.test(remaining.trim()) ? remaining.trim() : undefined);
  return digits === undefined ? undefined : Number(digits);
}

/**
 * The policy names a `RateLimit-Policy` field lists (draft-10: `"2-in-1min";q=2;w=60`, names joined
 * with `, `), or the field itself when its policies have no names (draft-8: `10;w=60`). The
 * parameters (`q`, `w`, the partition key `pk`) are left out: a name is what a dashboard groups by.
 *
 * @example
 * ```ts
 * rateLimitPolicy('"2-in-1min";q=2;w=60;pk=:ZDBm:'); // '2-in-1min'
 * ```
 */
export function rateLimitPolicy(field: string | undefined): string | undefined {
  if (field === undefined) return undefined;
  const names = [...field.matchAll(/(?:^|,)\s*"((?:[^"\\]|\\.)*)"/g)].map((match) => match[1]!);
  return names.length === 0 ? field : names.join(', ');
}

/**
 * The `error_code` of a problem document body (JSON or the XML form `@plumbline/errors` renders),
 * or undefined when the body is not one.
 *
 * @example
 * ```ts
 * problemErrorCode('application/problem+json', '{"error_code":"not_found"}'); // 'not_found'
 * ```
 */
export function problemErrorCode(
  contentType: string | undefined,
  body: string | undefined,
): string | undefined {
  if (contentType === undefined || body === undefined) return undefined;
  if (contentType.startsWith('application/problem+json')) {
    try {
      const code = (JSON.parse(body) as { error_code?: unknown } | null)?.error_code;
      return typeof code === 'string' ? code : undefined;
    } catch {
      return undefined;
    }
  }
  if (contentType.startsWith('application/problem+xml')) {
    return /<error_code>([A-Za-z0-9_]+)<\/error_code>/.exec(body)?.[1];
  }
  return undefined;
}

// Client ids are few: their hashes are kept (a bounded map, cleared when full).
const HASHES = new Map<string, string>();
function hashed(id: string): string {
  let hash = HASHES.get(id);
  if (hash === undefined) {
    if (HASHES.size >= 1024) HASHES.clear();
    hash = bytesToHex(sha256(id)).slice(0, 16);
    HASHES.set(id, hash);
  }
  return hash;
}

/**
 * Creates the core. The tracer comes from the global provider (or `tracerProvider`), looked up
 * through the API's proxy on every request, so an SDK registered after this call is used; so is the
 * meter provider, whose instruments are created once per provider.
 *
 * @example
 * ```ts
 * const telemetry = createTelemetry({ principalId: 'hashed' });
 * const active = telemetry.start(req.method, req.headers, getter);
 * ```
 */
export function createTelemetry(options: TelemetryOptions = {}): Telemetry {
  const principalMode = options.principalId ?? 'hashed';
  const requestIdHeader = options.requestIdHeader ?? 'X-Request-Id';
  let tracerOf: TracerProvider | undefined;
  let tracer: Tracer | undefined;
  let meterOf: MeterProvider | undefined;
  let instruments: Instruments | undefined;

  const currentTracer = (): Tracer | undefined => {
    const provider = options.tracerProvider ?? trace.getTracerProvider();
    const real = provider instanceof ProxyTracerProvider ? provider.getDelegate() : provider;
    if (real === NOOP_TRACER_PROVIDER) return undefined;
    if (real !== tracerOf) {
      tracerOf = real;
      tracer = real.getTracer(NAME);
    }
    return tracer;
  };

  const currentInstruments = (): Instruments | undefined => {
    const provider = options.meterProvider ?? metrics.getMeterProvider();
    if (provider !== meterOf) {
      meterOf = provider;
      const meter: Meter = provider.getMeter(NAME);
      instruments =
        meter.constructor === NOOP_METER
          ? undefined
          : {
              duration: meter.createHistogram(METRICS.requestDuration, {
                unit: 's',
                description: 'Duration of HTTP server requests.',
                advice: { explicitBucketBoundaries: [...DURATION_BUCKETS] },
              }),
              problems: meter.createCounter(METRICS.problems, {
                unit: '{response}',
                description: 'Problem documents sent, by error_code and route.',
              }),
              idempotency: meter.createCounter(METRICS.idempotency, {
                unit: '{request}',
                description: 'Requests with an Idempotency-Key, by outcome and route.',
              }),
              versions: meter.createCounter(METRICS.apiVersions, {
                unit: '{request}',
                description: 'Requests by API version served and whether it is deprecated.',
              }),
            };
    }
    return instruments;
  };

  return {
    start(method, carrier, getter) {
      const activeTracer = currentTracer();
      const measured = currentInstruments();
      if (activeTracer === undefined && measured === undefined) return undefined;
      const started = performance.now();
      const parent = propagation.extract(context.active(), carrier, getter);
      const known = KNOWN_METHODS.has(method);
      const spanMethod = known ? method : 'HTTP';
      const span = activeTracer?.startSpan(spanMethod, { kind: SpanKind.SERVER }, parent);
      const recording = span?.isRecording() ?? false;
      const ctx = span === undefined ? parent : trace.setSpan(parent, span);
      let scheme: string | undefined;
      let keySent = false;
      let ended = false;
      if (recording) {
        span!.setAttribute(H.requestMethod, known ? method : '_OTHER');
        if (!known) span!.setAttribute(H.requestMethodOriginal, method);
      }
      return {
        span,
        context: ctx,
        recording,
        request(facts) {
          scheme = facts.scheme;
          keySent = facts.idempotencyKey === true;
          if (!recording) return;
          const attributes: Attributes = { [H.urlScheme]: facts.scheme, [H.urlPath]: facts.path };
          if (facts.serverAddress !== undefined) attributes[H.serverAddress] = facts.serverAddress;
          if (facts.serverPort !== undefined) attributes[H.serverPort] = facts.serverPort;
          if (facts.clientAddress !== undefined) attributes[H.clientAddress] = facts.clientAddress;
          if (facts.userAgent !== undefined) attributes[H.userAgentOriginal] = facts.userAgent;
          span!.setAttributes(attributes);
        },
        end(facts) {
          if (ended) return;
          ended = true;
          const { status, route, errorCode, header } = facts;
          const errorType = status >= 500 ? String(status) : undefined;
          const outcome = idempotencyOutcome(keySent, status, errorCode, header('idempotent-replayed'));
          const deprecated = header('deprecation') !== undefined;
          if (recording) {
            const attributes: Attributes = { [H.responseStatusCode]: status };
            if (route !== undefined) {
              attributes[H.route] = route;
              span!.updateName(`${spanMethod} ${route}`);
            }
            if (errorType !== undefined) attributes[H.errorType] = errorType;
            if (errorCode !== undefined) attributes[P.errorCode] = errorCode;
            // A replay carries the first request's id; the retry's own is in Replayed-By-Request-Id.
            const requestId = header(requestIdHeader);
            const retryId = outcome === 'replayed' ? header('replayed-by-request-id') : undefined;
            if (retryId !== undefined) {
              attributes[P.requestId] = retryId;
              if (requestId !== undefined) attributes[P.originalRequestId] = requestId;
            } else if (requestId !== undefined) attributes[P.requestId] = requestId;
            if (facts.apiVersion !== undefined) {
              attributes[P.apiVersion] = facts.apiVersion;
              if (facts.apiVersionSource !== undefined)
                attributes[P.apiVersionSource] = facts.apiVersionSource;
            }
            if (deprecated) attributes[P.apiDeprecated] = true;
            const sunset = header('sunset');
            if (sunset !== undefined) attributes[P.apiSunset] = sunset;
            const contentType = header('content-type');
            if (contentType !== undefined)
              attributes[P.mediaType] = contentType.split(';', 1)[0]!.trim().toLowerCase();
            const language = header('content-language');
            if (language !== undefined) attributes[P.language] = language;
            if (outcome !== undefined) attributes[P.idempotencyOutcome] = outcome;
            const principal = facts.principal;
            if (principal !== undefined) {
              attributes[P.authMethod] = principal.type;
              if (principalMode !== 'none')
                attributes[P.principalId] =
                  principalMode === 'raw' ? principal.clientId : hashed(principal.clientId);
            }
            const remaining = rateLimitRemaining(header('ratelimit'), header('ratelimit-remaining'));
            if (remaining !== undefined) attributes[P.rateLimitRemaining] = remaining;
            const policy = rateLimitPolicy(header('ratelimit-policy'));
            if (policy !== undefined) attributes[P.rateLimitPolicy] = policy;
            span!.setAttributes(attributes);
            if (errorType !== undefined) span!.setStatus({ code: SpanStatusCode.ERROR });
          }
          span?.end();
          if (measured === undefined) return;
          const common: Attributes = { [H.requestMethod]: known ? method : '_OTHER' };
          if (route !== undefined) common[H.route] = route;
          const duration: Attributes = { ...common, [H.responseStatusCode]: status };
          if (scheme !== undefined) duration[H.urlScheme] = scheme;
          if (errorType !== undefined) duration[H.errorType] = errorType;
          measured.duration.record((performance.now() - started) / 1000, duration);
          if (errorCode !== undefined) measured.problems.add(1, { ...common, [P.errorCode]: errorCode });
          if (outcome !== undefined)
            measured.idempotency.add(1, { ...common, [P.idempotencyOutcome]: outcome });
          if (facts.apiVersion !== undefined)
            measured.versions.add(1, { [P.apiVersion]: facts.apiVersion, [P.apiDeprecated]: deprecated });
        },
      };
    },
  };
}
