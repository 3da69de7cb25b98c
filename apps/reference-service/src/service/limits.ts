/**
 * The service's limits (docs/design.md#d-limits) as framework-neutral decisions: the query-string
 * length, and the two rate limits (failed requests per client address; every request per
 * principal). A wiring reads plain values off its request, calls these, and sends what they say.
 *
 * Decision (issue #31): the limiter, its keys and its stores are @plumbline/rate-limit's (draft-8
 * `RateLimit`/`RateLimit-Policy`, `Retry-After`, a request passes on a store error, the failure
 * limiter's skip-successful mode); this module only says which two limits the service has and where
 * they count. Its Redis counters keep the key layout rate-limit-redis used before (`rl:` + key), so
 * instances of the previous release and of this one share them during a rolling deploy.
 */
import { HttpError } from '@plumbline/errors';
import {
  type Circuit,
  createLimiter,
  FallbackStore,
  type Limiter,
  RedisStore,
  type Store,
} from '@plumbline/rate-limit';
import type { AppContext } from './context.js';

/**
 * The longest query string accepted (bytes after `?`): @plumbline/query-parser's default
 * `maxQueryLength`, which the collections measure again as their page links write the query (and
 * a search body as the query string it is equivalent to).
 */
export const MAX_QUERY_BYTES = 2048;

/**
 * The longest `Link` header the service sends (docs/design.md#d-limits). A collection page links
 * `self`, `first`, `prev`, `next` and `last`, each `<path?query>; rel="…"`: path + query + 11 bytes
 * plus the rel, and `&version=2` (10 bytes) more under the query strategy. Every link's query is at
 * most {@link MAX_QUERY_BYTES} (@plumbline/query-parser refuses a longer one), so the five take at
 * most 5 × (path + 2048 + 21) + 29 bytes: 11 009 for the longest collection path,
 * `/v1/projects/{id}/tasks` with a percent-encoded id (127 bytes; Express and Fastify keep the
 * encoding in the links). v1 adds its deprecation and sunset links and a successor-version link that
 * repeats the request path (derived only from a path of at most 2048 characters). The rest of the
 * 16 KiB Node clients accept for the whole header section is far more than the other headers take.
 */
export const MAX_LINK_HEADER_BYTES = 12 * 1024;

/**
 * docs/design.md#d-limits: throws 400 `query_too_long` for a request target whose query string is
 * longer than 2 KiB, before anything parses it. `url` is the request target as received.
 *
 * @example
 * ```ts
 * checkQueryLength(`/v2/projects?q=${'x'.repeat(3000)}`); // throws HttpError query_too_long
 * ```
 */
export function checkQueryLength(url: string): void {
  const at = url.indexOf('?');
  if (at >= 0 && url.length - at - 1 > MAX_QUERY_BYTES) {
    throw new HttpError('query_too_long', { params: { max: MAX_QUERY_BYTES } });
  }
}

/** Liveness and readiness probes never wait for a dependency, nor for the rate limiter's store. */
export const PROBES: ReadonlySet<string> = new Set(['/health', '/ready']);

/** Token and revocation answers are never cached, including the 405, 413 and 429 ones (RFC 6749 5.1). */
export const NO_STORE_HEADERS: Readonly<Record<string, string>> = {
  'Cache-Control': 'no-store',
  Pragma: 'no-cache',
};

/** The paths whose every answer carries {@link NO_STORE_HEADERS}. */
export const NO_STORE_PATHS: readonly string[] = ['/oauth/token', '/oauth/revoke'];

/**
 * The shared store of one limiter (`name`: `fail`, `principal`) when Redis is configured, else
 * `undefined` (each instance counts in memory). When Redis fails or stalls, each instance counts
 * locally (FallbackStore explains the policy); limiters sharing `circuit` switch together.
 */
function limiterStore(ctx: AppContext, name: string, circuit: Circuit): Store | undefined {
  const redis = ctx.redis;
  if (!redis) return undefined;
  return new FallbackStore({
    primary: new RedisStore({
      client: redis,
      prefix: `${ctx.config.redisKeyPrefix}rl:${name}:`,
      timeoutMs: ctx.config.timeouts.redisCommandMs,
    }),
    timeoutMs: ctx.config.timeouts.redisCommandMs,
    circuit,
  });
}

/** The service's two limiters. */
export interface ServiceLimiters {
  /** Failed requests per client address (`addressKey`), before authentication; skip {@link PROBES}. */
  readonly failures: Limiter;
  /** Every request per principal (`principalKey`), after authentication; sends draft-8 headers. */
  readonly principal: Limiter;
}

/**
 * Both limiters of one app, on Redis when configured. One circuit for both: a request passing
 * both waits for at most one Redis deadline.
 */
export function createServiceLimiters(ctx: AppContext): ServiceLimiters {
  const circuit: Circuit = { localUntil: 0 };
  const limit = ctx.config.rateLimitPerMinute;
  return {
    // Guessing keys or secrets is throttled even though a guesser never becomes a principal.
    failures: createLimiter({
      limit,
      headers: false,
      skipSuccessful: true,
      store: limiterStore(ctx, 'fail', circuit),
    }),
    principal: createLimiter({ limit, headers: 'draft-8', store: limiterStore(ctx, 'principal', circuit) }),
  };
}
