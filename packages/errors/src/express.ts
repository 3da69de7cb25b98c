/**
 * Express adapter for @plumbline/errors (Express 4.21+ and 5). Thin: every decision is made by
 * the core; this file only reads the request and writes the response.
 *
 * @packageDocumentation
 */
import { randomUUID } from 'node:crypto';
import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';
import Negotiator from 'negotiator';
import { defaultCatalogue, type MessageCatalogue } from './catalogue-messages.js';
import { HttpError } from './http-error.js';
import { lookupLanguage } from './language.js';
import { PROBLEM_JSON, PROBLEM_XML, serializeProblem, toHttpError, toProblem } from './problem.js';

const REQUEST_ID = Symbol.for('@plumbline/errors.requestId');
const SANE_REQUEST_ID = /^[A-Za-z0-9._:@+=/-]{1,128}$/;
const MAX_ACCEPT_LENGTH = 1024;

/**
 * Options for {@link requestId}.
 *
 * @example
 * ```ts
 * const options: RequestIdOptions = { header: 'X-Correlation-Id' };
 * ```
 */
export interface RequestIdOptions {
  /** Header read from the request and echoed on the response. Default `X-Request-Id`. */
  readonly header?: string;
  /** Accept a sane incoming id (1–128 of `A-Z a-z 0-9 . _ : @ + = / -`). Default true. */
  readonly trustIncoming?: boolean;
  /** Id generator. Default `crypto.randomUUID`. */
  readonly generate?: () => string;
}

/**
 * Gives every request an id: a sane incoming `X-Request-Id` is kept, anything else is replaced by
 * a fresh UUID. The id is echoed in the response header and appears as `request_id` in problems.
 *
 * @example
 * ```ts
 * app.use(requestId());
 * app.get('/x', (req, res) => res.json({ id: getRequestId(req) }));
 * ```
 */
export function requestId(options: RequestIdOptions = {}): RequestHandler {
  const header = options.header ?? 'X-Request-Id';
  const lower = header.toLowerCase();
  const trustIncoming = options.trustIncoming ?? true;
  const generate = options.generate ?? randomUUID;
  return (req, res, next) => {
    const incoming = req.headers[lower];
    const id =
      trustIncoming && typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming) ? incoming : generate();
    (req as unknown as Record<symbol, string>)[REQUEST_ID] = id;
    res.setHeader(header, id);
    next();
  };
}

/**
 * The id {@link requestId} gave this request, if it ran.
 *
 * @example
 * ```ts
 * logger.info({ requestId: getRequestId(req) }, 'handled');
 * ```
 */
export function getRequestId(req: Request): string | undefined {
  return (req as unknown as Record<symbol, string | undefined>)[REQUEST_ID];
}

/** What the {@link ErrorHandlerOptions.onError} hook receives. */
export interface ErrorEvent {
  /** The normalized error that was sent. */
  readonly error: HttpError;
  /** Whatever was thrown (for a 500: the real cause, for your logs only). */
  readonly original: unknown;
  readonly req: Request;
  /** True when headers were already sent and the connection is closed instead of answered. */
  readonly headersSent: boolean;
}

/**
 * Options for {@link errorHandler}.
 *
 * @example
 * ```ts
 * const options: ErrorHandlerOptions = { docsBaseUrl: 'https://api.example.com/errors', onError: (e) => log.error(e) };
 * ```
 */
export interface ErrorHandlerOptions {
  /** Messages and languages. Default: built-in English and German. */
  readonly catalogue?: MessageCatalogue;
  /** Languages offered for error messages. Default: all languages of the catalogue. */
  readonly languages?: readonly string[];
  /** Language when Accept-Language matches none. Default: the catalogue's fallback (`en`). */
  readonly defaultLanguage?: string;
  /** Base of the `type` link. Default `/errors`. */
  readonly docsBaseUrl?: string;
  /** Called for every error with the original thrown value. Default: `console.error` for 5xx. */
  readonly onError?: (event: ErrorEvent) => void;
  /** `WWW-Authenticate` added to a 401 that has none. Default `Bearer realm="plumbline"`. */
  readonly authenticateChallenge?: string;
  /** `Retry-After` seconds added to a 429 or 503 that has none. Default 1. */
  readonly retryAfterSeconds?: number;
}

// Headers that describe a representation the failed handler may have started; an error body
// replaces that representation, so they must not leak onto it.
const REPRESENTATION_HEADERS = [
  'content-length',
  'content-disposition',
  'content-range',
  'etag',
  'last-modified',
  'location',
];

const PROBLEM_OFFERS = [PROBLEM_JSON, 'application/json', PROBLEM_XML, 'application/xml', 'text/xml'];

/**
 * The problem media type for an Accept header: XML when the client prefers an XML type, JSON in
 * every other case. Errors are never refused with 406.
 *
 * @example
 * ```ts
 * problemMediaType('application/xml'); // 'application/problem+xml'
 * problemMediaType('text/plain'); // 'application/problem+json'
 * ```
 */
export function problemMediaType(accept: string | undefined): string {
  if (!accept) return PROBLEM_JSON;
  const preferred = new Negotiator({ headers: { accept: accept.slice(0, MAX_ACCEPT_LENGTH) } }).mediaType(
    PROBLEM_OFFERS,
  );
  return preferred?.includes('xml') ? PROBLEM_XML : PROBLEM_JSON;
}

function defaultOnError({ error, original }: ErrorEvent): void {
  if (error.status >= 500) console.error('[plumbline] request failed with status', error.status, original);
}

/**
 * The last middleware of an app: turns anything thrown or passed to `next(err)` into a problem
 * document (problem+json, or problem+xml when preferred), localized from Accept-Language, with
 * `Content-Language`, `Vary` and the error's headers. Unknown errors become a generic 500 whatever
 * `NODE_ENV` says: the original goes to `onError`, never to the client. If headers were already
 * sent, it hands over to Express so the connection is closed rather than a second response started.
 *
 * @example
 * ```ts
 * app.use(requestId());
 * app.use(routes);
 * app.use(notFoundHandler());
 * app.use(errorHandler({ onError: ({ original }) => logger.error(original) }));
 * ```
 */
export function errorHandler(options: ErrorHandlerOptions = {}): ErrorRequestHandler {
  const catalogue = options.catalogue ?? defaultCatalogue;
  const languages = options.languages ?? catalogue.languages;
  const defaultLanguage = options.defaultLanguage ?? catalogue.fallbackLanguage;
  const onError = options.onError ?? defaultOnError;
  const challenge = options.authenticateChallenge ?? 'Bearer realm="plumbline"';
  const retryAfter = String(options.retryAfterSeconds ?? 1);
  const docsBaseUrl = options.docsBaseUrl ?? '/errors';

  return (err: unknown, req: Request, res: Response, next: NextFunction) => {
    const error = toHttpError(err);
    try {
      onError({ error, original: err, req, headersSent: res.headersSent });
    } catch {
      // A failing logger must not turn into a second error.
    }
    if (res.headersSent) {
      next(err);
      return;
    }
    const language = lookupLanguage(req.headers['accept-language'], languages, defaultLanguage);
    const mediaType = problemMediaType(req.headers.accept);
    const problem = toProblem(error, {
      instance: (req.originalUrl ?? req.url ?? '/').split('?', 1)[0] ?? '/',
      language,
      catalogue,
      docsBaseUrl,
      ...(getRequestId(req) !== undefined ? { requestId: getRequestId(req)! } : {}),
    });
    const { body, contentType } = serializeProblem(problem, mediaType);

    for (const name of REPRESENTATION_HEADERS) res.removeHeader(name);
    for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
    if (error.status === 401 && !res.hasHeader('www-authenticate'))
      res.setHeader('WWW-Authenticate', challenge);
    if ((error.status === 429 || error.status === 503) && !res.hasHeader('retry-after')) {
      res.setHeader('Retry-After', retryAfter);
    }
    res.vary('Accept');
    res.vary('Accept-Language');
    res.setHeader('Content-Type', contentType);
    res.setHeader('Content-Language', language);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Length', Buffer.byteLength(body));
    res.statusCode = error.status;
    res.end(req.method === 'HEAD' ? undefined : body);
  };
}

/**
 * Answers every request that reached it with 404 `not_found`. Mount after all routes, before
 * {@link errorHandler}.
 *
 * @example
 * ```ts
 * app.use(notFoundHandler());
 * ```
 */
export function notFoundHandler(): RequestHandler {
  return (_req, _res, next) => next(new HttpError('not_found'));
}

/**
 * Options for {@link methodNotAllowed}.
 *
 * @example
 * ```ts
 * const options: MethodNotAllowedOptions = { handleOptions: false };
 * ```
 */
export interface MethodNotAllowedOptions {
  /** Answer OPTIONS with 204 and `Allow` instead of 405. Default true. */
  readonly handleOptions?: boolean;
}

/**
 * For the end of a route: methods that were not handled get 405 `method_not_allowed` with an
 * `Allow` header; OPTIONS gets 204 with the same `Allow`. `HEAD` is added when `GET` is allowed,
 * and `OPTIONS` always.
 *
 * @example
 * ```ts
 * router.route('/projects').get(list).post(create).all(methodNotAllowed(['GET', 'POST']));
 * ```
 */
export function methodNotAllowed(
  allowed: readonly string[],
  options: MethodNotAllowedOptions = {},
): RequestHandler {
  const methods = new Set(allowed.map((m) => m.toUpperCase()));
  if (methods.has('GET')) methods.add('HEAD');
  const handleOptions = options.handleOptions ?? true;
  if (handleOptions) methods.add('OPTIONS');
  const listed = [...methods];
  const allow = listed.join(', ');
  return (req, res, next) => {
    if (handleOptions && req.method === 'OPTIONS') {
      res.setHeader('Allow', allow);
      res.status(204).end();
      return;
    }
    next(
      new HttpError('method_not_allowed', {
        headers: { Allow: allow },
        params: { method: req.method, allowed: listed },
      }),
    );
  };
}

/**
 * Wraps an async handler so a rejected promise reaches `next(err)`. Express 5 does this itself;
 * on Express 4 an unwrapped async handler that rejects leaves the request hanging.
 *
 * @example
 * ```ts
 * app.get('/x', asyncHandler(async (req, res) => res.json(await load())));
 * ```
 */
export function asyncHandler<Req extends Request = Request, Res extends Response = Response>(
  handler: (req: Req, res: Res, next: NextFunction) => unknown,
): (req: Req, res: Res, next: NextFunction) => void {
  return (req, res, next) => {
    try {
      const result = handler(req, res, next);
      if (result && typeof (result as Promise<unknown>).then === 'function') {
        (result as Promise<unknown>).then(undefined, next);
      }
    } catch (error) {
      next(error);
    }
  };
}
