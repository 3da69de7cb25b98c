import type { ClientRateLimitInfo, Store, StoreInitOptions } from './store.js';

/**
 * Options of {@link MemoryStore}.
 *
 * @example
 * ```ts
 * const options: MemoryStoreOptions = { now: () => 0 };
 * ```
 */
export interface MemoryStoreOptions {
  /** Clock (epoch ms), for tests. Default `Date.now`. */
  readonly now?: () => number;
}

interface Window {
  hits: number;
  resetAt: number;
}

/**
 * Counts in this process's memory: one fixed window per key, starting at its first hit. No
 * timer: windows that have ended are swept at most once per window length, by the call that finds
 * the sweep due, so memory is bounded by the keys seen in about two windows.
 *
 * @example
 * ```ts
 * const limiter = createLimiter({ limit: 60, store: new MemoryStore() });
 * ```
 */
export class MemoryStore implements Store {
  readonly localKeys = true;
  readonly #windows = new Map<string, Window>();
  readonly #now: () => number;
  #windowMs = 60_000;
  #sweepAt = 0;

  constructor(options: MemoryStoreOptions = {}) {
    this.#now = options.now ?? Date.now;
  }

  /** Takes the window length from the limiter. */
  init(options: StoreInitOptions): void {
    this.#windowMs = options.windowMs;
  }

  #current(key: string, at: number): Window | undefined {
    if (at >= this.#sweepAt) {
      for (const [name, window] of this.#windows) if (window.resetAt <= at) this.#windows.delete(name);
      this.#sweepAt = at + this.#windowMs;
    }
    const window = this.#windows.get(key);
    return window !== undefined && window.resetAt > at ? window : undefined;
  }

  /** The key's count in its current window, or `undefined`. */
  get(key: string): ClientRateLimitInfo | undefined {
    const window = this.#current(key, this.#now());
    return window && { totalHits: window.hits, resetTime: new Date(window.resetAt) };
  }

  /** Counts one hit, opening a new window when the key has none. */
  increment(key: string): ClientRateLimitInfo {
    const at = this.#now();
    let window = this.#current(key, at);
    if (window === undefined) {
      window = { hits: 0, resetAt: at + this.#windowMs };
      this.#windows.set(key, window);
    }
    window.hits += 1;
    return { totalHits: window.hits, resetTime: new Date(window.resetAt) };
  }

  /** Takes one hit back (never below zero). */
  decrement(key: string): void {
    const window = this.#current(key, this.#now());
    if (window !== undefined && window.hits > 0) window.hits -= 1;
  }

  /** Forgets the key. */
  resetKey(key: string): void {
    this.#windows.delete(key);
  }

  /** Forgets every key. */
  resetAll(): void {
    this.#windows.clear();
  }
}
