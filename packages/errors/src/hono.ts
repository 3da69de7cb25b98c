/**
 * Hono adapter for @plumbline/errors (Hono 4 on Node, Bun, Deno and Workers): the core renders
 * every problem; this file only reads the Web `Request` and writes through Hono's `Context`.
 * Nothing here needs Node: the request id comes from Web Crypto. @packageDocumentation
 */
import type { Context, ErrorHandler, Handler, MiddlewareHandler, NotFoundHandler } from 'hono';
import { createRequestIdSource, type RequestIdOptions } from './headers.js';
import { HttpError, isHttpError } from './http-error.js';
import {
  type ErrorEvent as CoreErrorEvent,
  type ErrorHandlerOptions as CoreErrorHandlerOptions,
  createMethodGuard,
  createProblemRenderer,
  type MethodNotAllowedOptions,
  reportError,
} from './render.js';

export type { MethodNotAllowedOptions, RequestIdOptions };

import { rawXHeader, requestHeader, requestPath } from './hono-headers.js';
import { nodeResponse, responseHeader } from './hono-node.js';
import { setResponseHeaders } from './hono-response.js';

export { responseParts, sentHeaders } from './hono-node.js';
export { plainResponse, setResponseHeaders, withResponseHeaders } from './hono-response.js';
export { requestHeader, requestPath };

declare module 'hono' {
  interface ContextVariableMap {
    /** Set by `requestId()` of `@plumbline/errors/hono`. */
    requestId: string;
  }
}

/**
 * What `onError` receives (the core's `ErrorEvent` with Hono's `Context` as `req`).
 * @example
 * ```ts
 * const log = (event: ErrorEvent) => console.error(event.original);
 * ```
 */
export type ErrorEvent = CoreErrorEvent<Context>;
/**
 * Options of {@link problemDetails}: the core renderer's options, `onError` and `requestId`.
 * @example
 * ```ts
 * const options: ProblemDetailsOptions = { docsBaseUrl: 'https://api.example.com/errors' };
 * ```
 */
export interface ProblemDetailsOptions extends CoreErrorHandlerOptions<Context> {
  /** Request id rule (`X-Request-Id` by default); `false` leaves ids out. */
  readonly requestId?: RequestIdOptions | false;
}

/**
 * The three pieces Hono needs, built from one configuration: `middleware` (mount first: request
 * id, plus values thrown that are not `Error`s, which Hono's `onError` never sees), `onError` and
 * `notFound`. Every problem is rendered by the core's `createProblemRenderer`, so the bytes match
 * the Express and Fastify adapters.
 * @example
 * ```ts
 * const problems = problemDetails();
 * app.use(problems.middleware);
 * app.onError(problems.onError);
 * app.notFound(problems.notFound);
 * ```
 */
export function problemDetails(options: ProblemDetailsOptions = {}): {
  readonly middleware: MiddlewareHandler;
  readonly onError: ErrorHandler;
  readonly notFound: NotFoundHandler;
} {
  const render = createProblemRenderer(options);
  const ids = options.requestId === false ? undefined : createRequestIdSource(options.requestId);
  const xHeader = ids?.lowerHeader.startsWith('x-') ?? false;

  const answer = (thrown: unknown, c: Context): Response => {
    const rendered = render(thrown, {
      accept: c.req.header('accept'),
      acceptLanguage: c.req.header('accept-language'),
      instance: requestPath(c),
      requestId: c.get('requestId'),
      // Headers set so far, on Hono's response and (on @hono/node-server) on Node's.
      responseHeader: (name) => responseHeader(c, name),
    });
    reportError(options.onError, { error: rendered.error, original: thrown, req: c, headersSent: false });
    const out = nodeResponse(c);
    for (const name of rendered.removeHeaders) {
      c.header(name, undefined);
      out?.removeHeader(name);
    }
    for (const [name, value] of Object.entries(rendered.headers)) c.header(name, value);
    return c.body(rendered.body, rendered.status as 400);
  };

  return {
    middleware: async (c, next) => {
      if (ids) {
        const id = ids.idFor(xHeader ? rawXHeader(c, ids.lowerHeader) : c.req.header(ids.lowerHeader));
        c.set('requestId', id);
        setResponseHeaders(c, { [ids.header]: id });
      }
      try {
        await next();
      } catch (thrown) {
        c.res = answer(thrown, c);
      }
    },
    onError: (error, c) => answer(error, c),
    notFound: (c) => answer(new HttpError('not_found'), c),
  };
}

/**
 * The id `problemDetails().middleware` gave this request (`c.get('requestId')`), if it ran.
 * @example
 * ```ts
 * app.get('/x', (c) => c.json({ id: getRequestId(c) }));
 * ```
 */
export function getRequestId(c: Context): string | undefined {
  return c.get('requestId');
}

/**
 * For the end of a path: other methods get 405 `method_not_allowed` with `Allow`, OPTIONS gets 204
 * with `Allow` (the core's `createMethodGuard`).
 * @example
 * ```ts
 * app.get('/projects', list).all('/projects', methodNotAllowed(['GET']));
 * ```
 */
export function methodNotAllowed(allowed: readonly string[], options: MethodNotAllowedOptions = {}): Handler {
  const guard = createMethodGuard(allowed, options);
  return (c) => {
    const answer = guard.answer(c.req.method);
    if (isHttpError(answer)) throw answer;
    return c.body(null, 204, { Allow: answer.headers.Allow });
  };
}
