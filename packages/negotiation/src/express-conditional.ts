/**
 * Express adapter for conditional requests: `conditional()` evaluates the preconditions of one route
 * with the core's `evaluatePreconditions`, `entityTagOf()` gives the tag `represent` would send, and
 * `notModified(app)` makes `res.send` answer 304 as the core's `isNotModifiedResponse` decides.
 */
import type { Express, Request, RequestHandler, Response } from 'express';
import {
  checkPreconditions,
  isNotModifiedResponse,
  type PreconditionState,
  type Validators,
} from './conditional.js';

export type { PreconditionState };

import { type Negotiation, negotiatorOf } from './negotiator.js';
import { representationTag } from './respond.js';

// The decision negotiate() leaves on the request (express.ts), and what conditional() leaves on the request.
const NEGOTIATED = Symbol.for('@plumbline/negotiation.state');
const CHECKED = Symbol.for('@plumbline/negotiation.preconditions');

type Carrier = Record<symbol, unknown>;

/**
 * Options of {@link conditional}: `current` loads the validators of the target resource
 * (`undefined` when it has no current representation; throw an `HttpError` such as 404 or 410 when
 * the request would fail without its preconditions); `requirePrecondition` answers an unsafe request
 * on an existing resource without `If-Match` or `If-Unmodified-Since` with 428.
 *
 * @example
 * ```ts
 * const options: ConditionalOptions = { current: async (req) => store.validators(req.params.id), requirePrecondition: true };
 * ```
 */
export interface ConditionalOptions {
  /** Loads the current validators of the target resource; `undefined` when it has none. */
  readonly current: (req: Request, res: Response) => Validators | undefined | Promise<Validators | undefined>;
  /** Answer 428 to an unsafe request on an existing resource without If-Match or If-Unmodified-Since. */
  readonly requirePrecondition?: boolean;
}

/**
 * Route middleware for conditional requests (RFC 9110 section 13): loads the current validators,
 * answers 304 (GET/HEAD), 412 `precondition_failed` or 428 `precondition_required` (passed to
 * `next` for the `@plumbline/errors` handler), or lets the request through; a GET that proceeds
 * gets the current `ETag` and `Last-Modified`.
 *
 * @example
 * ```ts
 * const preconditions = conditional({ current: async (req, res) => ({ etag: entityTagOf(res, await load(req.params.id)) }) });
 * app.put('/projects/:id', preconditions, express.json(), async (req, res) => represent(res, await save(req.body)));
 * ```
 */
export function conditional(options: ConditionalOptions): RequestHandler {
  const { current, requirePrecondition = false } = options;
  return async (req, res, next) => {
    try {
      const step = checkPreconditions(
        req.method,
        (name) => req.headers[name] as string | undefined,
        await current(req, res),
        requirePrecondition,
      );
      if (step.outcome === 'failed') return next(step.error);
      for (const [name, value] of Object.entries(step.headers)) res.setHeader(name, value);
      if (step.outcome === 'not-modified') return void res.status(304).end();
      (req as unknown as Carrier)[CHECKED] = step.state;
      next();
    } catch (error) {
      next(error);
    }
  };
}

/**
 * What {@link conditional} decided for this request, or `undefined` when it did not run.
 *
 * @example
 * ```ts
 * if (getPreconditions(req)?.conditional) await store.updateIfUnchanged(id, data, version);
 * ```
 */
export function getPreconditions(req: Request): PreconditionState | undefined {
  return (req as unknown as Carrier)[CHECKED] as PreconditionState | undefined;
}

/**
 * The strong `ETag` that `represent(res, data)` would send: use it as the `current` tag so a
 * precondition compares with what GET gave the client. Needs `negotiate()` to have run.
 *
 * @example
 * ```ts
 * conditional({ current: async (req, res) => ({ etag: entityTagOf(res, await load(req.params.id)) }) });
 * ```
 */
export function entityTagOf(res: Response, data: unknown): string {
  const negotiation = (res.req as unknown as Carrier)[NEGOTIATED] as Negotiation | undefined;
  const negotiator = negotiatorOf(negotiation);
  if (!negotiation || !negotiator)
    throw new Error('entityTagOf() needs the negotiate() middleware to run first on this route');
  return representationTag(negotiator, negotiation, data);
}

/**
 * Makes every `res.send` of `app` (and so `res.json`, `res.jsonp` and `res.sendStatus`) answer 304
 * exactly when `represent` and the Fastify and Hono `notModified` do: a GET or HEAD about to be
 * answered 200 whose `If-None-Match` matches the `ETag` the route set (weak comparison, `*` matches),
 * or without `If-None-Match`, whose `If-Modified-Since` is not earlier than its `Last-Modified`
 * (the core's `isNotModifiedResponse`). `res.send` then sends no body and drops `Content-Type`,
 * `Content-Length` and `Transfer-Encoding`; every other header stays.
 *
 * Express already answers 304 from `res.send`, but asks `req.fresh`, the `fresh` package, which
 * refuses a 304 to any request with `Cache-Control: no-cache` (what `fetch` sends whenever it
 * revalidates) and answers 304 for any 2xx. This replaces `req.fresh` on `app.request`, the prototype
 * of the app's requests: its routers, and apps mounted on it (their requests inherit from it), get
 * it too, and it costs nothing per request. It is a function of the app rather than a middleware
 * because `res.send` reads `req.fresh` whatever middleware ran: a middleware would have to define the
 * property on each request (a cost per request) or change that prototype anyway. Call it once, where
 * the app is made. `res.end`, `res.sendFile` and `express.static` do not ask `req.fresh`; Express's
 * own weak `ETag` (the `etag` setting, on by default) is compared like any other.
 *
 * @example
 * ```ts
 * const app = express();
 * notModified(app);
 * app.get('/report', (req, res) => {
 *   res.set({ ETag: '"r42"', 'Cache-Control': 'no-cache' });
 *   res.json(report); // 304 to If-None-Match: "r42", with or without Cache-Control: no-cache
 * });
 * ```
 */
export function notModified(app: Express): void {
  Object.defineProperty(app.request, 'fresh', {
    configurable: true,
    enumerable: true,
    get(this: Request): boolean {
      const res = this.res;
      return (
        res !== undefined &&
        isNotModifiedResponse(this.method, res.statusCode, this.headers, (name) => res.getHeader(name))
      );
    },
  });
}
