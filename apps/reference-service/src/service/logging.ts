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
import { pinoHttp } from 'pino-http';
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

// Query parameters whose values are masked: the auth package's list plus other common secrets.
const REDACT = {
  parameters: [...DEFAULT_REDACTED_PARAMETERS, 'key', 'secret', 'sig', 'signature', 'code', 'session'],
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

const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'x-api-key', 'cookie', 'set-cookie']);

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

/**
 * The access log on Node's request and response, for every wiring: one line per request
 * (`request completed`, level error for 5xx, warn for 503) and `req.log` for handlers, each line
 * carrying `request_id` and `trace_id` (the active span's, else `traceparent`'s). Call it with the raw objects (Fastify
 * `request.raw`/`reply.raw`, @hono/node-server `c.env.incoming`/`c.env.outgoing`) once the request
 * id is known; `requestIdOf` returns that id (`-` is logged when it returns `undefined`). A `query`
 * object on the request, when the framework put one there, is logged with credentials masked.
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
  const props = new WeakMap<IncomingMessage, Record<string, string>>();
  return pinoHttp({
    logger,
    genReqId: (req) => requestIdOf(req) ?? '-',
    quietReqLogger: true,
    customAttributeKeys: { reqId: 'request_id' },
    customProps: (req) => {
      // Read once, at the start (inside the server span's context), and reused for the last line.
      const known = props.get(req);
      if (known !== undefined) return known;
      const traceId = activeTraceId() ?? traceIdOf(req.headers['traceparent']);
      // The client behind the trusted proxies (TRUST_PROXY), as the rate limits key it;
      // `remoteAddress` below stays the socket's peer.
      const client = proxies?.clientAddress(req.socket?.remoteAddress, req.headers['x-forwarded-for']);
      const bindings = {
        ...(traceId ? { trace_id: traceId } : {}),
        ...(client ? { client_address: client } : {}),
      };
      props.set(req, bindings);
      return bindings;
    },
    // 503 is a fail-closed answer to an outage that its detector logs once; per request it is a warning.
    customLogLevel: (_req, res, error) =>
      error || (res.statusCode >= 500 && res.statusCode !== 503)
        ? 'error'
        : res.statusCode === 503
          ? 'warn'
          : 'info',
    serializers: {
      req: (req: IncomingMessage & { query?: Record<string, unknown>; url?: string }) => ({
        method: req.method,
        url: redactUrl(String(req.url ?? '')),
        ...(req.query && typeof req.query === 'object' ? { query: redactQuery(req.query, REDACT) } : {}),
        headers: safeHeaders((req.headers ?? {}) as Record<string, unknown>),
        remoteAddress: (req as { remoteAddress?: string }).remoteAddress,
      }),
      res: (res: ServerResponse & { headers?: Record<string, unknown>; statusCode: number }) => ({
        statusCode: res.statusCode,
        headers: safeHeaders(res.headers ?? {}),
      }),
    },
  });
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
