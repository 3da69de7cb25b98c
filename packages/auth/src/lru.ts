/**
 * A bounded least-recently-used map (internal). Map iteration order is insertion order, so
 * re-inserting on read keeps the oldest entry first and eviction is O(1).
 *
 * @example
 * ```ts
 * const cache = new Lru<string, number>(2);
 * cache.set('a', 1);
 * ```
 */
export class Lru<K, V> {
  readonly #max: number;
  readonly #map = new Map<K, V>();
  /** The key inserted or moved last (the end of the map's order), while it is in the map. */
  #newest: K | undefined;

  constructor(max: number) {
    this.#max = max;
  }

  get size(): number {
    return this.#map.size;
  }

  get(key: K): V | undefined {
    const value = this.#map.get(key);
    // The newest entry needs no move (a run of requests with one token moves nothing).
    if (value !== undefined && key !== this.#newest) {
      this.#map.delete(key);
      this.#map.set(key, value);
      this.#newest = key;
    }
    return value;
  }

  set(key: K, value: V): void {
    if (this.#max <= 0) return;
    this.#map.delete(key);
    this.#map.set(key, value);
    this.#newest = key;
    if (this.#map.size > this.#max) this.#map.delete(this.#map.keys().next().value as K);
  }

  delete(key: K): void {
    this.#map.delete(key);
    if (key === this.#newest) this.#newest = undefined;
  }

  clear(): void {
    this.#map.clear();
    this.#newest = undefined;
  }
}
