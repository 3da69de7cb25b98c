/**
 * The pieces that keep the service answering when a dependency stalls: the rate limiter's local
 * fallback, and the configuration of every deadline.
 */

import {
  type ClientRateLimitInfo,
  FallbackStore,
  type Store,
  type StoreInitOptions,
} from '@plumbline/rate-limit';
import { redisAvailable } from '@plumbline/test-utils';
import { describe, expect, it } from 'vitest';
import { ConfigError, helpText, loadConfig } from '../src/service/config.js';
import { startService } from './harness.js';

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
  store.init({ windowMs: 60_000 } as StoreInitOptions);
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

describe('FallbackStore: the rate limiter when Redis fails or stalls', () => {
  it('counts in the shared store while it answers', async () => {
    const t = setup('answers');
    expect((await t.store.increment('ip:1')).totalHits).toBe(100);
    expect([t.store.local, t.calls]).toEqual([false, ['increment ip:1']]);
    t.store.shutdown();
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
      expect(t.store.local).toBe(true);
      expect(t.calls).toEqual(['increment ip:1']);
      t.store.shutdown();
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
    t.store.shutdown();
  });

  it('stores sharing a circuit switch together: one failure spares the other store its wait', async () => {
    const calls: string[] = [];
    const circuit = { localUntil: 0 };
    const make = () =>
      new FallbackStore({ primary: primary(() => 'hangs', calls), timeoutMs: 20, circuit, now: () => 0 });
    const [first, second] = [make(), make()];
    first.init({ windowMs: 60_000 } as StoreInitOptions);
    second.init({ windowMs: 60_000 } as StoreInitOptions);
    await first.increment('ip:1');
    expect([second.local, (await second.increment('ip:1')).totalHits, calls]).toEqual([
      true,
      1,
      ['increment ip:1'],
    ]);
    first.shutdown();
    second.shutdown();
  });

  it('decrement, resetKey and get fall back the same way', async () => {
    const t = setup('hangs');
    await t.store.increment('ip:1');
    await t.store.increment('ip:1');
    await t.store.decrement('ip:1');
    expect((await t.store.get('ip:1'))?.totalHits).toBe(1);
    await t.store.resetKey('ip:1');
    expect(await t.store.get('ip:1')).toBeUndefined();
    t.store.shutdown();
  });
});

describe('deadlines and idempotency settings', () => {
  it('defaults', () => {
    const config = loadConfig({});
    expect([config.timeouts, config.idempotencyStore, config.idempotencyLeaseMs]).toEqual([
      { redisCommandMs: 1000, redisConnectMs: 2000, databaseStatementMs: 5000, databaseConnectMs: 2000 },
      'database',
      60_000,
    ]);
  });

  it.each([
    ['REDIS_COMMAND_TIMEOUT_MS', '250', (c: ReturnType<typeof loadConfig>) => c.timeouts.redisCommandMs, 250],
    ['REDIS_CONNECT_TIMEOUT_MS', '750', (c: ReturnType<typeof loadConfig>) => c.timeouts.redisConnectMs, 750],
    [
      'DATABASE_STATEMENT_TIMEOUT_MS',
      '3000',
      (c: ReturnType<typeof loadConfig>) => c.timeouts.databaseStatementMs,
      3000,
    ],
    [
      'DATABASE_CONNECT_TIMEOUT_MS',
      '1500',
      (c: ReturnType<typeof loadConfig>) => c.timeouts.databaseConnectMs,
      1500,
    ],
    ['IDEMPOTENCY_STORE', 'shared', (c: ReturnType<typeof loadConfig>) => c.idempotencyStore, 'shared'],
    ['IDEMPOTENCY_LEASE_MS', '5000', (c: ReturnType<typeof loadConfig>) => c.idempotencyLeaseMs, 5000],
  ] as const)('%s=%s is read', (name, value, pick, expected) => {
    expect(pick(loadConfig({ [name]: value }))).toBe(expected);
  });

  it.each([
    ['REDIS_COMMAND_TIMEOUT_MS', '0'],
    ['REDIS_COMMAND_TIMEOUT_MS', '1s'],
    ['DATABASE_STATEMENT_TIMEOUT_MS', '-5'],
    ['DATABASE_CONNECT_TIMEOUT_MS', '9999999'],
    ['IDEMPOTENCY_STORE', 'redis'],
    ['IDEMPOTENCY_LEASE_MS', '50'],
  ])('%s=%s stops the start with a message naming it', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });

  it('--help lists every new setting with its default', () => {
    const help = helpText();
    for (const [name, value] of [
      ['REDIS_COMMAND_TIMEOUT_MS', '1000'],
      ['REDIS_CONNECT_TIMEOUT_MS', '2000'],
      ['DATABASE_STATEMENT_TIMEOUT_MS', '5000'],
      ['DATABASE_CONNECT_TIMEOUT_MS', '2000'],
      ['IDEMPOTENCY_STORE', 'database'],
      ['IDEMPOTENCY_LEASE_MS', '60000'],
    ]) {
      expect(help).toMatch(new RegExp(`${name} .*\\(default: ${value}\\)`));
    }
  });
});

const redisUp = await redisAvailable();

describe.skipIf(!redisUp)('/ready with Redis gone', () => {
  it('503 problem naming the dependency that is down; /health stays 200', async () => {
    const svc = await startService({ name: 'sqlite + redis', postgres: false, redis: true });
    try {
      svc.ctx.redis?.disconnect();
      const ready = await fetch(`${svc.url}/ready`);
      const health = await fetch(`${svc.url}/health`);
      const body = (await ready.json()) as Record<string, unknown>;
      expect([ready.status, ready.headers.get('retry-after'), ready.headers.get('content-type')]).toEqual([
        503,
        '1',
        'application/problem+json; charset=utf-8',
      ]);
      expect([body['error_code'], body['checks']]).toEqual([
        'service_unavailable',
        { database: 'ok', redis: 'down' },
      ]);
      expect(health.status).toBe(200);
    } finally {
      await svc.ctx.redis?.connect().catch(() => {});
      await svc.stop().catch(() => {});
    }
  });
});
