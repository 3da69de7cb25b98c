/**
 * Hono adapter for @plumbline/telemetry (Node through `@hono/node-server`, Bun, Deno, Workers).
 * @packageDocumentation
 */
import { context, type TextMapGetter } from '@opentelemetry/api';
import { sentHeaders } from '@plumbline/errors/hono';
import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import { type AdapterOptions, MAX_PROBLEM_BYTES } from './shared.js';
import { createTelemetry, problemErrorCode, type RequestTelemetry } from './telemetry.js';

/**
 * Options of {@link telemetry}: the core's (`tracerProvider`, `meterProvider`, `principalId`,
 * `requestIdHeader`), the getters `principal` (`getPrincipal` of `@plumbline/auth/hono`),
 * `apiVersion` (`getApiVersion` of `@plumbline/versioning/hono`) and `route`, and
 * `clientAddress` (default: the socket's remote address on `@hono/node-server`, else none).
 *
 * @example
 * ```ts
 * const options: TelemetryMiddlewareOptions = { clientAddress: (c) => c.req.header('x-real-ip') };
 * ```
 */
export interface TelemetryMiddlewareOptions extends AdapterOptions<Context> {
  /** The client's address (`client.address`), for a runtime or proxy the default does not know. */
  readonly clientAddress?: (c: Context) => string | undefined;
}

const FETCH_HEADERS: TextMapGetter<Headers> = {
  keys: (carrier) => [...carrier.keys()],
  get: (carrier, key) => carrier.get(key) ?? undefined,
};

const socketAddress = (c: Context): string | undefined =>
  (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming?.socket
    ?.remoteAddress;

// A middleware of `app.use` is registered for every method ('ALL') on a path ending in '*'.
const isMiddleware = (route: { readonly method: string; readonly path: string }): boolean =>
  route.method === 'ALL' && route.path.endsWith('*');

/**
 * The route template of the request: the path of the route that answered (`routePath(c)` of
 * `hono/route` when a route answered), or of the first route after the middleware that answered
 * (a 401 or 429 before the route ran). Read at the end, so no later middleware overwrites it.
 */
function routeTemplate(c: Context): string | undefined {
  const routes = matchedRoutes(c);
  for (let i = Math.max(c.req.routeIndex, 0); i < routes.length; i++) {
    const route = routes[i]!;
    if (!isMiddleware(route)) return route.path;
  }
  return undefined;
}

async function finish(
  c: Context,
  active: RequestTelemetry,
  options: TelemetryMiddlewareOptions,
  thrown: boolean,
): Promise<void> {
  const res = c.res;
  const headers = sentHeaders(c, Object.fromEntries(res.headers));
  const type = headers['content-type'];
  let problem: string | undefined;
  if (!thrown && type?.startsWith('application/problem+') && res.body !== null) {
    const body = await res.clone().text();
    if (body.length <= MAX_PROBLEM_BYTES) problem = problemErrorCode(type, body);
  }
  active.end({
    status: thrown ? 500 : res.status,
    route: options.route?.(c) ?? routeTemplate(c),
    header: (name) => headers[name.toLowerCase()],
    errorCode: problem,
    principal: options.principal?.(c),
    apiVersion: options.apiVersion?.(c),
    apiVersionSource: options.apiVersionSource?.(c),
  });
}

/**
 * Hono middleware: one server span per request, named `{method} {route}` with `http.route` the
 * template of the route that answered (read once the response is ready, the same value as on
 * Express and Fastify), the stable HTTP attributes and the `plumbline.*` ones, and the
 * `http.server.request.duration` histogram. The rest of the chain runs in the span's context.
 * With no OpenTelemetry SDK registered it only calls `next()`. Mount it first.
 *
 * @example
 * ```ts
 * app.use(telemetry({ principal: getPrincipal }));
 * app.use(problems.middleware);
 * ```
 */
export function telemetry(options: TelemetryMiddlewareOptions = {}): MiddlewareHandler {
  const core = createTelemetry(options);
  return async (c, next) => {
    const active = core.start(c.req.method, c.req.raw.headers, FETCH_HEADERS);
    if (active === undefined) return next();
    const url = new URL(c.req.url);
    const scheme = url.protocol.slice(0, -1);
    active.request({
      scheme,
      path: url.pathname,
      serverAddress: url.hostname,
      serverPort: url.port === '' ? (scheme === 'https' ? 443 : 80) : Number(url.port),
      clientAddress: options.clientAddress === undefined ? socketAddress(c) : options.clientAddress(c),
      userAgent: c.req.header('user-agent'),
      idempotencyKey: c.req.header('idempotency-key') !== undefined,
    });
    try {
      await context.with(active.context, next);
    } catch (error) {
      await finish(c, active, options, true);
      throw error;
    }
    await finish(c, active, options, false);
  };
}
