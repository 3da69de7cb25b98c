import {
  type CompactJWSHeaderParameters,
  createLocalJWKSet,
  type FlattenedJWSInput,
  type JSONWebKeySet,
  type JWTVerifyGetKey,
} from 'jose';

/**
 * Reported once per failed key-set fetch. Fetches are spaced by the cooldown and, after failures,
 * by an exponential backoff, so an outage produces one report per period, never one per request.
 *
 * @example
 * ```ts
 * const onKeySetError = (e: KeySetErrorEvent) => logger.warn({ issuer: e.issuer, retryInMs: e.retryInMs }, 'JWKS fetch failed');
 * ```
 */
export interface KeySetErrorEvent {
  /** The trusted issuer whose key set failed. */
  readonly issuer: string;
  readonly jwksUri: string;
  /** What went wrong (HTTP status, timeout, invalid JSON, network error). */
  readonly error: Error;
  /** Failed fetches in a row, this one included. */
  readonly consecutiveFailures: number;
  /** No fetch happens before this many milliseconds have passed. */
  readonly retryInMs: number;
  /** True when the last good key set keeps verifying tokens meanwhile. */
  readonly servingLastGoodSet: boolean;
}

/**
 * The cause of a 503 when a remote key set has never been fetched successfully.
 *
 * @example
 * ```ts
 * const error = await verifier.verify(token).catch((e: unknown) => e);
 * (error as Error).cause instanceof KeySetUnavailableError; // true during a cold outage
 * ```
 */
export class KeySetUnavailableError extends Error {
  override name = 'KeySetUnavailableError';
}

/**
 * True when an error (or its cause) is a remote key set being unavailable: the outage was already
 * reported through `onKeySetError`, so a service need not log each request it refuses.
 *
 * @example
 * ```ts
 * errorHandler({ onError: ({ error, original }) => { if (error.status >= 500 && !isKeySetUnavailable(original)) log(original); } });
 * ```
 */
export function isKeySetUnavailable(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth += 1) {
    if (e instanceof KeySetUnavailableError) return true;
  }
  return false;
}

interface RemoteKeySetOptions {
  readonly issuer: string;
  readonly cooldownMs: number;
  readonly timeoutMs: number;
  readonly cacheMaxAgeMs: number;
  readonly maxBackoffMs: number;
  readonly now: () => number;
  readonly onError: ((event: KeySetErrorEvent) => void) | undefined;
}

const MAX_BYTES = 512 * 1024;
const MIN_FAILURE_BACKOFF_MS = 1000;

/**
 * A remote JWKS with the outage behaviour jose's own does not give: after a failed fetch, no fetch
 * at all (unknown `kid` or stale set) until a backoff has passed (the cooldown, doubling per failure,
 * capped); the last good set keeps verifying meanwhile; one `onError` call per failed fetch.
 * Concurrent callers share one in-flight fetch.
 */
export function createRemoteKeySet(url: URL, options: RemoteKeySetOptions): JWTVerifyGetKey {
  const { now } = options;
  let local: JWTVerifyGetKey | undefined;
  let fetchedAt = Number.NEGATIVE_INFINITY;
  let lastAttemptAt = Number.NEGATIVE_INFINITY;
  let blockedUntil = Number.NEGATIVE_INFINITY;
  let failures = 0;
  let pending: Promise<void> | undefined;

  async function download(): Promise<JWTVerifyGetKey> {
    const response = await fetch(url, {
      headers: { accept: 'application/jwk-set+json, application/json' },
      redirect: 'error',
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    if (response.status !== 200) {
      await response.body?.cancel();
      throw new Error(`the key set answered HTTP ${response.status}`);
    }
    const text = await response.text();
    if (text.length > MAX_BYTES) throw new Error('the key set is too large');
    const parsed = JSON.parse(text) as JSONWebKeySet;
    // createLocalJWKSet validates the shape (an object with a "keys" array) and throws otherwise.
    return createLocalJWKSet(parsed);
  }

  function fetchOnce(): Promise<void> {
    pending ??= (async () => {
      lastAttemptAt = now();
      try {
        local = await download();
        fetchedAt = now();
        failures = 0;
        blockedUntil = Number.NEGATIVE_INFINITY;
      } catch (cause) {
        failures += 1;
        const base = Math.max(options.cooldownMs, MIN_FAILURE_BACKOFF_MS);
        const retryInMs = Math.min(base * 2 ** (failures - 1), options.maxBackoffMs);
        blockedUntil = now() + retryInMs;
        try {
          options.onError?.({
            issuer: options.issuer,
            jwksUri: url.href,
            error: cause instanceof Error ? cause : new Error(String(cause)),
            consecutiveFailures: failures,
            retryInMs,
            servingLastGoodSet: local !== undefined,
          });
        } catch {
          // A failing logger must not change the verification outcome.
        }
      } finally {
        pending = undefined;
      }
    })();
    return pending;
  }

  return async (header: CompactJWSHeaderParameters, token: FlattenedJWSInput) => {
    if (pending) await pending;
    const stale = now() - fetchedAt >= options.cacheMaxAgeMs;
    if ((local === undefined || stale) && now() >= blockedUntil) await fetchOnce();
    if (local === undefined)
      throw new KeySetUnavailableError(`the key set of ${options.issuer} is unavailable`);
    try {
      return await local(header, token);
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'ERR_JWKS_NO_MATCHING_KEY') throw error;
      // An unknown kid may be a rotated key: refetch, but at most once per cooldown and never
      // while backing off after a failure.
      const t = now();
      if (t < blockedUntil || t - lastAttemptAt < options.cooldownMs) throw error;
      const before = fetchedAt;
      await fetchOnce();
      if (fetchedAt === before) throw error;
      return local(header, token);
    }
  };
}
