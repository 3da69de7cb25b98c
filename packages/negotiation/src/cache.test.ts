import { describe, expect, it } from 'vitest';
import { LruCache } from './index.js';

describe('LruCache', () => {
  it('keeps recently used entries and drops the least recently used', () => {
    const cache = new LruCache<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 3); // generation turns over: a and b are old
    expect(cache.get('a')).toBe(1); // promoted
    cache.set('d', 4); // turns over again: old generation (b) is dropped
    expect([cache.get('a'), cache.get('b'), cache.get('c'), cache.get('d')]).toEqual([1, undefined, 3, 4]);
  });

  it('never holds more than twice its size', () => {
    const cache = new LruCache<number, number>(10);
    for (let i = 0; i < 1000; i++) cache.set(i, i);
    expect(cache.size).toBeLessThanOrEqual(20);
    expect(cache.get(999)).toBe(999);
  });

  it('overwrites an existing key without growing', () => {
    const cache = new LruCache<string, number>(4);
    cache.set('a', 1);
    cache.set('a', 2);
    expect([cache.get('a'), cache.size]).toEqual([2, 1]);
  });

  it('stores null values (a cached 406)', () => {
    const cache = new LruCache<string, null>(4);
    cache.set('x', null);
    expect(cache.get('x')).toBeNull();
  });

  it('stores nothing with size 0', () => {
    const cache = new LruCache<string, number>(0);
    cache.set('a', 1);
    expect([cache.get('a'), cache.size]).toEqual([undefined, 0]);
  });

  it.each([-1, 1.5, Number.NaN])('rejects size %s', (size) => {
    expect(() => new LruCache(size)).toThrow(RangeError);
  });
});
