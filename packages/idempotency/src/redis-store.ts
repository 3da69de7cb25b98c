import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { persist } from './persist.js';
import type { ClaimRequest, ClaimResult, IdempotencyStore, StoredResponse } from './store.js';

/**
 * Options for {@link createRedisStore}.
 *
 * @example
 * ```ts
 * const options: RedisStoreOptions = { client: new Redis(process.env.REDIS_URL), prefix: 'orders:idem:' };
 * ```
 */
export interface RedisStoreOptions {
  /** An `ioredis` client or Cluster; its own `keyPrefix` is applied on top of `prefix`. */
  readonly client: RedisScriptClient;
  /** Prefix of every record key. Default `idem:`. */
  readonly prefix?: string;
  /** A call that has not answered after this many ms fails (and the request gets 503). Default 2 000. */
  readonly timeoutMs?: number;
}

// Record layout: one hash per key. s = state (p in flight, c completed), f = fingerprint,
// t = fencing token, st/h/b = status, headers JSON, body bytes. One script per step keeps every
// step a single round trip and atomic, and each touches one key, so it runs on Redis Cluster too.
// An in-flight answer carries the record's token: the client may have sent this very claim twice
// (ioredis sends a command again after a failover), and its own claim is not another request's.
// The layout is unchanged and an older instance reads only the first two items, so both versions
// run side by side during a rolling deploy.
const CLAIM = `
local r = redis.call('HMGET', KEYS[1], 's', 'f', 'st', 'h', 'b', 't')
if not r[1] then
  redis.call('HSET', KEYS[1], 's', 'p', 'f', ARGV[1], 't', ARGV[2])
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  return {'new'}
end
if r[2] ~= ARGV[1] then return {'mismatch'} end
if r[1] == 'c' then return {'completed', r[3], r[4], r[5]} end
return {'in_flight', tostring(redis.call('PTTL', KEYS[1])), r[6] or ''}
`;

const COMPLETE = `
local r = redis.call('HMGET', KEYS[1], 's', 't')
if r[1] ~= 'p' or r[2] ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 's', 'c', 'st', ARGV[2], 'h', ARGV[3], 'b', ARGV[4])
redis.call('HDEL', KEYS[1], 't')
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
`;

const RELEASE = `
local r = redis.call('HMGET', KEYS[1], 's', 't')
if r[1] ~= 'p' or r[2] ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
return 1
`;

type Arg = string | number | Buffer;

/**
 * The script calls the store needs from its client, written out so the package's types never import
 * `ioredis` (an optional peer): an ioredis `Redis` or `Cluster` satisfies it, and a project without
 * ioredis installed still type-checks with `skipLibCheck: false`. (At run time the store uses the
 * `*Buffer` variants ioredis defines beside these, so replies keep their bytes.)
 *
 * @example
 * ```ts
 * import Redis from 'ioredis';
 * const client: RedisScriptClient = new Redis(process.env.REDIS_URL!);
 * ```
 */
export interface RedisScriptClient {
  /** `EVALSHA sha numKeys ...keysAndArgs`. */
  evalsha(sha: string, numKeys: number, ...args: (string | number | Buffer)[]): Promise<unknown>;
  /** `EVAL script numKeys ...keysAndArgs`. */
  eval(script: string, numKeys: number, ...args: (string | number | Buffer)[]): Promise<unknown>;
}

// ioredis defines a `*Buffer` twin of every command at run time but leaves them out of its types.
interface BufferScriptClient {
  evalshaBuffer(sha: string, numKeys: number, ...args: Arg[]): Promise<unknown>;
  evalBuffer(script: string, numKeys: number, ...args: Arg[]): Promise<unknown>;
}

interface Script {
  readonly source: string;
  readonly sha: string;
}

function script(source: string): Script {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

const SCRIPTS = { claim: script(CLAIM), complete: script(COMPLETE), release: script(RELEASE) };

// ioredis writes a command whose arguments are all strings as one string; one Buffer argument
// switches it to a slower path that assembles buffers (about 3 µs more per call, measured). A
// small body that is valid UTF-8 is therefore sent as a string: Redis stores the same bytes, and
// replies are read as Buffers, so the bytes come back unchanged either way.
const STRING_BODY_LIMIT = 16 * 1024;

function bodyArgument(body: Uint8Array): string | Buffer {
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return bytes.byteLength <= STRING_BODY_LIMIT && isUtf8(bytes) ? bytes.toString('utf8') : bytes;
}

function text(value: unknown): string {
  return Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
}

function decodeClaim(reply: unknown, token: string): ClaimResult {
  if (!Array.isArray(reply)) throw new Error('unexpected reply from the claim script');
  const state = text(reply[0]);
  if (state === 'new') return { state: 'new', token };
  if (state === 'mismatch') return { state: 'mismatch' };
  if (state === 'in_flight') {
    // This request's own claim, applied by an earlier send of the same command: it holds the key.
    if (reply[2] !== undefined && text(reply[2]) === token) return { state: 'new', token };
    return { state: 'in_flight', retryAfterMs: Math.max(0, Number(text(reply[1]))) };
  }
  const headers = JSON.parse(text(reply[2])) as [string, string][];
  const body = Buffer.isBuffer(reply[3]) ? reply[3] : Buffer.alloc(0);
  return { state: 'completed', response: { status: Number(text(reply[1])), headers, body } };
}

/** A call waiting for Redis: when it times out, and what to do then (dropped once settled). */
interface Deadline {
  readonly at: number;
  onTimeout: (() => void) | undefined;
}

/**
 * The timeouts of one store's calls, under one timer. Every call has the same timeout, so the
 * deadlines arrive in order and a FIFO queue holds them; a call settled before its deadline is only
 * marked, and dropped from the front. The timer is armed for the oldest pending deadline and fires
 * about once per timeout under steady load, instead of a `setTimeout` and `clearTimeout` per call
 * (a timer object, a list insertion and a removal per call). It is unref'd: the pending command
 * itself (ioredis's socket or reconnect timer) is what keeps a process alive, as it did before.
 */
class Deadlines {
  private queue: Deadline[] = [];
  private head = 0;
  private armed = false;

  constructor(private readonly timeoutMs: number) {}

  /** Starts the clock of one call; `onTimeout` runs once if it is not settled in time. */
  add(onTimeout: () => void): Deadline {
    const deadline: Deadline = { at: performance.now() + this.timeoutMs, onTimeout };
    this.queue.push(deadline);
    if (!this.armed) this.arm(this.timeoutMs);
    return deadline;
  }

  /** Settles a call: true when it was still pending, false when it had already timed out. */
  settle(deadline: Deadline): boolean {
    if (deadline.onTimeout === undefined) return false;
    deadline.onTimeout = undefined;
    this.drop();
    return true;
  }

  /** Removes settled calls from the front, so the queue holds about the calls in flight. */
  private drop(): void {
    const queue = this.queue;
    while (this.head < queue.length && queue[this.head]!.onTimeout === undefined) this.head += 1;
    if (this.head === queue.length) {
      queue.length = 0;
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= queue.length) {
      this.queue = queue.slice(this.head);
      this.head = 0;
    }
  }

  private arm(delay: number): void {
    this.armed = true;
    const timer = setTimeout(this.fire, delay);
    (timer as { unref?: () => void }).unref?.();
  }

  private readonly fire = (): void => {
    this.armed = false;
    const now = performance.now();
    const queue = this.queue;
    while (this.head < queue.length) {
      const deadline = queue[this.head]!;
      const onTimeout = deadline.onTimeout;
      if (onTimeout !== undefined) {
        if (deadline.at > now) break;
        deadline.onTimeout = undefined;
        onTimeout();
      }
      this.head += 1;
    }
    this.drop();
    const next = this.queue[this.head];
    if (next !== undefined && !this.armed) this.arm(Math.max(1, Math.ceil(next.at - now)));
  };
}

/**
 * An {@link IdempotencyStore} on Redis through `ioredis` (a single node or a Cluster), shared by
 * every instance of a service. Each step (claim, complete, release) is one Lua script, so one
 * round trip and atomic; complete and release compare the fencing token inside the script. Keys
 * are `prefix` + the SHA-256 of the lookup key; in-flight records expire with their lease,
 * completed ones after the retention time. A call that errors or exceeds `timeoutMs` rejects, so
 * the middleware fails closed with 503.
 *
 * @example
 * ```ts
 * import Redis from 'ioredis';
 * const store = createRedisStore({ client: new Redis(process.env.REDIS_URL!), prefix: 'api:idem:' });
 * ```
 */
export function createRedisStore(options: RedisStoreOptions): IdempotencyStore {
  const client = options.client as unknown as BufferScriptClient;
  const prefix = options.prefix ?? 'idem:';
  const timeoutMs = options.timeoutMs ?? 2_000;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
    throw new RangeError('timeoutMs must be a positive number');

  const deadlines = new Deadlines(timeoutMs);

  // One promise per call, its deadline in the store's shared queue (no timer of its own).
  // `late` hears a reply that came after the call had timed out.
  const run = (which: Script, key: string, args: Arg[], late?: (reply: unknown) => void): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const deadline = deadlines.add(() => reject(new Error(`Redis did not answer within ${timeoutMs} ms`)));
      const done = (value: unknown) => {
        if (deadlines.settle(deadline)) resolve(value);
        else late?.(value);
      };
      const fail = (error: unknown) => {
        if (deadlines.settle(deadline)) reject(error);
      };
      client.evalshaBuffer(which.sha, 1, prefix + key, ...args).then(done, (error: unknown) => {
        // The script cache is empty after a restart or failover: send the source once.
        if (error instanceof Error && error.message.startsWith('NOSCRIPT')) {
          client.evalBuffer(which.source, 1, prefix + key, ...args).then(done, fail);
        } else {
          fail(error);
        }
      });
    });

  return {
    async claim(key: string, request: ClaimRequest) {
      const { token } = request;
      const args = [request.fingerprint, token, Math.ceil(request.leaseMs)];
      // A claim that timed out can still be applied later: ioredis holds commands through a
      // failover and sends them to the new master, possibly after the caller's release (a no-op
      // then) has gone through. Its reply says so; the key is released then, tried again until the
      // lease ends, instead of staying "in flight" for the whole lease.
      const leaseEndsAt = Date.now() + request.leaseMs;
      const reply = await run(SCRIPTS.claim, key, args, (lateReply) => {
        let landed = false;
        try {
          landed = decodeClaim(lateReply, token).state === 'new';
        } catch {
          // Not a claim reply: nothing of ours to undo.
        }
        if (landed)
          void persist(
            () => run(SCRIPTS.release, key, [token]),
            leaseEndsAt,
            () => {},
          );
      });
      return decodeClaim(reply, token);
    },
    async complete(key: string, token: string, response: StoredResponse, retentionMs: number) {
      const reply = await run(SCRIPTS.complete, key, [
        token,
        response.status,
        JSON.stringify(response.headers),
        bodyArgument(response.body),
        Math.ceil(retentionMs),
      ]);
      return Number(reply) === 1;
    },
    async release(key: string, token: string) {
      return Number(await run(SCRIPTS.release, key, [token])) === 1;
    },
  };
}
