import { HttpError } from '@plumbline/errors';

/**
 * A `jti` revocation list. `expiresAt` is the token's `exp` (seconds): after it the token is
 * rejected anyway, so the entry may be forgotten.
 *
 * @example
 * ```ts
 * const store: RevocationStore = new MemoryRevocationStore();
 * await store.revoke('jti-1', Math.floor(Date.now() / 1000) + 900);
 * ```
 */
export interface RevocationStore {
  /** True while `jti` is on the list (until its token would have expired). */
  isRevoked(jti: string): Promise<boolean>;
  /** Puts `jti` on the list until `expiresAt` (Unix seconds), when its token expires anyway. */
  revoke(jti: string, expiresAt: number): Promise<void>;
}

/**
 * An in-process revocation list; entries drop out after their token's expiry.
 *
 * @example
 * ```ts
 * const revocations = new MemoryRevocationStore();
 * ```
 */
export class MemoryRevocationStore implements RevocationStore {
  readonly #entries = new Map<string, number>();
  readonly #now: () => number;

  constructor(options: { readonly now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  /** True while `jti` is on the list. */
  async isRevoked(jti: string): Promise<boolean> {
    const until = this.#entries.get(jti);
    if (until === undefined) return false;
    if (until <= this.#now()) {
      this.#entries.delete(jti);
      return false;
    }
    return true;
  }

  /** Lists `jti` until `expiresAt` (Unix seconds). */
  async revoke(jti: string, expiresAt: number): Promise<void> {
    this.#entries.set(jti, expiresAt * 1000);
    if (this.#entries.size % 1024 === 0) this.#prune();
  }

  #prune(): void {
    const now = this.#now();
    for (const [jti, until] of this.#entries) if (until <= now) this.#entries.delete(jti);
  }
}

/**
 * The Redis calls the auth stores make, written out so the package's types never import `ioredis`
 * (an optional peer): an ioredis `Redis` satisfies it, and a project without ioredis installed
 * still type-checks with `skipLibCheck: false`.
 *
 * @example
 * ```ts
 * import Redis from 'ioredis';
 * const client: RedisClient = new Redis(process.env.REDIS_URL!);
 * ```
 */
export interface RedisClient {
  /** `true` on an ioredis `Cluster`: the refresh-token store then requires a hash tag in its prefix. */
  readonly isCluster?: boolean;
  /** `EXISTS key`: 1 when the key exists, else 0. */
  exists(key: string): Promise<number>;
  /** `SET key value EXAT unixSeconds`. */
  set(key: string, value: string, mode: 'EXAT', unixSeconds: number): Promise<unknown>;
  /** `EVAL script numKeys ...keysAndArgs`. */
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  /** Starts a `MULTI` transaction. */
  multi(): RedisTransaction;
}

/**
 * The `MULTI` chain the refresh-token store uses (see {@link RedisClient}).
 *
 * @example
 * ```ts
 * await client.multi().set('k', 'v', 'PX', 1000).exec();
 * ```
 */
export interface RedisTransaction {
  /** Queues `HSET key field value ...`. */
  hset(key: string, fields: Record<string, string>): RedisTransaction;
  /** Queues `PEXPIRE key ms`. */
  pexpire(key: string, ms: number): RedisTransaction;
  /** Queues `SET key value PX ms`. */
  set(key: string, value: string, mode: 'PX', ms: number): RedisTransaction;
  /** Queues `ZADD key score member`. */
  zadd(key: string, score: number, member: string): RedisTransaction;
  /** Runs the queued commands atomically: one `[error, result]` per command, null if aborted. */
  exec(): Promise<[error: Error | null, result: unknown][] | null>;
}

/**
 * Options for {@link RedisRevocationStore}.
 *
 * @example
 * ```ts
 * const options: RedisStoreOptions = { client: new Redis(process.env.REDIS_URL!), prefix: 'app:revoked:' };
 * ```
 */
export interface RedisStoreOptions {
  /** An ioredis client (the package never creates one). */
  readonly client: RedisClient;
  /** Key prefix. Default `plumbline:auth:` plus a store-specific suffix. */
  readonly prefix?: string;
  /** A call taking longer than this fails closed with 503. Default 1000 ms. */
  readonly timeoutMs?: number;
}

/**
 * Runs a Redis call, turning a failure or a timeout into 503 `service_unavailable`, so an outage
 * never lets a revoked token or a reused refresh token through. Internal to the Redis stores.
 *
 * @example
 * ```ts
 * const exists = await failClosed(() => client.exists(key), 1000);
 * ```
 */
export async function failClosed<T>(operation: () => Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      operation(),
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error('redis timeout')), timeoutMs);
      }),
    ]);
  } catch (cause) {
    throw new HttpError('service_unavailable', { cause });
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A revocation list shared by every instance through Redis. Each entry expires with its token.
 * Any Redis error or timeout → 503 `service_unavailable` (fail closed).
 *
 * @example
 * ```ts
 * const revocations = new RedisRevocationStore({ client: redis, prefix: 'app:revoked:' });
 * ```
 */
export class RedisRevocationStore implements RevocationStore {
  readonly #client: RedisClient;
  readonly #prefix: string;
  readonly #timeoutMs: number;

  constructor(options: RedisStoreOptions) {
    this.#client = options.client;
    this.#prefix = options.prefix ?? 'plumbline:auth:revoked:';
    this.#timeoutMs = options.timeoutMs ?? 1000;
  }

  /** True while `jti` is on the list; a Redis failure or timeout is 503 (fail closed). */
  async isRevoked(jti: string): Promise<boolean> {
    return (await failClosed(() => this.#client.exists(this.#prefix + jti), this.#timeoutMs)) === 1;
  }

  /** Lists `jti` until `expiresAt` (Unix seconds); a Redis failure or timeout is 503. */
  async revoke(jti: string, expiresAt: number): Promise<void> {
    const at = Math.ceil(expiresAt);
    if (at * 1000 <= Date.now()) return;
    await failClosed(() => this.#client.set(this.#prefix + jti, '1', 'EXAT', at), this.#timeoutMs);
  }
}
