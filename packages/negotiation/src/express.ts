/**
 * Express adapter for @plumbline/negotiation (Express 4.21+ and 5). Every decision is made by the
 * core; this file reads headers and writes the response. @packageDocumentation
 */
import type { Request, RequestHandler, Response } from 'express';
import { createNegotiator, type Negotiation, type NegotiatorOptions, negotiatorOf } from './negotiator.js';
import { NEGOTIATION_VARY, notModifiedOr, representation } from './respond.js';

// The decision, on the request only (`res.req` reaches it); its negotiator is `negotiatorOf` it.
const STATE = Symbol.for('@plumbline/negotiation.state');

type Carrier = Record<symbol, Negotiation | undefined>;

// With no Vary yet (the usual case) the value is set whole, as the two `res.vary` calls would leave it.
function addVary(res: Response): void {
  if (res.getHeader('Vary') === undefined) res.setHeader('Vary', NEGOTIATION_VARY);
  else {
    res.vary('Accept');
    res.vary('Accept-Language');
  }
}

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
    addVary(res);
    if (!result.ok) {
      next(result.error);
      return;
    }
    (req as unknown as Carrier)[STATE] = result;
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
  return (req as unknown as Carrier)[STATE];
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
  const negotiation = (res.req as unknown as Carrier)[STATE];
  const negotiator = negotiatorOf(negotiation);
  if (!negotiation || !negotiator)
    throw new Error('represent() needs the negotiate() middleware to run first on this route');
  const response = notModifiedOr(
    representation(negotiator, negotiation, data, status),
    res.req.method,
    (name) => res.req.headers[name] as string | undefined,
    (name) => res.getHeader(name) as string | undefined,
  );
  res.status(response.status);
  addVary(res);
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

export {
  type ConditionalOptions,
  conditional,
  entityTagOf,
  getPreconditions,
  notModified,
  type PreconditionState,
} from './express-conditional.js';
export { requireContentType } from './express-request-body.js';
