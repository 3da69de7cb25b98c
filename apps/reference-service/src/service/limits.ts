/**
 * The service's limits (docs/design.md#d-limits) as framework-neutral decisions: the query-string
 * length, and the two rate limits (failed requests per client address; every request per
 * principal). A wiring reads plain values off its request, calls these, and sends what they say.
 *
 * Decision (issue #21): one small limiter here, over express-rate-limit's `Store` interface, serves
 * all three wirings, Express included. The stores stay library code (rate-limit-redis's RedisStore,
 * express-rate-limit's MemoryStore, service/rate-limit-store.ts's FallbackStore): they are framework-free.
 * The limiter reproduces what express-rate-limit 8 did on Express byte for byte — the key, the
 * count, draft-8 `RateLimit`/`RateLimit-Policy` (quota name `60-in-1min`, `pk` the base64 of the
 * key's sha256 prefix), `Retry-After`, passing the request on a store error, and the failure
 * limiter's skip-successful mode (the hit is taken back when the answer's status is below 400,
 * unless its window has already ended) — so one implementation gives the same bytes everywhere.
 */
import { createHash } from 'node:crypto';
import { HttpError } from '@plumbline/errors';
import { ipKeyGenerator, MemoryStore, type Options, type Store } from 'express-rate-limit';
import { RedisStore } from 'rate-limit-redis';
import type { AppContext } from './context.js';
import { type Circuit, FallbackStore, sendRateLimitCommand } from './rate-limit-store.js';

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
 * The failure limiter's key: the client address (an IPv6 address by its /56 network).
 *
 * @example
 * ```ts
 * addressKey('203.0.113.7'); // 'ip:203.0.113.7'
 * ```
 */
export function addressKey(ip: string | undefined): string {
  return `ip:${ipKeyGenerator(ip ?? '')}`;
}

/** The principal limiter's key: the authenticated client, else the client address. */
export function principalKey(clientId: string | undefined, ip: string | undefined): string {
  return clientId ? `client:${clientId}` : addressKey(ip);
}

/** What one counted request was granted. */
export interface RateDecision {
  /** True when the limit is spent: answer with {@link RateDecision.error}. */
  readonly exceeded: boolean;
  /** Headers to set on the response now, whatever it becomes (draft-8, when the limiter sends them). */
  readonly headers: Readonly<Record<string, string>>;
  /** The 429 `rate_limited` problem (with `Retry-After`) to throw; present only when `exceeded`. */
  readonly error: HttpError | undefined;
  /**
   * Call once the response is finished, with its status. The failure limiter takes the hit back
   * for a status below 400; otherwise this does nothing.
   */
  settle(status: number): Promise<void>;
}

/** One rate limit over one store. */
export interface Limiter {
  /**
   * Counts one request for `key`. `undefined` when the store failed: the request passes unlimited
   * and without headers (a rate limit protects; it must not take the API down with Redis).
   */
  consume(key: string): Promise<RateDecision | undefined>;
}

/** Options of {@link createLimiter}. */
export interface LimiterOptions {
  /** Requests per window. */
  readonly limit: number;
  /** Window length (ms). Default 60 000. */
  readonly windowMs?: number;
  /** Where counts live; default a MemoryStore of this instance. */
  readonly store?: Store | undefined;
  /** Send draft-8 `RateLimit` and `RateLimit-Policy` (and `Retry-After` when spent). */
  readonly headers: boolean;
  /** Count only failed requests: a response below 400 takes its hit back ({@link RateDecision.settle}). */
  readonly skipSuccessful?: boolean;
  /** Clock, for tests. */
  readonly now?: () => number;
}

/** express-rate-limit's default quota name: `60-in-1min`. */
function quotaName(limit: number, windowMs: number): string {
  const seconds = windowMs / 1000;
  const minutes = seconds / 60;
  const hours = minutes / 60;
  const days = hours / 24;
  const duration =
    seconds < 60
      ? `${seconds}sec`
      : minutes < 60
        ? `${minutes}min`
        : hours < 24
          ? `${hours}hr${hours > 1 ? 's' : ''}`
          : `${days}day${days > 1 ? 's' : ''}`;
  return `${limit}-in-${duration}`;
}

const partitionKeys = new Map<string, string>();
/** The draft-8 partition key: base64 of the first 12 hex digits of the key's sha256. */
function partitionKey(key: string): string {
  let value = partitionKeys.get(key);
  if (value === undefined) {
    const hex = createHash('sha256').update(key).digest('hex').slice(0, 12);
    value = Buffer.from(hex).toString('base64');
    // Keys are clients and addresses: a few repeat all the time. Bounded, so many never pile up.
    if (partitionKeys.size >= 1024) partitionKeys.clear();
    partitionKeys.set(key, value);
  }
  return value;
}

/**
 * The 429 `rate_limited` problem for a window ending at `resetTime` (one minute from now when the
 * store gives no reset time); `Retry-After` is at least one second.
 */
export function rateLimitedError(resetTime: Date | undefined, now: number = Date.now()): HttpError {
  const seconds = Math.max(1, Math.ceil(((resetTime?.getTime() ?? now + 60_000) - now) / 1000));
  return new HttpError('rate_limited', {
    headers: { 'Retry-After': String(seconds) },
    params: { retry_after: seconds },
  });
}

/**
 * A rate limiter over `options.store`.
 *
 * @example
 * ```ts
 * const limiter = createLimiter({ limit: 60, headers: true });
 * const decision = await limiter.consume(principalKey(principal?.clientId, ip));
 * ```
 */
export function createLimiter(options: LimiterOptions): Limiter {
  const windowMs = options.windowMs ?? 60_000;
  const now = options.now ?? Date.now;
  const store = options.store ?? new MemoryStore();
  const name = quotaName(options.limit, windowMs);
  const windowSeconds = Math.ceil(windowMs / 1000);
  // The stores read only `windowMs` from the options express-rate-limit would pass.
  try {
    void Promise.resolve(store.init?.({ windowMs, limit: options.limit } as Options)).catch(() => {});
  } catch {
    // As express-rate-limit: a store that fails to start fails on its first call instead.
  }
  return {
    async consume(key) {
      let totalHits: number;
      let resetTime: Date | undefined;
      try {
        ({ totalHits, resetTime } = await store.increment(key));
      } catch {
        return undefined;
      }
      const exceeded = totalHits > options.limit;
      const headers: Record<string, string> = {};
      if (options.headers) {
        const reset = resetTime
          ? Math.max(0, Math.ceil((resetTime.getTime() - now()) / 1000))
          : windowSeconds;
        const remaining = Math.max(options.limit - totalHits, 0);
        headers['RateLimit'] = `"${name}"; r=${remaining}; t=${reset}`;
        headers['RateLimit-Policy'] =
          `"${name}"; q=${options.limit}; w=${windowSeconds}; pk=:${partitionKey(key)}:`;
        if (exceeded) headers['Retry-After'] = String(reset);
      }
      let settled = false;
      return {
        exceeded,
        headers,
        // Made only when thrown: an Error records a stack trace, a cost every passing request paid.
        error: exceeded ? rateLimitedError(resetTime, now()) : undefined,
        async settle(status) {
          if (!options.skipSuccessful || settled || status >= 400) return;
          settled = true;
          // A hit of a window that has ended is not taken back from the next one.
          if (resetTime && now() >= resetTime.getTime()) return;
          try {
            await store.decrement(key);
          } catch {
            // The hit stays counted; the limit is a protection, not an answer.
          }
        },
      };
    },
  };
}

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
      prefix: `${ctx.config.redisKeyPrefix}rl:${name}:`,
      sendCommandCluster: sendRateLimitCommand(redis),
    }),
    timeoutMs: ctx.config.timeouts.redisCommandMs,
    circuit,
  });
}

/** The service's two limiters. */
export interface ServiceLimiters {
  /** Failed requests per client address ({@link addressKey}), before authentication; skip {@link PROBES}. */
  readonly failures: Limiter;
  /** Every request per principal ({@link principalKey}), after authentication; sends draft-8 headers. */
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
    principal: createLimiter({ limit, headers: true, store: limiterStore(ctx, 'principal', circuit) }),
  };
}
