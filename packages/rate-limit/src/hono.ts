/**
 * Hono adapter for @plumbline/rate-limit (Node, Bun, Deno: the core uses `node:crypto` and `node:net`). @packageDocumentation
 */
import { setResponseHeaders } from '@plumbline/errors/hono';
import type { Context, MiddlewareHandler } from 'hono';
import type { Limiter } from './limiter.js';

/**
 * Options of {@link rateLimit}.
 *
 * @example
 * ```ts
 * const options: RateLimitOptions = { key: (c) => addressKey(c.req.header('x-real-ip')) };
 * ```
 */
export interface RateLimitOptions {
  /** The key a request counts under (`addressKey`, `principalKey` from `@plumbline/rate-limit`, or your own). */
  readonly key: (c: Context) => string;
  /** Requests that are not counted (and get no RateLimit headers). */
  readonly skip?: (c: Context) => boolean;
}

/**
 * Hono middleware counting each request under `options.key(c)`: it sets the limiter's headers
 * (through `@plumbline/errors/hono`'s `setResponseHeaders`), throws a spent limit's 429
 * `rate_limited` problem (rendered by its `problemDetails`), and settles the hit with the status of
 * the response the rest of the app made. A store that fails lets the request pass without headers.
 *
 * @example
 * ```ts
 * const problems = problemDetails();
 * app.use(problems.middleware);
 * app.onError(problems.onError);
 * app.use(rateLimit(createLimiter({ limit: 300 }), { key: (c) => addressKey(c.req.header('x-real-ip')) }));
 * ```
 */
export function rateLimit(limiter: Limiter, options: RateLimitOptions): MiddlewareHandler {
  const { key, skip } = options;
  return async (c, next) => {
    if (skip?.(c)) return next();
    const decision = await limiter.consume(key(c));
    if (decision === undefined) return next();
    setResponseHeaders(c, decision.headers);
    if (decision.exceeded) throw decision.error;
    // A handler's error is already a response here (Hono's onError); a value thrown past it is
    // answered further out and its hit stays counted, as a failure.
    await next();
    void decision.settle(c.res.status);
  };
}
