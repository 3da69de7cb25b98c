import { setTimeout as sleep } from 'node:timers/promises';
import { redisAvailable, uniquePrefix } from '@plumbline/test-utils';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { deletePrefix, testRedis } from './__fixtures__/redis.js';
import { createMemoryStore } from './memory-store.js';
import { createRedisStore } from './redis-store.js';
import type { IdempotencyStore, StoredResponse } from './store.js';

const redisUp = await redisAvailable();

interface Harness {
  readonly store: IdempotencyStore;
  /** Moves time on: a fake clock for memory, a real wait for Redis. */
  advance(ms: number): Promise<void>;
}

const response: StoredResponse = {
  status: 201,
  headers: [
    ['location', '/orders/1'],
    ['link', '</a>; rel="a"'],
    ['link', '</b>; rel="b"'],
  ],
  body: Uint8Array.from([0, 1, 2, 255, 0x7b, 0x7d]),
};
const LEASE = 500;

function contract(name: string, make: () => Harness) {
  describe(`${name} store contract`, () => {
    let n = 0;
    const key = () => `k${++n}`;
    const claim = (h: Harness, k: string, token: string, fingerprint = 'f1') =>
      h.store.claim(k, { fingerprint, token, leaseMs: LEASE });

    it('claims a new key, then reports it in flight with the remaining lease', async () => {
      const h = make();
      const k = key();
      expect(await claim(h, k, 't1')).toEqual({ state: 'new', token: 't1' });
      const second = await claim(h, k, 't2');
      expect(second.state).toBe('in_flight');
      const retryAfterMs = (second as { retryAfterMs: number }).retryAfterMs;
      expect(retryAfterMs).toBeGreaterThan(0);
      expect(retryAfterMs).toBeLessThanOrEqual(LEASE);
    });

    it('completes and replays status, headers and exact bytes', async () => {
      const h = make();
      const k = key();
      await claim(h, k, 't1');
      expect(await h.store.complete(k, 't1', response, 60_000)).toBe(true);
      const replay = await claim(h, k, 't2');
      expect(replay.state).toBe('completed');
      const stored = (replay as { response: StoredResponse }).response;
      expect({ ...stored, body: Buffer.from(stored.body) }).toEqual({
        ...response,
        body: Buffer.from(response.body),
      });
    });

    it('reports a different fingerprint as mismatch, in flight or completed', async () => {
      const h = make();
      const k = key();
      await claim(h, k, 't1');
      expect(await claim(h, k, 't2', 'f2')).toEqual({ state: 'mismatch' });
      await h.store.complete(k, 't1', response, 60_000);
      expect(await claim(h, k, 't3', 'f2')).toEqual({ state: 'mismatch' });
      expect((await claim(h, k, 't4')).state).toBe('completed');
    });

    it('release frees the key; a wrong token neither releases nor completes', async () => {
      const h = make();
      const k = key();
      await claim(h, k, 't1');
      expect(await h.store.release(k, 'other')).toBe(false);
      expect(await h.store.complete(k, 'other', response, 60_000)).toBe(false);
      expect((await claim(h, k, 't2')).state).toBe('in_flight');
      expect(await h.store.release(k, 't1')).toBe(true);
      expect(await h.store.release(k, 't1')).toBe(false);
      expect(await claim(h, k, 't3')).toEqual({ state: 'new', token: 't3' });
    });

    it('an expired lease is taken over, and the late finisher cannot overwrite or release', async () => {
      const h = make();
      const k = key();
      await claim(h, k, 'old');
      await h.advance(LEASE + 100);
      expect(await claim(h, k, 'new')).toEqual({ state: 'new', token: 'new' });
      expect(await h.store.complete(k, 'old', { ...response, status: 200 }, 60_000)).toBe(false);
      expect(await h.store.release(k, 'old')).toBe(false);
      expect(await h.store.complete(k, 'new', response, 60_000)).toBe(true);
      expect(await h.store.complete(k, 'new', response, 60_000)).toBe(false);
      const replay = await claim(h, k, 'again');
      expect((replay as { response: StoredResponse }).response.status).toBe(201);
    });

    it('a completed record is forgotten after its retention', async () => {
      const h = make();
      const k = key();
      await claim(h, k, 't1');
      await h.store.complete(k, 't1', response, 400);
      expect((await claim(h, k, 't2')).state).toBe('completed');
      await h.advance(500);
      expect(await claim(h, k, 't3')).toEqual({ state: 'new', token: 't3' });
    });

    it.each([
      ['ASCII JSON', Buffer.from('{"id":1,"sku":"abc-123"}')],
      ['multi-byte UTF-8', Buffer.from('{"name":"Zoë € 😀"}')],
      ['a byte-order mark', Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d])],
      ['NUL and control bytes', Buffer.from([0x00, 0x7b, 0x0a, 0x1b, 0x7d, 0x00])],
      ['invalid UTF-8 (a lone 0xff)', Buffer.from([0x7b, 0xff, 0x7d])],
      ['an encoded surrogate (ED A0 80)', Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22])],
      ['a truncated sequence at the end', Buffer.from([0x22, 0xe2, 0x82])],
      ['16 KiB of UTF-8', Buffer.from('é'.repeat(8 * 1024))],
      ['16 KiB + 1 of UTF-8', Buffer.from(`${'é'.repeat(8 * 1024)}x`)],
    ])('replays the exact bytes of a body with %s', async (_name, body) => {
      const h = make();
      const k = key();
      await claim(h, k, 't1');
      await h.store.complete(k, 't1', { status: 200, headers: [], body }, 60_000);
      const replay = (await claim(h, k, 't2')) as { response: StoredResponse };
      expect(Buffer.from(replay.response.body).equals(body)).toBe(true);
    });

    it('keeps an empty body', async () => {
      const h = make();
      const k = key();
      await claim(h, k, 't1');
      await h.store.complete(k, 't1', { status: 204, headers: [], body: new Uint8Array(0) }, 60_000);
      const replay = (await claim(h, k, 't2')) as { response: StoredResponse };
      expect([replay.response.status, replay.response.body.byteLength]).toEqual([204, 0]);
    });
  });
}

contract('memory', () => {
  let time = 1_000_000;
  return {
    store: createMemoryStore({ now: () => time }),
    advance: async (ms) => {
      time += ms;
    },
  };
});

describe.skipIf(!redisUp)('redis', () => {
  const client = testRedis();
  const prefixed = testRedis({ keyPrefix: 'plb:' });
  const prefix = uniquePrefix('idem');
  afterAll(async () => {
    await deletePrefix(client, prefix);
    await deletePrefix(client, `plb:${prefix}`);
    client.disconnect();
    prefixed.disconnect();
  });

  contract('redis', () => ({
    store: createRedisStore({ client, prefix: `${prefix}:` }),
    advance: (ms) => sleep(ms),
  }));

  it('keys live under the prefix (and the client keyPrefix), as one hash per key', async () => {
    const store = createRedisStore({ client: prefixed, prefix: `${prefix}:p:` });
    await store.claim('abc', { fingerprint: 'f', token: 't', leaseMs: 10_000 });
    expect(await client.type(`plb:${prefix}:p:abc`)).toBe('hash');
    const ttl = await client.pttl(`plb:${prefix}:p:abc`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(10_000);
  });

  it('sends the script source once when Redis answers NOSCRIPT (after a restart or failover)', async () => {
    const calls: string[] = [];
    const flushed = {
      evalshaBuffer: () => {
        calls.push('evalsha');
        return Promise.reject(new Error('NOSCRIPT No matching script. Please use EVAL.'));
      },
      // ioredis generates the Buffer variants at runtime; its typings do not list them.
      evalBuffer: (...args: unknown[]) => {
        calls.push('eval');
        return (client as unknown as { evalBuffer: (...a: unknown[]) => Promise<unknown> }).evalBuffer(
          ...args,
        );
      },
    };
    const store = createRedisStore({ client: flushed as unknown as Redis, prefix: `${prefix}:ns:` });
    expect(await store.claim('k', { fingerprint: 'f', token: 't', leaseMs: 10_000 })).toEqual({
      state: 'new',
      token: 't',
    });
    expect(calls).toEqual(['evalsha', 'eval']);
  });

  it('a claim sent twice (ioredis again after a failover) finds its own record: it holds the key, another token does not', async () => {
    const store = createRedisStore({ client, prefix: `${prefix}:twice:` });
    const claim = { fingerprint: 'f', token: 'mine', leaseMs: 10_000 };
    expect(await store.claim('k', claim)).toEqual({ state: 'new', token: 'mine' });
    expect(await store.claim('k', claim)).toEqual({ state: 'new', token: 'mine' });
    const other = await store.claim('k', { ...claim, token: 'theirs' });
    expect(other.state).toBe('in_flight');
  });

  it('a claim applied after it timed out, and after the release that followed found nothing, is released when its reply comes', async () => {
    // ioredis holds the claim (a failover) and sends it once the new master is up: after the timeout
    // and after the caller's release, which ran first and found no record.
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    let held = false;
    const real = client as unknown as { evalshaBuffer: (...a: unknown[]) => Promise<unknown> };
    const holding = {
      evalshaBuffer: (...args: unknown[]) => {
        if (held) return real.evalshaBuffer(...args);
        held = true;
        return gate.then(() => real.evalshaBuffer(...args));
      },
      evalBuffer: (...args: unknown[]) =>
        (client as unknown as { evalBuffer: (...a: unknown[]) => Promise<unknown> }).evalBuffer(...args),
    };
    const store = createRedisStore({
      client: holding as unknown as Redis,
      prefix: `${prefix}:late:`,
      timeoutMs: 50,
    });
    await expect(store.claim('k', { fingerprint: 'f', token: 't', leaseMs: 10_000 })).rejects.toThrow(
      /did not answer within 50 ms/,
    );
    expect(await store.release('k', 't')).toBe(false);
    open();
    let left = 1;
    for (let i = 0; i < 50 && left !== 0; i++) {
      await sleep(20);
      left = await client.exists(`${prefix}:late:k`);
    }
    expect(left).toBe(0);
  });

  it('rejects when Redis is unreachable, within the timeout', async () => {
    const down = new Redis({
      host: '127.0.0.1',
      port: 1,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    down.on('error', () => {});
    const store = createRedisStore({ client: down, prefix: `${prefix}:`, timeoutMs: 500 });
    await expect(store.claim('k', { fingerprint: 'f', token: 't', leaseMs: 1000 })).rejects.toThrow();
    down.disconnect();
  });

  it('rejects after timeoutMs when Redis never answers', async () => {
    const hanging = new Redis({
      host: '127.0.0.1',
      port: 1,
      maxRetriesPerRequest: null,
      retryStrategy: () => 50,
    });
    hanging.on('error', () => {});
    const store = createRedisStore({ client: hanging, prefix: `${prefix}:`, timeoutMs: 100 });
    await expect(store.claim('k', { fingerprint: 'f', token: 't', leaseMs: 1000 })).rejects.toThrow(
      /did not answer within 100 ms/,
    );
    hanging.disconnect();
  });
});
