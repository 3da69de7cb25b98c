/**
 * The limits of service/limits.ts on Express: each middleware reads plain values off the request, asks the
 * neutral decision, and sets or throws what it says.
 */
import type { RequestHandler } from 'express';
import { checkQueryLength, type Limiter, NO_STORE_HEADERS } from '../../service/limits.js';

/** docs/design.md#d-limits: a query string longer than 2 KiB is refused before anything parses it. */
export const limitQueryString: RequestHandler = (req, _res, next) => {
  checkQueryLength(req.originalUrl);
  next();
};

/** Sets {@link NO_STORE_HEADERS}; mount on the token and revocation paths. */
export const noStore: RequestHandler = (_req, res, next) => {
  for (const [name, value] of Object.entries(NO_STORE_HEADERS)) res.setHeader(name, value);
  next();
};

/**
 * Runs `limiter` for the key `keyOf` gives: sets its headers, answers a spent limit with the
 * 429 problem through the error handler, and settles the hit when the response finishes.
 * `skip` requests are not counted.
 */
export function rateLimitMiddleware(
  limiter: Limiter,
  keyOf: (req: Parameters<RequestHandler>[0]) => string,
  skip: (req: Parameters<RequestHandler>[0]) => boolean = () => false,
): RequestHandler {
  return async (req, res, next) => {
    if (skip(req)) {
      next();
      return;
    }
    const decision = await limiter.consume(keyOf(req));
    if (decision === undefined) {
      next();
      return;
    }
    if (!res.headersSent)
      for (const [name, value] of Object.entries(decision.headers)) res.setHeader(name, value);
    res.once('finish', () => void decision.settle(res.statusCode));
    next(decision.exceeded ? decision.error : undefined);
  };
}
