import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createIdempotency } from './core.js';
import { createMemoryStore } from './memory-store.js';
import { persist } from './persist.js';
import type { IdempotencyStore } from './store.js';

/** A write that fails `failures` times, then succeeds; `at` lists the clock at every try. */
function flaky(failures: number) {
  const at: number[] = [];
  const write = async () => {
    at.push(Date.now());
    if (at.length <= failures) throw new Error(`down (try ${at.length})`);
    return true;
  };
  return { at, write };
}

describe('persist: a store write after the response, tried until the lease ends', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it.each([
    ['succeeds at once', 0, [0]],
    ['succeeds on the second try, 100 ms later', 1, [0, 100]],
    ['succeeds on the fourth try: the wait doubles', 3, [0, 100, 300, 700]],
    ['the wait stops doubling at 2 s', 7, [0, 100, 300, 700, 1_500, 3_100, 5_100, 7_100]],
  ] as const)('%s; nothing is reported', async (_name, failures, expected) => {
    const { at, write } = flaky(failures);
    const onError = vi.fn();
    await persist(write, 60_000, onError);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(at).toEqual(expected);
    expect(onError).not.toHaveBeenCalled();
  });

  it('resolves after the first try even when it failed (the response is not held for the retries)', async () => {
    const { at, write } = flaky(2);
    let resolved = false;
    void persist(write, 60_000, () => {}).then(() => {
      resolved = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect([resolved, at]).toEqual([true, [0]]);
  });

  it('a write that never lands is reported once, with the last error, when the next try would pass the lease end', async () => {
    const { at, write } = flaky(Number.POSITIVE_INFINITY);
    const onError = vi.fn();
    await persist(write, 1_000, onError);
    await vi.advanceTimersByTimeAsync(5_000);
    // 0, 100, 300, 700; the next would be at 1 500, past the lease end at 1 000.
    expect(at).toEqual([0, 100, 300, 700]);
    expect(onError.mock.calls.map(([error]) => (error as Error).message)).toEqual(['down (try 4)']);
  });
});

describe('a claim whose store write failed can be settled again', () => {
  it('complete rejects, the claim stays open, the repeat stores; a settled claim refuses a third call', async () => {
    const memory = createMemoryStore();
    let fail = 1;
    const store: IdempotencyStore = {
      claim: (key, request) => memory.claim(key, request),
      complete: async (...args) => {
        if (fail-- > 0) throw new Error('store down');
        return memory.complete(...args);
      },
      release: (key, token) => memory.release(key, token),
    };
    const idem = createIdempotency({ store, leaseMs: 5_000 });
    const request = {
      method: 'POST',
      path: '/o',
      query: '',
      route: '/o',
      headers: { 'idempotency-key': 'k' },
      body: { a: 1 },
      required: true,
    };
    const before = Date.now();
    const decision = await idem.begin(request);
    if (decision.action !== 'execute') throw new Error('expected execute');
    expect(decision.claim.leaseEndsAt).toBeGreaterThanOrEqual(before + 5_000);
    expect(decision.claim.leaseEndsAt).toBeLessThanOrEqual(Date.now() + 5_000);
    const response = { status: 201, headers: {}, body: new TextEncoder().encode('{"id":1}') };
    await expect(decision.claim.complete(response)).rejects.toThrow('store down');
    expect((await idem.begin(request).catch((e: { code?: string }) => e.code)) as unknown).toBe(
      'idempotency_key_in_use',
    );
    expect(await decision.claim.complete(response)).toBe('stored');
    await expect(decision.claim.release()).rejects.toThrow('already settled');
    const replay = await idem.begin(request);
    expect(replay.action === 'replay' && new TextDecoder().decode(replay.response.body)).toBe('{"id":1}');
  });

  it('a second call while the first is pending is refused', async () => {
    const idem = createIdempotency({ store: createMemoryStore() });
    const decision = await idem.begin({
      method: 'POST',
      path: '/o',
      query: '',
      route: '/o',
      headers: { 'idempotency-key': 'k2' },
      body: undefined,
      required: true,
    });
    if (decision.action !== 'execute') throw new Error('expected execute');
    const first = decision.claim.release();
    await expect(decision.claim.release()).rejects.toThrow('being settled');
    expect(await first).toBe(true);
  });
});
