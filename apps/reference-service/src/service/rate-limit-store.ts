/**
 * The rate limiter's policy when its shared store (Redis) fails or stalls: count locally.
 *
 * A rate limit protects the service; it is not part of any answer's correctness. Failing closed
 * (429/503 for everyone) would turn a Redis stall into a full outage, and failing open (no limit)
 * would drop the protection exactly when the service is weakest. So each instance keeps counting
 * in its own memory while Redis does not answer: every client keeps its per-minute budget per
 * instance (with N instances a client may get up to N times the budget during the outage).
 *
 * A failed or late call (deadline `timeoutMs`) switches the instance to its local counters for
 * `retryAfterMs`; only then is Redis tried again, so a stalled Redis costs one request per instance
 * and period at most `timeoutMs`, and every other request no wait at all.
 */
import { type ClientRateLimitInfo, MemoryStore, type Options, type Store } from 'express-rate-limit';
import type { Cluster, Redis } from 'ioredis';
import type { RedisReply, SendCommandClusterDetails } from 'rate-limit-redis';

/**
 * rate-limit-redis's command function for one Redis or a Cluster. Every command but `SCRIPT LOAD`
 * names its one key, so a Cluster routes it to that key's master; a script is loaded on every
 * reachable master (one that was down and comes back empty answers NOSCRIPT, and the store loads it again).
 */
export function sendRateLimitCommand(
  client: Redis | Cluster,
): (details: SendCommandClusterDetails) => Promise<RedisReply> {
  return async ({ command: [name, ...args] }) => {
    if (!client.isCluster || name !== 'SCRIPT') {
      return (await client.call(name as string, ...args)) as RedisReply;
    }
    const replies = await Promise.allSettled(
      (client as Cluster).nodes('master').map((node) => node.call('SCRIPT', ...args)),
    );
    const loaded = replies.find((reply) => reply.status === 'fulfilled');
    if (loaded) return loaded.value as RedisReply;
    throw (replies[0] as PromiseRejectedResult | undefined)?.reason ?? new Error('no Redis master answered');
  };
}

export interface FallbackStoreOptions {
  /** The shared store (rate-limit-redis). */
  readonly primary: Store;
  /** Deadline of one call to the shared store (ms). */
  readonly timeoutMs: number;
  /** How long to count locally after a failure before trying the shared store again (ms). Default 5000. */
  readonly retryAfterMs?: number;
  /** Clock, for tests. */
  readonly now?: () => number;
  /**
   * Shared by the stores of one Redis, so that one failure switches them all to local counting
   * (a request passing two limiters then waits for at most one deadline). Default: its own.
   */
  readonly circuit?: Circuit;
}

/** Until when (epoch ms) the stores sharing it count locally. */
export interface Circuit {
  localUntil: number;
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

/** A {@link Store} that uses `primary` while it answers in time and local memory counters otherwise. */
export class FallbackStore implements Store {
  readonly localKeys = false;
  readonly prefix?: string;
  readonly #primary: Store;
  readonly #local = new MemoryStore();
  readonly #timeoutMs: number;
  readonly #retryAfterMs: number;
  readonly #now: () => number;
  readonly #circuit: Circuit;

  constructor(options: FallbackStoreOptions) {
    this.#primary = options.primary;
    this.#timeoutMs = options.timeoutMs;
    this.#retryAfterMs = options.retryAfterMs ?? 5000;
    this.#now = options.now ?? Date.now;
    this.#circuit = options.circuit ?? { localUntil: 0 };
    if (options.primary.prefix !== undefined) this.prefix = options.primary.prefix;
  }

  /** True while the shared store is considered down and counting is local. */
  get local(): boolean {
    return this.#now() < this.#circuit.localUntil;
  }

  init(options: Options): void {
    this.#local.init(options);
    // rate-limit-redis loads its script here; a failure shows up (and is handled) on the first call.
    void Promise.resolve()
      .then(() => this.#primary.init?.(options))
      .catch(() => {
        this.#circuit.localUntil = this.#now() + this.#retryAfterMs;
      });
  }

  async #either<T>(
    shared: (store: Store) => Promise<T> | T,
    local: (store: MemoryStore) => Promise<T>,
  ): Promise<T> {
    if (!this.local) {
      try {
        return await deadline(() => shared(this.#primary), this.#timeoutMs);
      } catch {
        this.#circuit.localUntil = this.#now() + this.#retryAfterMs;
      }
    }
    return local(this.#local);
  }

  async get(key: string): Promise<ClientRateLimitInfo | undefined> {
    return this.#either(
      (store) => store.get?.(key),
      (store) => store.get(key),
    );
  }

  async increment(key: string): Promise<ClientRateLimitInfo> {
    return this.#either(
      (store) => store.increment(key),
      (store) => store.increment(key),
    );
  }

  async decrement(key: string): Promise<void> {
    await this.#either(
      (store) => store.decrement(key),
      (store) => store.decrement(key),
    );
  }

  async resetKey(key: string): Promise<void> {
    await this.#either(
      (store) => store.resetKey(key),
      (store) => store.resetKey(key),
    );
  }

  shutdown(): void {
    this.#local.shutdown();
  }
}
