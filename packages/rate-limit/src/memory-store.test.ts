import { type Store as ErlStore, rateLimit } from 'express-rate-limit';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from './memory-store.js';

function setup() {
  let clock = 1_000_000;
  const store = new MemoryStore({ now: () => clock });
  store.init({ windowMs: 60_000 });
  return {
    store,
    advance: (ms: number) => {
      clock += ms;
    },
    at: (ms: number) => new Date(1_000_000 + ms),
  };
}

describe('MemoryStore', () => {
  it('counts hits in a window that starts at the first hit', () => {
    const t = setup();
    expect(t.store.increment('a')).toEqual({ totalHits: 1, resetTime: t.at(60_000) });
    t.advance(59_999);
    expect(t.store.increment('a')).toEqual({ totalHits: 2, resetTime: t.at(60_000) });
    expect(t.store.get('a')).toEqual({ totalHits: 2, resetTime: t.at(60_000) });
  });

  it('a key whose window has ended starts a new one', () => {
    const t = setup();
    t.store.increment('a');
    t.store.increment('a');
    t.advance(60_000);
    expect(t.store.get('a')).toBeUndefined();
    expect(t.store.increment('a')).toEqual({ totalHits: 1, resetTime: t.at(120_000) });
  });

  it('keys count apart; decrement never goes below zero; resetKey and resetAll forget', () => {
    const t = setup();
    t.store.increment('a');
    t.store.increment('b');
    t.store.decrement('a');
    t.store.decrement('a');
    t.store.decrement('missing');
    expect([t.store.get('a')?.totalHits, t.store.get('b')?.totalHits, t.store.get('missing')]).toEqual([
      0,
      1,
      undefined,
    ]);
    t.store.resetKey('b');
    expect(t.store.get('b')).toBeUndefined();
    t.store.increment('c');
    t.store.resetAll();
    expect(t.store.get('c')).toBeUndefined();
  });

  it('ended windows are swept, so keys seen once do not pile up', () => {
    const t = setup();
    for (let i = 0; i < 1000; i++) t.store.increment(`k${i}`);
    t.advance(60_000);
    t.store.increment('new');
    // Every earlier key's window has ended: a fresh count, and nothing is left of the old ones.
    expect(Array.from({ length: 1000 }, (_, i) => t.store.get(`k${i}`)).filter(Boolean)).toEqual([]);
    expect(t.store.get('new')?.totalHits).toBe(1);
  });

  it('is an express-rate-limit Store: its middleware counts with it', async () => {
    const store: ErlStore = new MemoryStore();
    const refused: number[] = [];
    const middleware = rateLimit({
      limit: 2,
      store,
      validate: false,
      standardHeaders: false,
      legacyHeaders: false,
      keyGenerator: () => 'k',
      handler: (_req, _res, next) => {
        refused.push(1);
        next();
      },
    });
    const res = {
      headersSent: false,
      statusCode: 200,
      setHeader: () => {},
      append: () => {},
      once: () => {},
    };
    for (let i = 0; i < 3; i++)
      await new Promise<void>(
        (resolve) => void middleware({ ip: '203.0.113.7' } as never, res as never, () => resolve()),
      );
    expect([refused.length, (store as MemoryStore).get('k')?.totalHits]).toEqual([1, 3]);
  });
});
