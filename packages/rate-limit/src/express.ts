/**
 * Express adapter for @plumbline/rate-limit (Express 4 and 5). @packageDocumentation
 */
import type { Request, RequestHandler } from 'express';
import type { Limiter } from './limiter.js';

/**
 * Options of {@link rateLimit}.
 *
 * @example
 * ```ts
 * const options: RateLimitOptions = { key: (req) => addressKey(req.ip), skip: (req) => req.path === '/health' };
 * ```
 */
export interface RateLimitOptions {
  /** The key a request counts under (`addressKey`, `principalKey` from `@plumbline/rate-limit`, or your own). */
  readonly key: (req: Request) => string;
  /** Requests that are not counted (and get no RateLimit headers). */
  readonly skip?: (req: Request) => boolean;
}

/**
 * Express middleware counting each request under `options.key(req)`: it sets the limiter's
 * headers, passes a spent limit's 429 `rate_limited` problem to `next` (render it with
 * `@plumbline/errors/express`'s `errorHandler`), and settles the hit when the response has
 * finished. A store that fails lets the request pass without headers.
 *
 * @example
 * ```ts
 * app.use(rateLimit(createLimiter({ limit: 300 }), { key: (req) => addressKey(req.ip) }));
 * app.use(errorHandler());
 * ```
 */
export function rateLimit(limiter: Limiter, options: RateLimitOptions): RequestHandler {
  const { key, skip } = options;
  return async (req, res, next) => {
    try {
      if (skip?.(req)) return next();
      const decision = await limiter.consume(key(req));
      if (decision === undefined) return next();
      if (!res.headersSent) for (const name in decision.headers) res.setHeader(name, decision.headers[name]!);
      res.once('finish', () => void decision.settle(res.statusCode));
      next(decision.exceeded ? decision.error : undefined);
    } catch (error) {
      next(error);
    }
  };
}
