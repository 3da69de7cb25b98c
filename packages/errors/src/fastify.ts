/**
 * Fastify 5 adapter for @plumbline/errors: one plugin (global, through fastify-plugin, because
 * error and not-found handling must cover every route) that renders every problem with the core,
 * maps Fastify's own errors (body parser, `FST_ERR_*`, schema validation, 404) to catalogue codes
 * and answers 405 for paths that exist under other methods; `methodNotAllowed`, the explicit
 * per-path 405 that Express's `.all()` and Hono's `app.all()` give; `routeEveryMethod`, so every
 * method Node parses is routable. @packageDocumentation
 */
import { METHODS as NODE_METHODS } from 'node:http';
import type {
  FastifyInstance,
  FastifyPluginCallback,
  FastifyReply,
  FastifyRequest,
  onRequestHookHandler,
  RouteOptions,
  RouteShorthandOptions,
} from 'fastify';
import fp from 'fastify-plugin';
import { createRequestIdSource, type RequestIdOptions } from './headers.js';
import { HttpError, isHttpError } from './http-error.js';
import {
  type ErrorEvent as CoreErrorEvent,
  type ErrorHandlerOptions as CoreErrorHandlerOptions,
  type MethodNotAllowedOptions as CoreMethodNotAllowedOptions,
  createMethodGuard,
  createProblemRenderer,
  reportError,
} from './render.js';

export type { RequestIdOptions };

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by `@plumbline/errors/fastify` (`X-Request-Id` rule); `''` when ids are off. */
    requestId: string;
  }
}

/**
 * What `onError` receives (the core's `ErrorEvent` for Fastify requests).
 * @example
 * ```ts
 * const log = (event: ErrorEvent) => event.req.log.error(event.original);
 * ```
 */
export type ErrorEvent = CoreErrorEvent<FastifyRequest>;
/**
 * Options of {@link plumblineErrors}: the core renderer's options, `onError`, `requestId`, and
 * whether unknown methods on known paths get 405.
 * @example
 * ```ts
 * const options: PlumblineErrorsOptions = { docsBaseUrl: 'https://api.example.com/errors' };
 * ```
 */
export interface PlumblineErrorsOptions extends CoreErrorHandlerOptions<FastifyRequest> {
  /** Request id rule (`X-Request-Id` by default); `false` leaves ids out. */
  readonly requestId?: RequestIdOptions | false;
  /**
   * Answer 405 (and OPTIONS 204) with `Allow` when the path has routes for other methods (any method
   * of `app.supportedMethods` but OPTIONS). Default true.
   */
  readonly methodNotAllowed?: boolean;
}

// The methods the not-found handler asks the router about come in this order, then the app's other
// methods (`supportedMethods`, so those `routeEveryMethod` or `addHttpMethod` added count too): the
// order of `Allow`. OPTIONS is left out: every path answers it (204), and an `OPTIONS *` route (a
// CORS plugin's) would otherwise turn every 404 into a 405.
const METHODS: readonly string[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
const probedMethods = (supported: readonly string[]): string[] => [
  ...METHODS,
  ...supported.filter((method) => method !== 'OPTIONS' && !METHODS.includes(method)),
];

// 5xx go to Fastify's own logger unless the app passes onError.
function logServerError(event: ErrorEvent): void {
  if (event.error.status >= 500) event.req.log.error({ err: event.original }, 'request failed');
}

const plugin: FastifyPluginCallback<PlumblineErrorsOptions> = (fastify, options, done) => {
  const render = createProblemRenderer(options);
  const onError = options.onError ?? logServerError;
  const ids = options.requestId === false ? undefined : createRequestIdSource(options.requestId);
  const allowMethods = options.methodNotAllowed ?? true;

  const answer = (thrown: unknown, request: FastifyRequest, reply: FastifyReply) => {
    // Fastify's "too large" error does not say the limit; the route's options do.
    if ((thrown as { code?: unknown } | null)?.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
      thrown = new HttpError('payload_too_large', { params: { limit: request.routeOptions.bodyLimit } });
    const rendered = render(thrown, {
      accept: request.headers.accept,
      acceptLanguage: request.headers['accept-language'],
      instance: request.url,
      requestId: request.requestId || undefined,
      responseHeader: (name) => reply.getHeader(name),
    });
    const headersSent = reply.raw.headersSent;
    reportError(onError, { error: rendered.error, original: thrown, req: request, headersSent });
    // The response has started (a second one cannot follow), or the client's connection is gone
    // (it closed mid-body: nobody reads an answer): the connection is closed, nothing is sent.
    // Returning nothing: a returned value is what Fastify would then send.
    if (headersSent || request.raw.socket?.destroyed) {
      reply.raw.destroy();
      return undefined;
    }
    for (const name of rendered.removeHeaders) reply.removeHeader(name);
    return reply.code(rendered.status).headers(rendered.headers).send(rendered.body);
  };

  fastify.decorateRequest('requestId', '');
  if (ids) {
    fastify.addHook('onRequest', (request, reply, next) => {
      request.requestId = ids.idFor(request.headers[ids.lowerHeader]);
      reply.header(ids.header, request.requestId);
      next();
    });
  }
  fastify.setErrorHandler((error, request, reply) => answer(error, request, reply));
  fastify.setNotFoundHandler((request, reply) => {
    const url = request.url.split('?', 1)[0] ?? '/';
    const others = allowMethods
      ? probedMethods(fastify.supportedMethods).filter(
          (method) => fastify.findRoute({ method, url }) !== null,
        )
      : [];
    if (others.length === 0) return answer(new HttpError('not_found'), request, reply);
    const guarded = createMethodGuard(others).answer(request.method);
    if (isHttpError(guarded)) return answer(guarded, request, reply);
    return reply.code(204).header('Allow', guarded.headers.Allow).send();
  });
  done();
};

/**
 * The Fastify 5 plugin: request ids (`request.requestId`, echoed in `X-Request-Id`), an error
 * handler and a not-found handler that answer with the core's `createProblemRenderer`, so the
 * bytes match the Express and Hono adapters. Registered through fastify-plugin: it applies to
 * the whole app, whichever context registers it.
 * @example
 * ```ts
 * const app = Fastify();
 * await app.register(plumblineErrors, { docsBaseUrl: 'https://api.example.com/errors' });
 * app.get('/projects/:id', async () => { throw httpErrors.notFound(); });
 * ```
 */
export const plumblineErrors = fp(plugin, { fastify: '5.x', name: '@plumbline/errors' });

/**
 * The id the plugin gave this request (`request.requestId`), or `undefined` when ids are off.
 * @example
 * ```ts
 * app.get('/x', async (request) => ({ id: getRequestId(request) }));
 * ```
 */
export function getRequestId(request: FastifyRequest): string | undefined {
  return request.requestId || undefined;
}

/**
 * Options of {@link methodNotAllowed}: the core guard's `handleOptions`, and the options of the
 * route it registers that take part in its answer (its hooks, constraints and config). The answer
 * is sent in `onRequest`, so options of later steps (schemas, body limit, `preHandler`) would have
 * nothing to act on and are not taken.
 * @example
 * ```ts
 * const options: MethodNotAllowedOptions = { onRequest: [authenticate], constraints: { version: '2.0.0' } };
 * ```
 */
export interface MethodNotAllowedOptions
  extends CoreMethodNotAllowedOptions,
    Pick<
      RouteShorthandOptions,
      | 'onRequest'
      | 'onSend'
      | 'onResponse'
      | 'onError'
      | 'constraints'
      | 'config'
      | 'logLevel'
      | 'prefixTrailingSlash'
    > {
  /**
   * The route it registers passes through this before it is registered: for what the picked
   * options do not cover, or to treat it as every other route of a mount (`@plumbline/contract`'s
   * `routeOptions`). Default: registered as is.
   */
  readonly routeOptions?: (route: RouteOptions) => RouteOptions;
}

type HookList<Hook> = Hook | readonly Hook[] | undefined;
const hooks = <Hook>(given: HookList<Hook>): Hook[] =>
  given === undefined ? [] : Array.isArray(given) ? [...given] : [given as Hook];

/**
 * Registers, on `scope`, one route that answers every other method of `url`: each method Node's
 * parser accepts that is not in `allowed` (nor `HEAD` when `GET` is: the GET route's own HEAD
 * route answers it) gets 405 `method_not_allowed` with `Allow`, and `OPTIONS` 204 with `Allow` (the
 * core's `createMethodGuard`), byte for byte what Express's
 * `router.route(url).get(...).all(methodNotAllowed(allowed))` and Hono's
 * `app.all(url, methodNotAllowed(allowed))` answer. It takes the name of those two; it registers a
 * route instead of returning a handler because Fastify routes by method and path and has no
 * `.all()` step after a path's own routes.
 *
 * - The answer is sent in `onRequest`, after the hooks of `scope` and of `options.onRequest` (an
 *   authentication hook's 401 comes first), so the request body is never read: a 405 with a
 *   malformed body is still 405, and a body's type or size never turns it into 415 or 413.
 * - A path parameter (or wildcard) matched empty is 404 `not_found`, before `options.onRequest`:
 *   Fastify's router hands `/projects/` to `/projects/:id` with `id === ''`, where Express and
 *   Hono match no route at all. Your own routes on `url` see that empty value too: check it there.
 * - So that PROPFIND, SEARCH and the other methods Fastify does not route by default reach it (on
 *   Express and Hono every method Node parses reaches `.all()`), it calls {@link routeEveryMethod}
 *   on `scope` first: from then on the whole app routes them, and an `app.all()` registered later
 *   takes them too. Call `routeEveryMethod(app)` yourself at the top to have that from the start.
 * - `plumblineErrors` must be registered: its error handler renders the 405 and the 404.
 * @example
 * ```ts
 * const app = Fastify();
 * await app.register(plumblineErrors);
 * app.get('/projects/:id', { onRequest: [authenticate] }, getProject);
 * methodNotAllowed(app, '/projects/:id', ['GET'], { onRequest: [authenticate] });
 * ```
 */
export function methodNotAllowed(
  scope: FastifyInstance,
  url: string,
  allowed: readonly string[],
  options: MethodNotAllowedOptions = {},
): void {
  const { handleOptions, onRequest, routeOptions = (given: RouteOptions) => given, ...route } = options;
  const guard = createMethodGuard(allowed, handleOptions === undefined ? {} : { handleOptions });
  routeEveryMethod(scope);
  const taken = new Set(allowed.map((method) => method.toUpperCase()));
  if (taken.has('GET')) taken.add('HEAD');
  const method = scope.supportedMethods.filter((name) => !taken.has(name));
  if (method.length === 0) return;
  const exact: onRequestHookHandler = async (request) => {
    if (Object.values((request.params ?? {}) as Record<string, unknown>).includes(''))
      throw new HttpError('not_found');
  };
  const answer = async (request: FastifyRequest, reply: FastifyReply) => {
    const outcome = guard.answer(request.method);
    if (isHttpError(outcome)) throw outcome;
    return reply.code(204).header('Allow', outcome.headers.Allow).send();
  };
  scope.route(
    routeOptions({
      ...route,
      method,
      url,
      exposeHeadRoute: false,
      onRequest: [exact, ...hooks(onRequest), answer],
      // Never reached: `answer` has replied in onRequest.
      handler: answer,
    }),
  );
}

/**
 * Makes every method Node's HTTP parser accepts (`http.METHODS`) routable on `app`, with a body
 * (`addHttpMethod(method, { hasBody: true })`), for those Fastify does not route by default:
 * PROPFIND, SEARCH, LOCK, MKCALENDAR, PURGE and the rest. CONNECT is left out: Node hands it to the
 * server's `connect` event, never to Fastify. {@link methodNotAllowed} calls it itself; call it at
 * the top, before any route, for every `app.all()` route to take them too, as Express's and Hono's
 * `all` do (a route takes the methods supported when it is registered). Calling it again adds
 * nothing. Returns `app`.
 * @example
 * ```ts
 * const app = routeEveryMethod(Fastify());
 * app.supportedMethods.includes('PROPFIND'); // true
 * ```
 */
export function routeEveryMethod<App extends Pick<FastifyInstance, 'supportedMethods' | 'addHttpMethod'>>(
  app: App,
): App {
  const supported = new Set(app.supportedMethods);
  for (const method of NODE_METHODS) {
    if (method !== 'CONNECT' && !supported.has(method)) app.addHttpMethod(method, { hasBody: true });
  }
  return app;
}
