import { createHash } from 'node:crypto';
import { HttpError } from '@plumbline/errors';
import { MemoryStore } from './memory-store.js';
import type { Store } from './store.js';

/**
 * Which revision of the IETF httpapi RateLimit fields a limiter sends, or `false` for none (the
 * 429 still carries `Retry-After`):
 * - `'draft-8'` (the default): `RateLimit: "60-in-1min"; r=59; t=60` and
 *   `RateLimit-Policy: "60-in-1min"; q=60; w=60; pk=:…:`, byte for byte what express-rate-limit 8
 *   sends with `standardHeaders: 'draft-8'`.
 * - `'draft-10'`: the same two fields (draft-10 kept their syntax), and the 429 problem carries the
 *   draft's `violated-policies` member naming the spent policy.
 * - `'draft-7'`: `RateLimit: limit=60, remaining=59, reset=60` and `RateLimit-Policy: 60;w=60`, as
 *   express-rate-limit's `'draft-7'`.
 *
 * @example
 * ```ts
 * const headers: HeaderMode = 'draft-10';
 * ```
 */
export type HeaderMode = 'draft-7' | 'draft-8' | 'draft-10' | false;

/**
 * What one counted request was granted.
 *
 * @example
 * ```ts
 * const decision: RateDecision | undefined = await limiter.consume('client:demo');
 * if (decision?.exceeded) throw decision.error;
 * ```
 */
export interface RateDecision {
  /** True when the limit is spent: answer with {@link RateDecision.error}. */
  readonly exceeded: boolean;
  /** Headers to set on the response now, whatever it becomes (none when `headers` is `false`). */
  readonly headers: Readonly<Record<string, string>>;
  /** The 429 `rate_limited` problem (with `Retry-After`) to throw; present only when `exceeded`. */
  readonly error: HttpError | undefined;
  /**
   * Call once the response is finished, with its status. With `skipSuccessful` the hit is taken
   * back for a status below 400 (unless its window has already ended); otherwise this does nothing.
   * Calling it again does nothing; it never rejects.
   */
  settle(status: number): Promise<void>;
}

/**
 * One rate limit over one store.
 *
 * @example
 * ```ts
 * const limiter: Limiter = createLimiter({ limit: 60 });
 * ```
 */
export interface Limiter {
  /**
   * Counts one request for `key`. `undefined` when the store failed: the request passes unlimited
   * and without headers (a rate limit protects the service; it must not take it down with Redis).
   */
  consume(key: string): Promise<RateDecision | undefined>;
}

/**
 * Options of {@link createLimiter}.
 *
 * @example
 * ```ts
 * const options: LimiterOptions = { limit: 300, windowMs: 60_000, headers: 'draft-10' };
 * ```
 */
export interface LimiterOptions {
  /** Requests per window: a non-negative integer (0 refuses every request). */
  readonly limit: number;
  /** Window length in ms. Default 60 000. */
  readonly windowMs?: number;
  /** Where counts live: any express-rate-limit `Store`. Default a {@link MemoryStore} of this limiter. */
  readonly store?: Store | undefined;
  /** Which RateLimit fields to send. Default `'draft-8'`. */
  readonly headers?: HeaderMode;
  /**
   * The policy's name in the draft-8/draft-10 fields (a String: printable ASCII). Default
   * express-rate-limit's: `{limit}-in-{window}`, e.g. `60-in-1min`.
   */
  readonly policyName?: string;
  /** Count only failed requests: a response below 400 takes its hit back ({@link RateDecision.settle}). */
  readonly skipSuccessful?: boolean;
  /** Clock (epoch ms), for tests. Default `Date.now`. */
  readonly now?: () => number;
}

/**
 * express-rate-limit's default policy name for a limit and window: `60-in-1min`, `100-in-15min`,
 * `5-in-30sec`, `1000-in-1hr`, `10000-in-2days`.
 *
 * @example
 * ```ts
 * quotaName(60, 60_000); // '60-in-1min'
 * ```
 */
export function quotaName(limit: number, windowMs: number): string {
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

/**
 * The draft-8 partition key (`pk`) of a key, as express-rate-limit 8 writes it: the base64 of the
 * first 12 hex digits of the key's SHA-256, so the key itself is never sent.
 *
 * @example
 * ```ts
 * partitionKey('client:demo'); // 12 hex digits, base64: 16 characters
 * ```
 */
export function partitionKey(key: string): string {
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
 * The 429 `rate_limited` problem for a window ending at `resetTime` (one minute from `now` when the
 * store gives no reset time); `Retry-After` is at least one second. `violatedPolicies` adds the
 * draft-10 `violated-policies` member.
 *
 * @example
 * ```ts
 * rateLimitedError(new Date(Date.now() + 30_000)).headers['Retry-After']; // '30'
 * ```
 */
export function rateLimitedError(
  resetTime: Date | undefined,
  now: number = Date.now(),
  violatedPolicies?: readonly string[],
): HttpError {
  const seconds = Math.max(1, Math.ceil(((resetTime?.getTime() ?? now + 60_000) - now) / 1000));
  return new HttpError('rate_limited', {
    headers: { 'Retry-After': String(seconds) },
    params: { retry_after: seconds },
    ...(violatedPolicies ? { extensions: { 'violated-policies': violatedPolicies } } : {}),
  });
}

// An SF String (RFC 9651 3.3.3): printable ASCII, with `"` and `\` escaped.
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
function sfString(value: string): string {
  return `"${value.replace(/[\\"]/g, '\\$&')}"`;
}

/**
 * A rate limiter over `options.store`: fixed windows of `windowMs` per key, counted by the store.
 * Throws a `RangeError` for a limit, window or policy name the fields cannot carry.
 *
 * @example
 * ```ts
 * const limiter = createLimiter({ limit: 60, headers: 'draft-10' });
 * const decision = await limiter.consume(principalKey(clientId, ip));
 * // decision.headers: { RateLimit: '"60-in-1min"; r=59; t=60', 'RateLimit-Policy': '"60-in-1min"; q=60; w=60; pk=:…:' }
 * ```
 */
export function createLimiter(options: LimiterOptions): Limiter {
  const { limit } = options;
  const windowMs = options.windowMs ?? 60_000;
  if (!Number.isSafeInteger(limit) || limit < 0)
    throw new RangeError(`limit must be a non-negative integer, got ${limit}`);
  if (!Number.isFinite(windowMs) || windowMs <= 0)
    throw new RangeError(`windowMs must be a positive number, got ${windowMs}`);
  const mode = options.headers ?? 'draft-8';
  const now = options.now ?? Date.now;
  const store = options.store ?? new MemoryStore();
  const name = options.policyName ?? quotaName(limit, windowMs);
  if (!PRINTABLE_ASCII.test(name)) throw new RangeError('policyName must be printable ASCII');
  const quoted = sfString(name);
  const violated = mode === 'draft-10' ? [name] : undefined;
  const windowSeconds = Math.ceil(windowMs / 1000);
  // The stores read only `windowMs` from what express-rate-limit would pass.
  try {
    void Promise.resolve(store.init?.({ windowMs })).catch(() => {});
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
      const exceeded = totalHits > limit;
      const headers: Record<string, string> = {};
      if (mode !== false) {
        const reset = resetTime
          ? Math.max(0, Math.ceil((resetTime.getTime() - now()) / 1000))
          : windowSeconds;
        const remaining = Math.max(limit - totalHits, 0);
        if (mode === 'draft-7') {
          headers['RateLimit-Policy'] = `${limit};w=${windowSeconds}`;
          headers['RateLimit'] = `limit=${limit}, remaining=${remaining}, reset=${reset}`;
        } else {
          headers['RateLimit'] = `${quoted}; r=${remaining}; t=${reset}`;
          headers['RateLimit-Policy'] =
            `${quoted}; q=${limit}; w=${windowSeconds}; pk=:${partitionKey(key)}:`;
        }
        if (exceeded) headers['Retry-After'] = String(reset);
      }
      let settled = false;
      return {
        exceeded,
        headers,
        // Made only when spent: an Error records a stack trace, a cost every passing request would pay.
        error: exceeded ? rateLimitedError(resetTime, now(), violated) : undefined,
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
