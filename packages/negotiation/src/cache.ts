/**
 * A bounded least-recently-used cache in two generations (the scheme of `quick-lru`): reads from
 * the young generation cost one `Map.get` and no writes, which keeps a cached negotiation far
 * below a microsecond; an entry found only in the old generation is promoted. When the young
 * generation is full it becomes the old one and the previous old one is dropped, so at most
 * `2 × maxSize` entries are ever held and recently used ones always survive.
 *
 * @example
 * ```ts
 * const cache = new LruCache<string, number>(2);
 * cache.set('a', 1);
 * cache.get('a'); // 1
 * ```
 */
export class LruCache<K, V> {
  readonly maxSize: number;
  #young = new Map<K, V>();
  #old = new Map<K, V>();

  constructor(maxSize: number) {
    if (!Number.isInteger(maxSize) || maxSize < 0) {
      throw new RangeError(`cacheSize must be a non-negative integer, got ${maxSize}`);
    }
    this.maxSize = maxSize;
  }

  /** Entries currently held (both generations); never more than `2 × maxSize`. */
  get size(): number {
    return this.#young.size + this.#old.size;
  }

  /** The cached value for `key`, or undefined; a hit keeps the entry young. */
  get(key: K): V | undefined {
    const young = this.#young.get(key);
    if (young !== undefined) return young;
    const old = this.#old.get(key);
    if (old !== undefined) {
      this.#old.delete(key);
      this.#store(key, old);
    }
    return old;
  }

  /** Caches `value` under `key`, evicting the oldest generation when full. */
  set(key: K, value: V): void {
    if (this.#young.has(key)) this.#young.set(key, value);
    else {
      this.#old.delete(key);
      this.#store(key, value);
    }
  }

  #store(key: K, value: V): void {
    if (this.maxSize === 0) return;
    if (this.#young.size >= this.maxSize) {
      this.#old = this.#young;
      this.#young = new Map();
    }
    this.#young.set(key, value);
  }
}
