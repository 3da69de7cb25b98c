/**
 * Express adapter for @plumbline/negotiation (Express 4.21+ and 5). Every decision is made by the
 * core; this file reads headers and writes the response. @packageDocumentation
 */
import type { Request, RequestHandler, Response } from 'express';
import {
  type ContentNegotiator,
  createNegotiator,
  type Negotiation,
  type NegotiatorOptions,
} from './index.js';
import { checkRequestBody } from './request-body.js';
import { notModifiedOr, representation, requestHasBody } from './respond.js';

const STATE = Symbol.for('@plumbline/negotiation.state');

type Carrier = Record<symbol, { negotiation: Negotiation; negotiator: ContentNegotiator } | undefined>;

/**
 * Options for {@link negotiate}: the core options of `createNegotiator`.
 *
 * @example
 * ```ts
 * const options: NegotiateOptions = { types: ['application/json', 'application/xml'], languages: ['en', 'de'] };
 * ```
 */
export type NegotiateOptions = NegotiatorOptions;

/**
 * Negotiates the response media type and language once per request. Sets
 * `Vary: Accept, Accept-Language` (merged into any existing Vary, never duplicated) and
 * `Content-Language`; the decision is then available through {@link getNegotiation} and used by
 * {@link represent}. When no offered type is acceptable it passes a 406 `not_acceptable` to
 * `next`, for the `@plumbline/errors` error handler to answer (in JSON, never with another 406).
 *
 * @example
 * ```ts
 * app.use(negotiate({ languages: ['en', 'de'] }));
 * app.get('/projects/:id', (req, res) => represent(res, { id: req.params.id }));
 * app.use(errorHandler());
 * ```
 */
export function negotiate(options: NegotiateOptions = {}): RequestHandler {
  const negotiator = createNegotiator(options);
  return (req, res, next) => {
    const result = negotiator.negotiate({
      accept: req.headers.accept,
      acceptLanguage: req.headers['accept-language'],
    });
    res.vary('Accept');
    res.vary('Accept-Language');
    if (!result.ok) {
      next(result.error);
      return;
    }
    const state = { negotiation: result, negotiator };
    (req as unknown as Carrier)[STATE] = state;
    (res as unknown as Carrier)[STATE] = state;
    res.setHeader('Content-Language', result.language);
    next();
  };
}

/**
 * The decision {@link negotiate} made for this request, or `undefined` when it did not run.
 *
 * @example
 * ```ts
 * const negotiation = getNegotiation(req);
 * if (negotiation?.vendor) useVersion(negotiation.vendor.version);
 * ```
 */
export function getNegotiation(req: Request): Negotiation | undefined {
  return (req as unknown as Carrier)[STATE]?.negotiation;
}

/**
 * Sends `data` in the negotiated media type with `Content-Type`, `Content-Language`, `Vary` and a
 * strong `ETag` (kept when the route set one); a 304 to a GET or HEAD that `isNotModified` says is
 * not modified (the core decides, not Express's `req.fresh`). Throws when {@link negotiate} did not
 * run for the request: that is a wiring mistake, not a client error.
 *
 * @example
 * ```ts
 * app.post('/projects', (req, res) => {
 *   const project = create(req.body);
 *   res.location(`/projects/${project.id}`);
 *   represent(res, project, 201);
 * });
 * ```
 */
export function represent(res: Response, data: unknown, status = 200): Response {
  const state = (res as unknown as Carrier)[STATE];
  if (!state) throw new Error('represent() needs the negotiate() middleware to run first on this route');
  const response = notModifiedOr(
    representation(state.negotiator, state.negotiation, data, status),
    res.req.method,
    (name) => res.req.headers[name] as string | undefined,
    (name) => res.getHeader(name) as string | undefined,
  );
  res.status(response.status).vary('Accept').vary('Accept-Language');
  for (const [name, value] of Object.entries(response.headers)) {
    if (name !== 'Vary' && !(name === 'ETag' && res.getHeader('ETag') !== undefined))
      res.setHeader(name, value);
  }
  const { body } = response;
  // res.end, not res.send, whose req.fresh refuses 304 to Cache-Control: no-cache. No body on HEAD: Node.
  if (body === null) {
    for (const name of ['Content-Type', 'Content-Length']) res.removeHeader(name);
    return res.end();
  }
  const bytes =
    typeof body === 'string' ? Buffer.from(body) : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return res.setHeader('Content-Length', bytes.byteLength).end(bytes);
}

/**
 * Rejects a request body whose Content-Type is missing or not one of `types` with 415
 * `unsupported_media_type` and `Accept-Post` / `Accept-Patch` / `Accept`. Requests without a body
 * pass. Mount before the body parser so an unsupported body is never parsed.
 *
 * @example
 * ```ts
 * app.patch('/projects/:id', requireContentType('application/merge-patch+json', 'application/json'),
 *   express.json({ type: ['application/json', 'application/merge-patch+json'] }), update);
 * ```
 */
export function requireContentType(...types: readonly string[]): RequestHandler {
  const accepted = Object.freeze([...types]);
  // Validate at configuration time: a typo must fail at startup, not on the first request.
  checkRequestBody({ contentType: undefined, hasBody: false, method: 'GET', accepted });
  return (req, _res, next) => {
    const result = checkRequestBody({
      contentType: req.headers['content-type'],
      hasBody: requestHasBody(req.headers['content-length'], req.headers['transfer-encoding']),
      method: req.method,
      accepted,
    });
    next(result.ok ? undefined : result.error);
  };
}

export {
  type ConditionalOptions,
  conditional,
  entityTagOf,
  getPreconditions,
  type PreconditionState,
} from './express-conditional.js';
