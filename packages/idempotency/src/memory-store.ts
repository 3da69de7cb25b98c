import type { ClaimRequest, ClaimResult, IdempotencyStore, StoredResponse } from './store.js';

/**
 * Options for {@link createMemoryStore}.
 *
 * @example
 * ```ts
 * const options: MemoryStoreOptions = { maxEntries: 50_000, maxBytes: 128 * 1024 * 1024 };
 * ```
 */
export interface MemoryStoreOptions {
  /** Most records kept; the oldest are evicted first. Default 10 000. */
  readonly maxEntries?: number;
  /** Most bytes (keys, headers and bodies, estimated) kept; the oldest are evicted first. Default 64 MiB. */
  readonly maxBytes?: number;
  /** Expired records are swept at most this often (ms), on the next store call. Default 1 000. */
  readonly sweepIntervalMs?: number;
  /** Clock, for tests. Default `Date.now`. */
  readonly now?: () => number;
}

/**
 * The in-process store, with its occupancy exposed for monitoring.
 *
 * @example
 * ```ts
 * const store: MemoryStore = createMemoryStore();
 * store.size; // 0
 * ```
 */
export interface MemoryStore extends IdempotencyStore {
  /** Records currently held (expired ones not yet swept included). */
  readonly size: number;
  /** Estimated bytes currently held. */
  readonly bytes: number;
  /** Removes every expired record now. */
  purgeExpired(): void;
}

interface Entry {
  readonly fingerprint: string;
  readonly token: string;
  readonly response: StoredResponse | undefined;
  readonly expiresAt: number;
  readonly bytes: number;
}

// Rough per-record overhead of the Map slot and the entry object, so many tiny records still count.
const ENTRY_OVERHEAD = 160;

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`${name} must be a positive number`);
  return value;
}

function responseBytes(response: StoredResponse): number {
  let size = response.body.byteLength + 8;
  for (const [name, value] of response.headers) size += name.length + value.length + 16;
  return size;
}

/**
 * An in-process {@link IdempotencyStore} for one instance (use the Redis store when several
 * instances share traffic). Bounded by entries and bytes: when full, the oldest records are
 * evicted (an evicted in-flight claim can then no longer complete, so its response is not stored).
 * Expired records are invisible at once and swept out on a later call.
 *
 * @example
 * ```ts
 * app.post('/orders', idempotency({ store: createMemoryStore({ maxEntries: 50_000 }) }), createOrder);
 * ```
 */
export function createMemoryStore(options: MemoryStoreOptions = {}): MemoryStore {
  const maxEntries = positive('maxEntries', options.maxEntries ?? 10_000);
  const maxBytes = positive('maxBytes', options.maxBytes ?? 64 * 1024 * 1024);
  const sweepIntervalMs = positive('sweepIntervalMs', options.sweepIntervalMs ?? 1_000);
  const now = options.now ?? Date.now;
  // Insertion order doubles as age order: a record is re-inserted when it changes.
  const entries = new Map<string, Entry>();
  let bytes = 0;
  let nextSweep = 0;

  const remove = (key: string, entry: Entry) => {
    entries.delete(key);
    bytes -= entry.bytes;
  };

  const purgeExpired = () => {
    const time = now();
    for (const [key, entry] of entries) if (entry.expiresAt <= time) remove(key, entry);
    nextSweep = time + sweepIntervalMs;
  };

  const live = (key: string): Entry | undefined => {
    const time = now();
    if (time >= nextSweep) purgeExpired();
    const entry = entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt > time) return entry;
    remove(key, entry);
    return undefined;
  };

  const put = (key: string, entry: Entry) => {
    const previous = entries.get(key);
    if (previous !== undefined) remove(key, previous);
    entries.set(key, entry);
    bytes += entry.bytes;
    for (const [oldKey, oldEntry] of entries) {
      if (entries.size <= maxEntries && bytes <= maxBytes) break;
      remove(oldKey, oldEntry);
    }
  };

  return {
    get size() {
      return entries.size;
    },
    get bytes() {
      return bytes;
    },
    purgeExpired,
    async claim(key: string, request: ClaimRequest): Promise<ClaimResult> {
      const entry = live(key);
      if (entry === undefined) {
        put(key, {
          fingerprint: request.fingerprint,
          token: request.token,
          response: undefined,
          expiresAt: now() + request.leaseMs,
          bytes: ENTRY_OVERHEAD + key.length + request.fingerprint.length + request.token.length,
        });
        return { state: 'new', token: request.token };
      }
      if (entry.fingerprint !== request.fingerprint) return { state: 'mismatch' };
      if (entry.response !== undefined) return { state: 'completed', response: entry.response };
      return { state: 'in_flight', retryAfterMs: entry.expiresAt - now() };
    },
    async complete(key: string, token: string, response: StoredResponse, retentionMs: number) {
      const entry = live(key);
      if (entry === undefined || entry.token !== token || entry.response !== undefined) return false;
      const size = ENTRY_OVERHEAD + key.length + entry.fingerprint.length + responseBytes(response);
      if (size > maxBytes) {
        remove(key, entry);
        return false;
      }
      // Copied so a caller reusing its buffer cannot change what is replayed.
      const copy: StoredResponse = {
        status: response.status,
        headers: response.headers.map(([name, value]) => [name, value] as const),
        body: new Uint8Array(response.body),
      };
      put(key, { ...entry, response: copy, expiresAt: now() + retentionMs, bytes: size });
      return true;
    },
    async release(key: string, token: string) {
      const entry = live(key);
      if (entry === undefined || entry.token !== token || entry.response !== undefined) return false;
      remove(key, entry);
      return true;
    },
  };
}
