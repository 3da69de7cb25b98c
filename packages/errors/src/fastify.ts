/**
 * Fastify 5 adapter for @plumbline/errors: one plugin (global, through fastify-plugin, because
 * error and not-found handling must cover every route) that renders every problem with the core,
 * maps Fastify's own errors (body parser, `FST_ERR_*`, schema validation, 404) to catalogue codes
 * and answers 405 for paths that exist under other methods. @packageDocumentation
 */
import type { FastifyPluginCallback, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { createRequestIdSource, type RequestIdOptions } from './headers.js';
import { HttpError, isHttpError } from './http-error.js';
import {
  type ErrorEvent as CoreErrorEvent,
  type ErrorHandlerOptions as CoreErrorHandlerOptions,
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
  /** Answer 405 (and OPTIONS 204) with `Allow` when the path has routes for other methods. Default true. */
  readonly methodNotAllowed?: boolean;
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

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
      ? METHODS.filter((method) => fastify.findRoute({ method, url }) !== null)
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
