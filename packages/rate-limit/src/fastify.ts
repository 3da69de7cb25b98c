/**
 * Fastify 5 adapter for @plumbline/rate-limit. @packageDocumentation
 */
import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { Limiter } from './limiter.js';

/**
 * Options of {@link rateLimit}.
 *
 * @example
 * ```ts
 * const options: RateLimitOptions = { key: (request) => addressKey(request.ip) };
 * ```
 */
export interface RateLimitOptions {
  /** The key a request counts under (`addressKey`, `principalKey` from `@plumbline/rate-limit`, or your own). */
  readonly key: (request: FastifyRequest) => string;
  /** Requests that are not counted (and get no RateLimit headers). */
  readonly skip?: (request: FastifyRequest) => boolean;
}

/**
 * An `onRequest` hook counting each request under `options.key(request)`: it sets the limiter's
 * headers, throws a spent limit's 429 `rate_limited` problem (rendered by
 * `@plumbline/errors/fastify`'s `plumblineErrors`), and settles the hit when the response has
 * finished. A store that fails lets the request pass without headers.
 *
 * @example
 * ```ts
 * await app.register(plumblineErrors);
 * app.addHook('onRequest', rateLimit(createLimiter({ limit: 300 }), { key: (request) => addressKey(request.ip) }));
 * ```
 */
export function rateLimit(limiter: Limiter, options: RateLimitOptions): onRequestAsyncHookHandler {
  const { key, skip } = options;
  return async (request, reply) => {
    if (skip?.(request)) return;
    const decision = await limiter.consume(key(request));
    if (decision === undefined) return;
    reply.headers(decision.headers);
    reply.raw.once('finish', () => void decision.settle(reply.raw.statusCode));
    if (decision.exceeded) throw decision.error;
  };
}
