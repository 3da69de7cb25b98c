/** FallbackStore: the limiter's policy when its shared store (Redis) fails or stalls. */
import { describe, expect, it } from 'vitest';
import { FallbackStore } from './fallback-store.js';
import type { ClientRateLimitInfo, Store } from './store.js';

type Behaviour = 'answers' | 'fails' | 'hangs';

function primary(behaviour: () => Behaviour, calls: string[]): Store {
  const act = <T>(name: string, value: T): Promise<T> => {
    calls.push(name);
    const now = behaviour();
    if (now === 'fails') return Promise.reject(new Error('ECONNRESET'));
    if (now === 'hangs') return new Promise(() => {});
    return Promise.resolve(value);
  };
  return {
    prefix: 'rl:',
    increment: (key) =>
      act<ClientRateLimitInfo>(`increment ${key}`, { totalHits: 100, resetTime: undefined }),
    decrement: (key) => act(`decrement ${key}`, undefined),
    resetKey: (key) => act(`reset ${key}`, undefined),
    get: (key) =>
      act<ClientRateLimitInfo | undefined>(`get ${key}`, { totalHits: 100, resetTime: undefined }),
  };
}

function setup(first: Behaviour) {
  let behaviour = first;
  let clock = 0;
  const calls: string[] = [];
  const store = new FallbackStore({
    primary: primary(() => behaviour, calls),
    timeoutMs: 20,
    retryAfterMs: 5000,
    now: () => clock,
  });
  store.init({ windowMs: 60_000 });
  return {
    store,
    calls,
    set: (next: Behaviour) => {
      behaviour = next;
    },
    advance: (ms: number) => {
      clock += ms;
    },
  };
}

describe('FallbackStore', () => {
  it('counts in the shared store while it answers, and has its prefix', async () => {
    const t = setup('answers');
    expect((await t.store.increment('ip:1')).totalHits).toBe(100);
    expect([t.store.local, t.calls, t.store.prefix]).toEqual([false, ['increment ip:1'], 'rl:']);
  });

  it.each([
    ['fails', 'an error'],
    ['hangs', 'no answer within the deadline'],
  ] as const)(
    'on %s (%s) counts locally, and does not ask the shared store again for a while',
    async (behaviour, _what) => {
      const t = setup(behaviour);
      expect((await t.store.increment('ip:1')).totalHits).toBe(1);
      expect((await t.store.increment('ip:1')).totalHits).toBe(2);
      expect([t.store.local, t.calls]).toEqual([true, ['increment ip:1']]);
    },
  );

  it('tries the shared store again after the retry period, and uses it once it answers', async () => {
    const t = setup('fails');
    await t.store.increment('ip:1');
    t.set('answers');
    t.advance(4999);
    expect((await t.store.increment('ip:1')).totalHits).toBe(2);
    t.advance(1);
    expect((await t.store.increment('ip:1')).totalHits).toBe(100);
    expect([t.store.local, t.calls]).toEqual([false, ['increment ip:1', 'increment ip:1']]);
  });

  it('stores sharing a circuit switch together: one deadline for a request passing two limiters', async () => {
    const calls: string[] = [];
    const circuit = { localUntil: 0 };
    const make = () =>
      new FallbackStore({ primary: primary(() => 'hangs', calls), timeoutMs: 20, circuit, now: () => 0 });
    const [first, second] = [make(), make()];
    first.init({ windowMs: 60_000 });
    second.init({ windowMs: 60_000 });
    await first.increment('ip:1');
    expect([second.local, (await second.increment('ip:1')).totalHits, calls]).toEqual([
      true,
      1,
      ['increment ip:1'],
    ]);
  });

  it('decrement, resetKey and get fall back the same way', async () => {
    const t = setup('hangs');
    await t.store.increment('ip:1');
    await t.store.increment('ip:1');
    await t.store.decrement('ip:1');
    expect((await t.store.get('ip:1'))?.totalHits).toBe(1);
    await t.store.resetKey('ip:1');
    expect(await t.store.get('ip:1')).toBeUndefined();
  });

  it('a shared store that fails to start switches to local counting', async () => {
    const calls: string[] = [];
    const store = new FallbackStore({
      primary: { ...primary(() => 'answers', calls), init: () => Promise.reject(new Error('NOSCRIPT')) },
      timeoutMs: 20,
      now: () => 0,
    });
    store.init({ windowMs: 60_000 });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect([store.local, (await store.increment('ip:1')).totalHits, calls]).toEqual([true, 1, []]);
  });

  it('shutdown shuts the shared store down', async () => {
    const calls: string[] = [];
    const store = new FallbackStore({
      primary: { ...primary(() => 'answers', calls), shutdown: () => void calls.push('shutdown') },
      timeoutMs: 20,
    });
    await store.shutdown();
    expect(calls).toEqual(['shutdown']);
  });
});
