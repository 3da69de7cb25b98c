/**
 * Logging: pino, one JSON object per line in production (and whenever stdout is not a terminal),
 * readable one-line output through pino-pretty when stdout is a terminal outside production. Every
 * line a request writes carries its `request_id` and, as `trace_id`, the trace id of the active
 * OpenTelemetry span when the SDK runs (service/otel-sdk.ts), else that of a W3C `traceparent` the
 * caller sent. Credentials never reach the logs: `Authorization`, `Proxy-Authorization`,
 * `X-API-Key`, cookies and `Set-Cookie` are replaced, token, secret and password fields anywhere
 * in a logged object are censored, and credential-looking query parameters and `user:password@`
 * parts of URLs are masked.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { context, isSpanContextValid, trace } from '@opentelemetry/api';
import {
  DEFAULT_REDACTED_PARAMETERS,
  type KeySetErrorEvent,
  redactQuery,
  redactUrl as redactQueryString,
} from '@plumbline/auth';
import pino, { type Logger, type LoggerOptions } from 'pino';
import type { ProxyPolicy } from './client-address.js';

/** What stands in for a removed credential (the same mark `@plumbline/auth`'s redaction uses). */
export const REDACTED = '[REDACTED]';

const SECRET_KEYS = [
  'authorization',
  'proxy-authorization',
  'x-api-key',
  'cookie',
  'set-cookie',
  'password',
  'secret',
  'client_secret',
  'token',
  'access_token',
  'refresh_token',
  'id_token',
  'api_key',
  'apikey',
];

// Object fields censored wherever they appear, up to three levels deep (`err`, `body`, `req.headers`).
const REDACT_PATHS = SECRET_KEYS.flatMap((key) => {
  const member = /^[a-z_]+$/.test(key) ? `.${key}` : `["${key}"]`;
  return [...(member.startsWith('.') ? [key] : []), `*${member}`, `*.*${member}`];
});

// Query parameters whose values are masked: the auth package's list, the secret field names above
// and other common secrets.
const REDACT = {
  parameters: [
    ...new Set([
      ...DEFAULT_REDACTED_PARAMETERS,
      ...SECRET_KEYS,
      'key',
      'sig',
      'signature',
      'code',
      'session',
    ]),
  ],
  replacement: REDACTED,
};

/**
 * `url` for a log: credential query values (`@plumbline/auth`'s `redactUrl`, with a few more names)
 * and any `user:password@` replaced by `[REDACTED]`.
 *
 * @example
 * ```ts
 * redactUrl('/v2/projects?api_key=plk_abc&limit=2'); // '/v2/projects?api_key=[REDACTED]&limit=2'
 * ```
 */
export function redactUrl(url: string): string {
  return redactQueryString(url.replace(/\/\/[^/@\s?#]+@/, `//${REDACTED}@`), REDACT);
}

// Every secret name is masked as a header too, as the redaction paths would mask `req.headers.token`.
const SECRET_HEADERS = new Set(SECRET_KEYS);

function safeHeaders(headers: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (SECRET_HEADERS.has(lower)) out[lower] = REDACTED;
    else if (lower === 'referer' || lower === 'location') out[lower] = redactUrl(String(value));
    else out[lower] = value;
  }
  return out;
}

/** The trace id of a valid W3C `traceparent` header (version 00 layout), else undefined. */
export function traceIdOf(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string') return undefined;
  const match = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/.exec(header.trim());
  if (!match || match[1] === 'ff') return undefined;
  if (/^0+$/.test(match[2]!) || /^0+$/.test(match[3]!)) return undefined;
  // Version 00 has exactly four fields; later versions may append more.
  if (match[1] === '00' && match[5] !== undefined) return undefined;
  return match[2];
}

/**
 * The trace id of the span active in the current context (the request's server span, when the
 * OpenTelemetry SDK runs and `@plumbline/telemetry` started one), else undefined: without an SDK
 * there is no context manager, so no span is ever active.
 */
function activeTraceId(): string | undefined {
  const active = trace.getSpanContext(context.active());
  // A span the sampler dropped still carries its trace id (the caller's, or a new one).
  return active !== undefined && isSpanContextValid(active) ? active.traceId : undefined;
}

/**
 * The service's logger. `pretty` (a terminal in development) prints one readable line per entry
 * through pino-pretty; otherwise one JSON object per line. `destination` is for tests.
 *
 * @example
 * ```ts
 * const logger = createLogger({ level: 'info', pretty: process.stdout.isTTY && env !== 'production' });
 * ```
 */
export function createLogger(options: {
  readonly level: LoggerOptions['level'];
  readonly pretty?: boolean;
  readonly destination?: pino.DestinationStream;
}): Logger {
  const base: LoggerOptions = {
    level: options.level ?? 'info',
    redact: { paths: REDACT_PATHS, censor: REDACTED },
  };
  if (options.pretty) {
    return pino({
      ...base,
      transport: {
        target: 'pino-pretty',
        options: {
          singleLine: true,
          translateTime: 'SYS:HH:MM:ss.l',
          ignore: 'pid,hostname,req,res,responseTime,request_id,trace_id',
          // `GET /v2/projects?limit=2 200 4ms request completed request_id=… trace_id=…`
          messageFormat:
            '{if req.method}{req.method} {req.url} {res.statusCode} {responseTime}ms {end}{msg}{if request_id} request_id={request_id}{end}{if trace_id} trace_id={trace_id}{end}',
        },
      },
    });
  }
  return options.destination ? pino(base, options.destination) : pino(base);
}

const WITHOUT_REDACTION = { redact: [] };

/** A request's own fields in its access line (the Node request and what a framework put on it). */
type LoggedRequest = IncomingMessage & { readonly originalUrl?: string; readonly query?: unknown };

function requestFields(req: LoggedRequest): Record<string, unknown> {
  const query = req.query;
  return {
    method: req.method,
    url: redactUrl(String(req.originalUrl ?? req.url ?? '')),
    ...(query && typeof query === 'object'
      ? { query: redactQuery(query as Record<string, unknown>, REDACT) }
      : {}),
    headers: safeHeaders(req.headers as Record<string, unknown>),
    remoteAddress: req.socket?.remoteAddress,
  };
}

function responseFields(res: ServerResponse & { err?: unknown }): Record<string, unknown> {
  return {
    statusCode: res.headersSent ? res.statusCode : null,
    headers: safeHeaders(res.getHeaders() as Record<string, unknown>),
  };
}

/**
 * The access log on Node's request and response, for every wiring: one line per request
 * (`request completed`, or `request errored` with `err` for a 5xx: level error, warn for 503),
 * carrying `request_id` and `trace_id` (the active span's, else `traceparent`'s). Call it with the
 * raw objects (Fastify `request.raw`/`reply.raw`, @hono/node-server `c.env.incoming`/`c.env.outgoing`)
 * once the request id is known; `requestIdOf` returns that id (`-` is logged when it returns
 * `undefined`). A `query` object on the request, when the framework put one there, is logged with
 * credentials masked.
 *
 * Nothing is built for a line the level leaves out: a line's fields are made only when its level
 * is enabled, and no logger is made per request. A `request completed` line is masked as it is built (every secret
 * name among the headers and query parameters, credentials in the url) and skips the logger's
 * redaction paths; a `request errored` line carries an error and goes through them. pino-http, used
 * before, made three child loggers per request, each run through the redaction paths, and set
 * `req.log`: 48 µs a request at `LOG_LEVEL=warn`, where a 2xx writes nothing (BENCHMARKS.md has the
 * figures now). A handler that logs uses the service's logger with the request id, as the error
 * handler in `pipeline.ts` does.
 *
 * @example
 * ```ts
 * const log = createAccessLogger(logger, (req) => requestIds.get(req));
 * log(request.raw, reply.raw);
 * ```
 */
export function createAccessLogger(
  logger: Logger,
  requestIdOf: (req: IncomingMessage) => string | undefined,
  proxies?: ProxyPolicy,
): (req: IncomingMessage, res: ServerResponse) => void {
  // The completed lines' logger, made once: its lines are masked as they are built (below).
  const masked = logger.child({}, WITHOUT_REDACTION);
  return (incoming, res) => {
    const req = incoming as LoggedRequest;
    const startedAt = Date.now();
    // Read at the start (inside the server span's context) and used by every line of the request.
    const traceId = activeTraceId() ?? traceIdOf(req.headers['traceparent']);
    // The client behind the trusted proxies (TRUST_PROXY), as the rate limits key it;
    // `req.remoteAddress` stays the socket's peer.
    const client = proxies?.clientAddress(req.socket?.remoteAddress, req.headers['x-forwarded-for']);
    const requestId = requestIdOf(req) ?? '-';
    const done = (error?: unknown): void => {
      res.removeListener('close', done);
      res.removeListener('finish', done);
      res.removeListener('error', done);
      const failure = error ?? (res as { err?: unknown }).err;
      const errored = failure !== undefined || res.statusCode >= 500;
      // 503 is a fail-closed answer to an outage that its detector logs once; per request a warning.
      const level = !errored ? 'info' : failure === undefined && res.statusCode === 503 ? 'warn' : 'error';
      if (!logger.isLevelEnabled(level)) return;
      const line = {
        request_id: requestId,
        ...(traceId ? { trace_id: traceId } : {}),
        ...(client ? { client_address: client } : {}),
        req: requestFields(req),
        res: responseFields(res),
        responseTime: Date.now() - startedAt,
      };
      if (errored) {
        // An error can carry anything: its line goes through the logger's redaction paths.
        const err = failure ?? new Error(`failed with status code ${res.statusCode}`);
        logger[level]({ ...line, err }, 'request errored');
      } else {
        // Every field of this line is masked as it is built (headers, url, query), so the redaction
        // paths, which copy and walk each logged object (about 50 µs a line), are skipped for it.
        masked[level](line, 'request completed');
      }
    };
    res.on('close', done);
    res.on('finish', done);
    res.on('error', done);
  };
}

/**
 * Logs a failed fetch of a trusted issuer's key set: called once per fetch, and fetches back off,
 * so an identity-provider outage gives one line per period, never one per refused request.
 */
export function keySetErrorLogger(logger: Logger): (event: KeySetErrorEvent) => void {
  return (e) =>
    logger.warn(
      { issuer: e.issuer, err: e.error, failures: e.consecutiveFailures, retry_in_ms: e.retryInMs },
      e.servingLastGoodSet ? 'JWKS fetch failed; serving the last good key set' : 'JWKS unavailable',
    );
}
