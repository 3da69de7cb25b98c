/**
 * Express adapter for @plumbline/telemetry (Express 4.21+ and 5). @packageDocumentation
 */
import { context } from '@opentelemetry/api';
import type { Request, RequestHandler, Response } from 'express';
import { type AdapterOptions, headerText, hostAndPort, MAX_PROBLEM_BYTES, NODE_HEADERS } from './shared.js';
import { createTelemetry, problemErrorCode } from './telemetry.js';

/**
 * Options of {@link telemetry}: the core's (`tracerProvider`, `meterProvider`, `principalId`,
 * `requestIdHeader`), the getters `principal` (`getPrincipal` of `@plumbline/auth/express`),
 * `apiVersion` (`getApiVersion` of `@plumbline/versioning/express`) and `route`, and
 * `clientAddress` (default: `req.ip`, Express's `trust proxy` rule).
 *
 * @example
 * ```ts
 * const options: TelemetryMiddlewareOptions = { clientAddress: (req) => req.get('x-real-ip') };
 * ```
 */
export interface TelemetryMiddlewareOptions extends AdapterOptions<Request> {
  /** The client's address (`client.address`), for a proxy rule the default does not know. */
  readonly clientAddress?: (req: Request) => string | undefined;
}

type Layered = Request & { route?: { path?: unknown } };

interface RouteLayer {
  readonly route?: {
    readonly path?: unknown;
    _handlesMethod?(method: string): boolean;
    _handles_method?(method: string): boolean;
  };
  match?(path: string): unknown;
}

/**
 * The app-level route a request would have reached, for an answer sent before Express entered
 * one (a 406 or 401 from a middleware): the first route layer of the app's router whose path and
 * method match (Express 4 `app._router`, Express 5 `app.router`).
 */
function appRoute(req: Request, path: string): string | undefined {
  const app = req.app as unknown as { _router?: { stack?: RouteLayer[] }; router?: { stack?: RouteLayer[] } };
  const stack = (app._router ?? app.router)?.stack ?? [];
  for (const layer of stack) {
    const route = layer.route;
    if (route === undefined || typeof route.path !== 'string' || !layer.match?.(path)) continue;
    const handles = route._handlesMethod?.(req.method) ?? route._handles_method?.(req.method) ?? false;
    if (handles) return route.path;
  }
  return undefined;
}

function joinRoute(base: string, path: unknown): string | undefined {
  if (typeof path !== 'string') return undefined;
  if (base === '') return path;
  return path === '/' ? base : base + path;
}

/**
 * Express middleware: one server span per request, named `{method} {route}`, with the stable HTTP
 * attributes and the `plumbline.*` ones, and the `http.server.request.duration` histogram. The
 * route template is `req.route.path` joined with the path the router was mounted on, read when
 * Express enters the route (a router mounted on a path with parameters gives their values there:
 * pass `route` for those). The route runs in the span's context. With no OpenTelemetry SDK
 * registered it only calls `next()`. Mount it first.
 *
 * @example
 * ```ts
 * app.use(telemetry({ principal: getPrincipal }));
 * app.use(requestId());
 * app.get('/projects/:id', show);
 * ```
 */
export function telemetry(options: TelemetryMiddlewareOptions = {}): RequestHandler {
  const core = createTelemetry(options);
  return (req, res, next) => {
    const active = core.start(req.method, req.headers, NODE_HEADERS);
    if (active === undefined) {
      next();
      return;
    }
    const scheme = req.protocol;
    const host = hostAndPort(req.headers.host, scheme);
    const path = (req.originalUrl ?? req.url).split('?', 1)[0]!;
    active.request({
      scheme,
      path,
      serverAddress: req.hostname ?? host.address,
      serverPort: host.port,
      clientAddress: options.clientAddress === undefined ? req.ip : options.clientAddress(req),
      userAgent: req.headers['user-agent'],
      idempotencyKey: req.headers['idempotency-key'] !== undefined,
    });

    // The template is read when Express enters the route, while `req.baseUrl` is the mount path
    // of the router holding it (an error handler later runs with it restored).
    let template: string | undefined;
    let layerRoute: unknown;
    Object.defineProperty(req, 'route', {
      configurable: true,
      enumerable: true,
      get: () => layerRoute,
      set(value: { path?: unknown } | undefined) {
        layerRoute = value;
        template = value === undefined ? undefined : joinRoute(req.baseUrl ?? '', value.path);
      },
    });

    // A problem document's error_code, read from its body (short, sent with one `end`).
    let problem: string | undefined;
    const end = res.end;
    res.end = function (this: Response, ...args: unknown[]) {
      const chunk = args[0];
      const type = headerText(this.getHeader('content-type'));
      if (type?.startsWith('application/problem+') && (typeof chunk === 'string' || Buffer.isBuffer(chunk))) {
        if (chunk.length <= MAX_PROBLEM_BYTES) problem = problemErrorCode(type, chunk.toString());
      }
      return (end as (...rest: unknown[]) => Response).apply(this, args);
    } as typeof res.end;

    res.once('close', () => {
      active.end({
        status: res.statusCode,
        route:
          options.route?.(req) ??
          template ??
          joinRoute('', (req as Layered).route?.path) ??
          appRoute(req, path),
        header: (name) => headerText(res.getHeader(name)),
        errorCode: problem,
        principal: options.principal?.(req),
        apiVersion: options.apiVersion?.(req),
        apiVersionSource: options.apiVersionSource?.(req),
      });
    });
    context.with(active.context, next);
  };
}
