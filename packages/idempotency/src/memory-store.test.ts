import { describe, expect, it } from 'vitest';
import { createMemoryStore } from './memory-store.js';

const body = new Uint8Array(100);

describe('memory store bounds', () => {
  it('stays within maxEntries and maxBytes under 100 000 distinct keys', async () => {
    const store = createMemoryStore({ maxEntries: 1_000, maxBytes: 200_000 });
    let largest = 0;
    for (let i = 0; i < 100_000; i += 1) {
      const key = `key-${i}`;
      await store.claim(key, { fingerprint: 'f', token: 't', leaseMs: 60_000 });
      if (i % 2 === 0)
        await store.complete(key, 't', { status: 201, headers: [['location', `/o/${i}`]], body }, 60_000);
      largest = Math.max(largest, store.size);
    }
    expect(largest).toBeLessThanOrEqual(1_000);
    expect(store.bytes).toBeLessThanOrEqual(200_000);
    expect(store.size).toBeGreaterThan(0);
    // The newest records survive; the oldest were evicted.
    expect((await store.claim('key-99998', { fingerprint: 'f', token: 'x', leaseMs: 1 })).state).toBe(
      'completed',
    );
    expect((await store.claim('key-0', { fingerprint: 'f', token: 'x', leaseMs: 1 })).state).toBe('new');
  });

  it('sweeps expired records out on a later call', async () => {
    let time = 0;
    const store = createMemoryStore({ now: () => time, sweepIntervalMs: 1_000 });
    for (let i = 0; i < 500; i += 1) {
      await store.claim(`k${i}`, { fingerprint: 'f', token: 't', leaseMs: 5_000 });
      if (i % 2 === 0) await store.complete(`k${i}`, 't', { status: 200, headers: [], body }, 10_000);
    }
    expect(store.size).toBe(500);
    time = 6_000;
    await store.claim('other', { fingerprint: 'f', token: 't', leaseMs: 5_000 });
    expect(store.size).toBe(251);
    time = 20_000;
    store.purgeExpired();
    expect([store.size, store.bytes]).toEqual([0, 0]);
  });

  it('does not keep a response larger than maxBytes, and frees its key', async () => {
    const store = createMemoryStore({ maxBytes: 10_000 });
    await store.claim('big', { fingerprint: 'f', token: 't', leaseMs: 60_000 });
    expect(
      await store.complete('big', 't', { status: 200, headers: [], body: new Uint8Array(20_000) }, 60_000),
    ).toBe(false);
    expect((await store.claim('big', { fingerprint: 'f', token: 'u', leaseMs: 60_000 })).state).toBe('new');
  });

  it('keeps its own copy of the body', async () => {
    const store = createMemoryStore();
    const bytes = Uint8Array.from([1, 2, 3]);
    await store.claim('k', { fingerprint: 'f', token: 't', leaseMs: 60_000 });
    await store.complete('k', 't', { status: 200, headers: [], body: bytes }, 60_000);
    bytes[0] = 9;
    const replay = await store.claim('k', { fingerprint: 'f', token: 'u', leaseMs: 1 });
    expect(replay.state === 'completed' && [...replay.response.body]).toEqual([1, 2, 3]);
  });

  it.each([
    ['maxEntries', { maxEntries: 0 }],
    ['maxBytes', { maxBytes: -1 }],
    ['sweepIntervalMs', { sweepIntervalMs: Number.NaN }],
  ] as const)('rejects a non-positive %s', (name, options) => {
    expect(() => createMemoryStore(options)).toThrow(`${name} must be a positive number`);
  });
});
