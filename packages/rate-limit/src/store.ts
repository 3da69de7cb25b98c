/**
 * The store contract: express-rate-limit's `Store`, written out so this package does not depend on
 * express-rate-limit. Any store written for express-rate-limit (rate-limit-redis, its MemoryStore,
 * rate-limit-postgresql, …) can be given to `createLimiter`, and this package's stores can be given
 * to express-rate-limit.
 */

/**
 * What a store knows about one key: its hits in the current window and when the window ends.
 *
 * @example
 * ```ts
 * const info: ClientRateLimitInfo = { totalHits: 3, resetTime: new Date(Date.now() + 60_000) };
 * ```
 */
export interface ClientRateLimitInfo {
  readonly totalHits: number;
  /** When the key's window ends; `undefined` when the store cannot tell (one window is assumed). */
  readonly resetTime: Date | undefined;
}

/**
 * What a limiter passes to {@link Store.init}: express-rate-limit passes its whole configuration,
 * of which stores read `windowMs`.
 *
 * @example
 * ```ts
 * store.init?.({ windowMs: 60_000 });
 * ```
 */
export interface StoreInitOptions {
  /** The window length (ms). */
  readonly windowMs: number;
}

/**
 * A rate-limit store, compatible with express-rate-limit's `Store` in both directions.
 *
 * @example
 * ```ts
 * import { RedisStore } from 'rate-limit-redis';
 * const store: Store = new RedisStore({ sendCommand: (...args: string[]) => redis.call(...args) });
 * ```
 */
export interface Store {
  /** Called once by the limiter with the window length. */
  init?(options: StoreInitOptions): void | Promise<void>;
  /** The key's current count, without counting. */
  get?(key: string): Promise<ClientRateLimitInfo | undefined> | ClientRateLimitInfo | undefined;
  /** Counts one hit and returns the new count. */
  increment(key: string): Promise<ClientRateLimitInfo> | ClientRateLimitInfo;
  /** Takes one hit back. */
  decrement(key: string): Promise<void> | void;
  /** Forgets the key. */
  resetKey(key: string): Promise<void> | void;
  /** Forgets every key (where the store can). */
  resetAll?(): Promise<void> | void;
  /** Stops timers and connections the store owns. */
  shutdown?(): Promise<void> | void;
  /** True when counts live in this process only (express-rate-limit uses it to warn about shared stores). */
  readonly localKeys?: boolean;
  /** The prefix the store puts before keys. */
  readonly prefix?: string;
}
