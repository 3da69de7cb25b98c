/**
 * Express adapter for @plumbline/errors (Express 4.21+ and 5): the core renders every problem;
 * this file only reads the request and writes the response. @packageDocumentation
 */
import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';
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

export { problemMediaType } from './problem.js';
export type { MethodNotAllowedOptions, RequestIdOptions };

const REQUEST_ID = Symbol.for('@plumbline/errors.requestId');

/**
 * Gives every request an id: a sane incoming `X-Request-Id` is kept, anything else is replaced by
 * a fresh UUID (the core's `createRequestIdSource`), echoed in `X-Request-Id` and `request_id`.
 * @example
 * ```ts
 * app.use(requestId());
 * app.get('/x', (req, res) => res.json({ id: getRequestId(req) }));
 * ```
 */
export function requestId(options: RequestIdOptions = {}): RequestHandler {
  const source = createRequestIdSource(options);
  return (req, res, next) => {
    const id = source.idFor(req.headers[source.lowerHeader]);
    (req as unknown as Record<symbol, string>)[REQUEST_ID] = id;
    res.setHeader(source.header, id);
    next();
  };
}

/**
 * The id {@link requestId} gave this request, if it ran.
 * @example
 * ```ts
 * logger.info({ requestId: getRequestId(req) }, 'handled');
 * ```
 */
export function getRequestId(req: Request): string | undefined {
  return (req as unknown as Record<symbol, string | undefined>)[REQUEST_ID];
}

/**
 * What `onError` receives (the core's `ErrorEvent` for Express requests).
 * @example
 * ```ts
 * const options: ErrorHandlerOptions = { onError: (event: ErrorEvent) => log.error(event.original) };
 * ```
 */
export type ErrorEvent = CoreErrorEvent<Request>;
/**
 * Options for {@link errorHandler}: the core renderer's options plus `onError` (see {@link ErrorEvent}).
 * @example `errorHandler({ docsBaseUrl: 'https://api.example.com/errors' })`
 */
export type ErrorHandlerOptions = CoreErrorHandlerOptions<Request>;

/**
 * The last middleware of an app: answers anything thrown or passed to `next(err)` with the core's
 * `createProblemRenderer` (negotiated JSON/XML, language, Vary, request id; unknown errors become a
 * generic 500, the original goes to `onError` only). After headers were sent it hands over to
 * Express, which closes the connection.
 * @example
 * ```ts
 * app.use(requestId());
 * app.use(routes);
 * app.use(notFoundHandler());
 * app.use(errorHandler({ onError: ({ original }) => logger.error(original) }));
 * ```
 */
export function errorHandler(options: ErrorHandlerOptions = {}): ErrorRequestHandler {
  const render = createProblemRenderer(options);
  return (err: unknown, req: Request, res: Response, next: NextFunction) => {
    const rendered = render(err, {
      accept: req.headers.accept,
      acceptLanguage: req.headers['accept-language'],
      instance: req.originalUrl ?? req.url ?? '/',
      requestId: getRequestId(req),
      responseHeader: (name) => res.getHeader(name),
    });
    reportError(options.onError, { error: rendered.error, original: err, req, headersSent: res.headersSent });
    if (res.headersSent) {
      next(err);
      return;
    }
    for (const name of rendered.removeHeaders) res.removeHeader(name);
    for (const [name, value] of Object.entries(rendered.headers)) res.setHeader(name, value);
    res.setHeader('Content-Length', Buffer.byteLength(rendered.body));
    res.statusCode = rendered.status;
    res.end(req.method === 'HEAD' ? undefined : rendered.body);
  };
}

/**
 * Answers every request that reached it with 404 `not_found`. Mount after all routes.
 * @example
 * ```ts
 * app.use(notFoundHandler());
 * ```
 */
export function notFoundHandler(): RequestHandler {
  return (_req, _res, next) => next(new HttpError('not_found'));
}

/**
 * For the end of a route: other methods get 405 `method_not_allowed` with `Allow`, OPTIONS gets
 * 204 with `Allow` (the core's `createMethodGuard`: `HEAD` follows `GET`, `OPTIONS` is always in).
 * @example
 * ```ts
 * router.route('/projects').get(list).post(create).all(methodNotAllowed(['GET', 'POST']));
 * ```
 */
export function methodNotAllowed(
  allowed: readonly string[],
  options: MethodNotAllowedOptions = {},
): RequestHandler {
  const guard = createMethodGuard(allowed, options);
  return (req, res, next) => {
    const answer = guard.answer(req.method);
    if (isHttpError(answer)) return next(answer);
    res.setHeader('Allow', answer.headers.Allow);
    res.status(204).end();
  };
}

/**
 * Wraps an async handler so a rejected promise reaches `next(err)`. Express 5 does this itself;
 * on Express 4 an unwrapped async handler that rejects leaves the request hanging.
 * @example
 * ```ts
 * app.get('/x', asyncHandler(async (req, res) => res.json(await load())));
 * ```
 */
export function asyncHandler<Req extends Request = Request, Res extends Response = Response>(
  handler: (req: Req, res: Res, next: NextFunction) => unknown,
): (req: Req, res: Res, next: NextFunction) => void {
  // A synchronous throw inside the executor rejects the promise too.
  return (req, res, next) => {
    new Promise((resolve) => resolve(handler(req, res, next))).catch(next);
  };
}
