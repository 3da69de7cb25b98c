/**
 * The default cursor key is drawn on first use, never when a collection is defined: Cloudflare Workers
 * refuse a module that makes random values in global scope, where collections are usually defined.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';

const drawn = vi.hoisted(() => ({ sizes: [] as number[] }));
vi.mock('node:crypto', async (importOriginal) => {
  const crypto = await importOriginal<typeof import('node:crypto')>();
  return {
    ...crypto,
    randomBytes: (size: number) => {
      drawn.sizes.push(size);
      return crypto.randomBytes(size);
    },
  };
});

// A module graph of its own, built with the mock above even when another file of this worker
// imported the package first (the package projects share modules between files).
vi.resetModules();
const { applyToArray, buildPage, defineCollection, parseQuery } = await import('./index.js');

const rows = [1, 2, 3, 4, 5].map((id) => ({ id }));
afterEach(() => {
  drawn.sizes.length = 0;
});

describe('default cursor key', () => {
  it('is not drawn when the collection is defined, nor by a query without a cursor', () => {
    const random = defineCollection({ fields: { id: { type: 'int', sort: true } } });
    parseQuery(random, 'limit=2&sort=-id');
    expect(drawn.sizes).toEqual([]);
  });

  it('is drawn once, on the first cursor, and reused for the next ones', () => {
    const random = defineCollection({ fields: { id: { type: 'int', sort: true } } });
    const first = parseQuery(random, 'limit=2');
    const cursor = buildPage(first, applyToArray(first, rows), { baseUrl: '/r' }).body.page.next_cursor!;
    expect(drawn.sizes).toEqual([32]);
    const second = parseQuery(random, `limit=2&cursor=${cursor}`);
    expect(second.pagination).toMatchObject({ after: [2] });
    buildPage(second, applyToArray(second, rows), { baseUrl: '/r' });
    expect(drawn.sizes).toEqual([32]);
  });

  it('is drawn when the first thing a collection sees is a cursor, which then fails as invalid', () => {
    const one = defineCollection({ fields: { id: { type: 'int', sort: true } } });
    const first = parseQuery(one, 'limit=2');
    const cursor = buildPage(first, applyToArray(first, rows), { baseUrl: '/r' }).body.page.next_cursor!;
    const other = defineCollection({ fields: { id: { type: 'int', sort: true } } });
    expect(() => parseQuery(other, `limit=2&cursor=${cursor}`)).toThrow(
      expect.objectContaining({ code: 'invalid_cursor' }),
    );
    expect(drawn.sizes).toEqual([32, 32]);
  });

  it('is never drawn when a secret is given', () => {
    const signed = defineCollection({
      fields: { id: { type: 'int', sort: true } },
      cursorSecret: 'a-secret-of-at-least-thirty-two-bytes!',
    });
    const first = parseQuery(signed, 'limit=2');
    buildPage(first, applyToArray(first, rows), { baseUrl: '/r' });
    expect(drawn.sizes).toEqual([]);
  });
});
