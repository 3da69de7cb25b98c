import { createHash } from 'node:crypto';
import type { ClientRateLimitInfo, Store, StoreInitOptions } from './store.js';

/**
 * The script calls the store needs, written out so the package's types never import `ioredis` (an
 * optional peer): an ioredis `Redis` or `Cluster` satisfies it.
 *
 * @example
 * ```ts
 * import { Redis } from 'ioredis';
 * const client: RedisScriptClient = new Redis(process.env.REDIS_URL!);
 * ```
 */
export interface RedisScriptClient {
  /** `EVALSHA sha numKeys ...keysAndArgs`. */
  evalsha(sha: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  /** `EVAL script numKeys ...keysAndArgs`. */
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
}

/**
 * Options of {@link RedisStore}.
 *
 * @example
 * ```ts
 * const options: RedisStoreOptions = { client: new Redis(process.env.REDIS_URL!), prefix: 'api:rl:' };
 * ```
 */
export interface RedisStoreOptions {
  /** An ioredis client or Cluster; its own `keyPrefix` applies on top of `prefix`. */
  readonly client: RedisScriptClient;
  /** Prefix of every counter key. Default `rl:`, rate-limit-redis's. */
  readonly prefix?: string;
  /** A call that has not answered after this many ms fails (the limiter then passes the request). Default 1 000. */
  readonly timeoutMs?: number;
}

// The layout of rate-limit-redis: one string counter per key (`prefix` + key) that expires with its
// window (PX). The first hit of a window (no counter, or one without a time to live) sets it to 1;
// later hits INCR it, which keeps its expiry. Every script names its one key, so on a Cluster it
// runs on the key's master.
const INCREMENT = `
local ttl = redis.call('PTTL', KEYS[1])
if ttl <= 0 then
  redis.call('SET', KEYS[1], 1, 'PX', ARGV[1])
  return {1, tonumber(ARGV[1])}
end
return {redis.call('INCR', KEYS[1]), ttl}
`;
const GET = `
return {redis.call('GET', KEYS[1]), redis.call('PTTL', KEYS[1])}
`;
// Only a counter of a window that is still open is taken back: a DECR of a missing key would
// create one without expiry.
const DECREMENT = `
if redis.call('PTTL', KEYS[1]) > 0 then redis.call('DECR', KEYS[1]) end
return 0
`;
const RESET = `
return redis.call('DEL', KEYS[1])
`;

interface Script {
  readonly source: string;
  readonly sha: string;
}

function script(source: string): Script {
  const trimmed = source.trim();
  return { source: trimmed, sha: createHash('sha1').update(trimmed).digest('hex') };
}

const SCRIPTS = {
  increment: script(INCREMENT),
  get: script(GET),
  decrement: script(DECREMENT),
  reset: script(RESET),
};

/** The Lua sources the store runs, each on one key (for the tests). */
export const REDIS_SCRIPTS: Readonly<Record<keyof typeof SCRIPTS, string>> = {
  increment: SCRIPTS.increment.source,
  get: SCRIPTS.get.source,
  decrement: SCRIPTS.decrement.source,
  reset: SCRIPTS.reset.source,
};

function info(reply: unknown, now: number): ClientRateLimitInfo | undefined {
  if (!Array.isArray(reply) || reply.length !== 2)
    throw new Error('unexpected reply from the rate-limit script');
  const [hits, ttl] = reply as [unknown, unknown];
  if (hits === null || hits === undefined) return undefined;
  return { totalHits: Number(hits), resetTime: new Date(now + Math.max(0, Number(ttl))) };
}

/**
 * A {@link Store} on Redis through `ioredis` (one node or a Cluster), shared by every instance of a
 * service. Each hit is one Lua script on one key, so one round trip, atomic, and routed to the
 * key's master on a Cluster. Keys and values are rate-limit-redis's (`rl:` + key, a counter that
 * expires with its window), so during a rolling deploy from rate-limit-redis both count the same
 * clients together. A call that errors or passes `timeoutMs` rejects: the limiter then lets the
 * request pass ({@link FallbackStore} counts locally instead).
 *
 * @example
 * ```ts
 * import { Redis } from 'ioredis';
 * const store = new RedisStore({ client: new Redis(process.env.REDIS_URL!), prefix: 'api:rl:' });
 * const limiter = createLimiter({ limit: 300, store });
 * ```
 */
export class RedisStore implements Store {
  readonly localKeys = false;
  readonly prefix: string;
  readonly #client: RedisScriptClient;
  readonly #timeoutMs: number;
  #windowMs = 60_000;

  constructor(options: RedisStoreOptions) {
    this.#client = options.client;
    this.prefix = options.prefix ?? 'rl:';
    this.#timeoutMs = options.timeoutMs ?? 1_000;
    if (!Number.isFinite(this.#timeoutMs) || this.#timeoutMs <= 0)
      throw new RangeError('timeoutMs must be a positive number');
  }

  /** Takes the window length from the limiter. */
  init(options: StoreInitOptions): void {
    this.#windowMs = options.windowMs;
  }

  #run(which: Script, key: string, args: (string | number)[] = []): Promise<unknown> {
    const client = this.#client;
    const name = this.prefix + key;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`Redis did not answer within ${this.#timeoutMs} ms`)),
        this.#timeoutMs,
      );
      const done = (value: unknown) => {
        clearTimeout(timer);
        resolve(value);
      };
      const fail = (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      };
      client.evalsha(which.sha, 1, name, ...args).then(done, (error: unknown) => {
        // The script cache is empty after a restart or failover: send the source once.
        if (error instanceof Error && error.message.startsWith('NOSCRIPT')) {
          client.eval(which.source, 1, name, ...args).then(done, fail);
        } else {
          fail(error);
        }
      });
    });
  }

  /** The key's count and window end, or `undefined` when it has none. */
  async get(key: string): Promise<ClientRateLimitInfo | undefined> {
    return info(await this.#run(SCRIPTS.get, key), Date.now());
  }

  /** Counts one hit (one script call). */
  async increment(key: string): Promise<ClientRateLimitInfo> {
    return info(await this.#run(SCRIPTS.increment, key, [Math.ceil(this.#windowMs)]), Date.now())!;
  }

  /** Takes one hit back while the key's window is open. */
  async decrement(key: string): Promise<void> {
    await this.#run(SCRIPTS.decrement, key);
  }

  /** Forgets the key. */
  async resetKey(key: string): Promise<void> {
    await this.#run(SCRIPTS.reset, key);
  }
}
