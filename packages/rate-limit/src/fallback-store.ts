import { MemoryStore } from './memory-store.js';
import type { ClientRateLimitInfo, Store, StoreInitOptions } from './store.js';

/**
 * Until when (epoch ms) the {@link FallbackStore}s sharing it count locally.
 *
 * @example
 * ```ts
 * const circuit: Circuit = { localUntil: 0 };
 * ```
 */
export interface Circuit {
  localUntil: number;
}

/**
 * Options of {@link FallbackStore}.
 *
 * @example
 * ```ts
 * const options: FallbackStoreOptions = { primary: redisStore, timeoutMs: 250 };
 * ```
 */
export interface FallbackStoreOptions {
  /** The shared store (a {@link RedisStore}, rate-limit-redis's, …). */
  readonly primary: Store;
  /** Deadline of one call to the shared store (ms). */
  readonly timeoutMs: number;
  /** How long to count locally after a failure before trying the shared store again (ms). Default 5 000. */
  readonly retryAfterMs?: number;
  /** Clock (epoch ms), for tests. Default `Date.now`. */
  readonly now?: () => number;
  /**
   * Shared by the stores of one Redis, so that one failure switches them all to local counting
   * (a request passing two limiters then waits for at most one deadline). Default: its own.
   */
  readonly circuit?: Circuit;
}

function deadline<T>(work: () => Promise<T> | T, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`rate-limit store did not answer within ${ms} ms`)), ms);
    Promise.resolve()
      .then(work)
      .then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error);
        },
      );
  });
}

/**
 * A {@link Store} that counts in `primary` while it answers in time, and in this process's memory
 * while it does not. A rate limit protects the service: failing closed (429 for everyone) would
 * turn a Redis stall into an outage, and failing open would drop the protection exactly when the
 * service is weakest. So a failed or late call (deadline `timeoutMs`) switches to local counters
 * for `retryAfterMs`, and only then is the shared store tried again: a stalled Redis costs one
 * request per instance and period at most `timeoutMs`, every other request no wait. With N
 * instances a client may get up to N times its budget while Redis is away.
 *
 * @example
 * ```ts
 * const store = new FallbackStore({ primary: new RedisStore({ client: redis }), timeoutMs: 250 });
 * ```
 */
export class FallbackStore implements Store {
  readonly localKeys = false;
  readonly prefix?: string;
  readonly #primary: Store;
  readonly #local: MemoryStore;
  readonly #timeoutMs: number;
  readonly #retryAfterMs: number;
  readonly #now: () => number;
  readonly #circuit: Circuit;

  constructor(options: FallbackStoreOptions) {
    this.#primary = options.primary;
    this.#timeoutMs = options.timeoutMs;
    this.#retryAfterMs = options.retryAfterMs ?? 5000;
    this.#now = options.now ?? Date.now;
    this.#local = new MemoryStore({ now: this.#now });
    this.#circuit = options.circuit ?? { localUntil: 0 };
    if (options.primary.prefix !== undefined) this.prefix = options.primary.prefix;
  }

  /** True while the shared store is considered down and counting is local. */
  get local(): boolean {
    return this.#now() < this.#circuit.localUntil;
  }

  /** Starts both stores; a shared store that fails to start switches to local counting. */
  init(options: StoreInitOptions): void {
    this.#local.init(options);
    void Promise.resolve()
      .then(() => this.#primary.init?.(options))
      .catch(() => {
        this.#circuit.localUntil = this.#now() + this.#retryAfterMs;
      });
  }

  async #either<T>(shared: (store: Store) => Promise<T> | T, local: (store: MemoryStore) => T): Promise<T> {
    if (!this.local) {
      try {
        return await deadline(() => shared(this.#primary), this.#timeoutMs);
      } catch {
        this.#circuit.localUntil = this.#now() + this.#retryAfterMs;
      }
    }
    return local(this.#local);
  }

  /** The key's count, from whichever store is in use. */
  async get(key: string): Promise<ClientRateLimitInfo | undefined> {
    return this.#either(
      (store) => store.get?.(key),
      (store) => store.get(key),
    );
  }

  /** Counts one hit in whichever store is in use. */
  async increment(key: string): Promise<ClientRateLimitInfo> {
    return this.#either(
      (store) => store.increment(key),
      (store) => store.increment(key),
    );
  }

  /** Takes one hit back in whichever store is in use. */
  async decrement(key: string): Promise<void> {
    await this.#either(
      (store) => store.decrement(key),
      (store) => store.decrement(key),
    );
  }

  /** Forgets the key in whichever store is in use. */
  async resetKey(key: string): Promise<void> {
    await this.#either(
      (store) => store.resetKey(key),
      (store) => store.resetKey(key),
    );
  }

  /** Shuts the shared store down. */
  async shutdown(): Promise<void> {
    await this.#primary.shutdown?.();
  }
}
