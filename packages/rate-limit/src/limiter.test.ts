/**
 * The limiter's decisions, and its draft-7 and draft-8 fields held to express-rate-limit 8's own
 * bytes on the same sequence of requests.
 */
import { toProblem } from '@plumbline/errors';
import { MemoryStore as ErlMemoryStore, rateLimit } from 'express-rate-limit';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createLimiter,
  type HeaderMode,
  partitionKey,
  quotaName,
  type RateDecision,
  rateLimitedError,
} from './limiter.js';
import { MemoryStore } from './memory-store.js';
import type { Store } from './store.js';

afterEach(() => {
  vi.useRealTimers();
});

/** The headers express-rate-limit 8 sets on the last of `hits` requests of `key`. */
async function libraryHeaders(
  mode: 'draft-7' | 'draft-8',
  key: string,
  limit: number,
  windowMs: number,
  hits: number,
): Promise<Record<string, string>> {
  const middleware = rateLimit({
    windowMs,
    limit,
    standardHeaders: mode,
    legacyHeaders: false,
    validate: false,
    store: new ErlMemoryStore(),
    keyGenerator: () => key,
    handler: (_req, _res, next) => next(),
  });
  let headers: Record<string, string> = {};
  for (let i = 0; i < hits; i++) {
    headers = {};
    const res = {
      headersSent: false,
      statusCode: 200,
      setHeader: (name: string, value: string) => {
        headers[name] = value;
      },
      append: (name: string, value: string) => {
        headers[name] = value;
      },
      once: () => undefined,
    };
    await new Promise<void>((resolve) => {
      void middleware({ ip: '203.0.113.7' } as never, res as never, () => resolve());
    });
  }
  return headers;
}

async function consumeTimes(
  mode: HeaderMode,
  key: string,
  limit: number,
  windowMs: number,
  hits: number,
): Promise<RateDecision | undefined> {
  const limiter = createLimiter({ limit, windowMs, headers: mode });
  let decision = await limiter.consume(key);
  for (let i = 1; i < hits; i++) decision = await limiter.consume(key);
  return decision;
}

describe("the fields are express-rate-limit 8's bytes", () => {
  it.each([
    ['draft-8', 'client:demo', 5, 60_000, 1],
    ['draft-8', 'client:demo', 5, 60_000, 5],
    ['draft-8', 'ip:203.0.113.7', 5, 60_000, 6],
    ['draft-8', 'ip:2001:db8::/56', 60, 60_000, 61],
    ['draft-8', 'client:a', 100, 15 * 60_000, 3],
    ['draft-8', 'client:b', 2, 30_000, 4],
    ['draft-8', 'client:c', 1000, 3_600_000, 2],
    ['draft-8', 'client:d', 10, 2 * 86_400_000, 11],
    ['draft-7', 'client:demo', 5, 60_000, 1],
    ['draft-7', 'ip:203.0.113.7', 5, 60_000, 6],
    ['draft-7', 'client:b', 2, 30_000, 4],
  ] as const)('%s, key %s, limit %i per %i ms, hit %i times', async (mode, key, limit, windowMs, hits) => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse('2026-11-25T12:00:00Z') });
    const expected = await libraryHeaders(mode, key, limit, windowMs, hits);
    const decision = await consumeTimes(mode, key, limit, windowMs, hits);
    expect(decision?.headers).toEqual(expected);
    expect(decision?.exceeded).toBe(hits > limit);
  });
});

describe('createLimiter', () => {
  const T = Date.parse('2026-11-25T12:00:00Z');

  it.each([
    [
      'draft-8',
      1,
      {
        RateLimit: '"2-in-1min"; r=1; t=60',
        'RateLimit-Policy': `"2-in-1min"; q=2; w=60; pk=:${partitionKey('k')}:`,
      },
    ],
    [
      'draft-10',
      3,
      {
        RateLimit: '"2-in-1min"; r=0; t=60',
        'RateLimit-Policy': `"2-in-1min"; q=2; w=60; pk=:${partitionKey('k')}:`,
        'Retry-After': '60',
      },
    ],
    ['draft-7', 2, { 'RateLimit-Policy': '2;w=60', RateLimit: 'limit=2, remaining=0, reset=60' }],
    [false, 3, {}],
  ] as const)('headers %s, hit %i times: %j', async (mode, hits, headers) => {
    const limiter = createLimiter({
      limit: 2,
      headers: mode,
      store: new MemoryStore({ now: () => T }),
      now: () => T,
    });
    let decision = await limiter.consume('k');
    for (let i = 1; i < hits; i++) decision = await limiter.consume('k');
    expect(decision?.headers).toEqual(headers);
  });

  it('headers default to draft-8', async () => {
    const decision = await createLimiter({ limit: 2 }).consume('k');
    expect(Object.keys(decision?.headers ?? {})).toEqual(['RateLimit', 'RateLimit-Policy']);
  });

  it.each([
    ['draft-8', undefined],
    ['draft-10', ['2-in-1min']],
    ['draft-7', undefined],
    [false, undefined],
  ] as const)('a spent limit, headers %s: the 429 problem (violated-policies %j)', async (mode, violated) => {
    const limiter = createLimiter({
      limit: 2,
      headers: mode,
      store: new MemoryStore({ now: () => T }),
      now: () => T,
    });
    await limiter.consume('k');
    await limiter.consume('k');
    const decision = await limiter.consume('k');
    expect([decision?.exceeded, decision?.error?.status, decision?.error?.headers]).toEqual([
      true,
      429,
      { 'Retry-After': '60' },
    ]);
    expect(toProblem(decision?.error)).toEqual({
      ...(violated ? { 'violated-policies': violated } : {}),
      type: '/errors/rate_limited',
      title: 'Too Many Requests',
      status: 429,
      detail: 'Too many requests; retry after 60 seconds.',
      error_code: 'rate_limited',
      message: 'Too many requests; retry after 60 seconds.',
    });
  });

  it('a request within the limit has no error', async () => {
    const decision = await createLimiter({ limit: 1 }).consume('k');
    expect([decision?.exceeded, decision?.error]).toEqual([false, undefined]);
  });

  it('a policy name is written as a String, with " and \\ escaped', async () => {
    const decision = await createLimiter({
      limit: 1,
      policyName: 'per "user" \\ minute',
      store: new MemoryStore({ now: () => T }),
      now: () => T,
    }).consume('k');
    expect(decision?.headers['RateLimit']).toBe('"per \\"user\\" \\\\ minute"; r=0; t=60');
  });

  it.each([
    [{ limit: -1 }, 'limit must be a non-negative integer, got -1'],
    [{ limit: 1.5 }, 'limit must be a non-negative integer, got 1.5'],
    [{ limit: 1, windowMs: 0 }, 'windowMs must be a positive number, got 0'],
    [{ limit: 1, windowMs: Number.NaN }, 'windowMs must be a positive number, got NaN'],
    [{ limit: 1, policyName: 'per\nminute' }, 'policyName must be printable ASCII'],
    [{ limit: 1, policyName: 'pro Minute ä' }, 'policyName must be printable ASCII'],
  ])('refuses %j', (options, message) => {
    expect(() => createLimiter(options)).toThrow(new RangeError(message));
  });

  it('a limit of 0 refuses the first request', async () => {
    expect((await createLimiter({ limit: 0 }).consume('k'))?.exceeded).toBe(true);
  });

  it.each([
    [200, 0],
    [399, 0],
    [400, 1],
    [503, 1],
  ])('skipSuccessful keeps a response with status %i counted %i time(s)', async (status, counted) => {
    const store = new MemoryStore();
    const limiter = createLimiter({ limit: 5, headers: false, skipSuccessful: true, store });
    const decision = await limiter.consume('ip:203.0.113.7');
    await decision?.settle(status);
    await decision?.settle(status);
    expect(store.get('ip:203.0.113.7')?.totalHits ?? 0).toBe(counted);
  });

  it('without skipSuccessful, settle takes nothing back', async () => {
    const store = new MemoryStore();
    const decision = await createLimiter({ limit: 5, store }).consume('k');
    await decision?.settle(200);
    expect(store.get('k')?.totalHits).toBe(1);
  });

  it('a hit of a window that has ended is not taken back from the next one', async () => {
    let clock = T;
    const store = new MemoryStore({ now: () => clock });
    const limiter = createLimiter({ limit: 5, skipSuccessful: true, store, now: () => clock });
    const decision = await limiter.consume('k');
    clock += 60_000;
    await limiter.consume('k');
    await decision?.settle(200);
    expect(store.get('k')?.totalHits).toBe(1);
  });

  it('a request passes unlimited, without headers, when the store fails; a failed decrement is swallowed', async () => {
    const failing: Store = {
      increment: () => Promise.reject(new Error('down')),
      decrement: () => Promise.reject(new Error('down')),
      resetKey: () => undefined,
    };
    expect(await createLimiter({ limit: 1, store: failing }).consume('k')).toBeUndefined();
    const half: Store = { ...failing, increment: () => ({ totalHits: 1, resetTime: undefined }) };
    const decision = await createLimiter({ limit: 1, store: half, skipSuccessful: true }).consume('k');
    await expect(decision?.settle(200)).resolves.toBeUndefined();
  });

  it('a store without a reset time: one window is assumed', async () => {
    const store: Store = {
      increment: () => ({ totalHits: 3, resetTime: undefined }),
      decrement() {},
      resetKey() {},
    };
    const decision = await createLimiter({ limit: 2, windowMs: 30_000, store }).consume('k');
    expect(decision?.headers).toEqual({
      RateLimit: '"2-in-30sec"; r=0; t=30',
      'RateLimit-Policy': `"2-in-30sec"; q=2; w=30; pk=:${partitionKey('k')}:`,
      'Retry-After': '30',
    });
    expect(decision?.error?.headers['Retry-After']).toBe('60');
  });

  it('a store whose init throws fails on its calls, not at creation', async () => {
    const store: Store = {
      init() {
        throw new Error('no script');
      },
      increment: () => Promise.reject(new Error('no script')),
      decrement() {},
      resetKey() {},
    };
    expect(await createLimiter({ limit: 1, store }).consume('k')).toBeUndefined();
  });

  it("express-rate-limit's MemoryStore plugs in", async () => {
    const store = new ErlMemoryStore();
    const limiter = createLimiter({ limit: 1, store });
    await limiter.consume('k');
    expect((await limiter.consume('k'))?.exceeded).toBe(true);
    store.shutdown();
  });
});

describe('quotaName and rateLimitedError', () => {
  it.each([
    [60, 60_000, '60-in-1min'],
    [5, 30_000, '5-in-30sec'],
    [100, 15 * 60_000, '100-in-15min'],
    [1000, 3_600_000, '1000-in-1hr'],
    [1000, 7_200_000, '1000-in-2hrs'],
    [1, 86_400_000, '1-in-1day'],
    [1, 172_800_000, '1-in-2days'],
  ])('quotaName(%i, %i) is %s', (limit, windowMs, name) => {
    expect(quotaName(limit, windowMs)).toBe(name);
  });

  it.each([
    [new Date(61_500), 0, '62'],
    [new Date(100), 0, '1'],
    [undefined, 0, '60'],
  ])('rateLimitedError(%s, %i) has Retry-After %s', (reset, now, retryAfter) => {
    const error = rateLimitedError(reset, now);
    expect([error.code, error.headers['Retry-After'], error.extensions]).toEqual([
      'rate_limited',
      retryAfter,
      {},
    ]);
  });
});

describe('field syntax (property)', () => {
  // RFC 9651 shapes of what draft-8/draft-10 send: a String item with Integer and Byte Sequence parameters.
  const RATELIMIT = /^"(?:[\x20-\x21\x23-\x5b\x5d-\x7e]|\\[\\"])*"; r=(0|[1-9]\d*); t=(0|[1-9]\d*)$/;
  const POLICY =
    /^"(?:[\x20-\x21\x23-\x5b\x5d-\x7e]|\\[\\"])*"; q=(0|[1-9]\d*); w=([1-9]\d*); pk=:[A-Za-z0-9+/]+=*:$/;

  it('any limit, window, hit count, key and name give well-formed fields with consistent values', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.integer({ min: 1, max: 10 * 86_400_000 }),
        fc.integer({ min: 1, max: 5 }),
        fc.string(),
        fc.option(
          fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)) }),
        ),
        async (limit, windowMs, hits, key, name) => {
          // A fixed clock: every hit lands in one window, however short (a 1 ms window would
          // otherwise roll over between two hits and restart the count).
          const now = () => 1_767_225_600_000;
          const limiter = createLimiter({
            limit,
            windowMs,
            now,
            store: new MemoryStore({ now }),
            ...(name === null ? {} : { policyName: name }),
          });
          let decision = await limiter.consume(key);
          for (let i = 1; i < hits; i++) decision = await limiter.consume(key);
          const rate = RATELIMIT.exec(decision!.headers['RateLimit']!);
          const policy = POLICY.exec(decision!.headers['RateLimit-Policy']!);
          expect(rate).not.toBeNull();
          expect(policy).not.toBeNull();
          expect(Number(rate![1])).toBe(Math.max(limit - hits, 0));
          expect(Number(policy![1])).toBe(limit);
          expect(Number(policy![2])).toBe(Math.ceil(windowMs / 1000));
          expect(Number(rate![2])).toBeLessThanOrEqual(Number(policy![2]));
          expect(decision!.headers['Retry-After']).toBe(hits > limit ? rate![2] : undefined);
        },
      ),
      { numRuns: 200 },
    );
  });
});
