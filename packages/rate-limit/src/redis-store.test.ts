/**
 * RedisStore on the real Redis at REDIS_URL (skipped locally without one, failing when CI=true):
 * counts, windows, and counters shared with rate-limit-redis on the same keys, so a rolling deploy
 * from a service on rate-limit-redis keeps one count per client. Then on a private Redis Cluster.
 */
import {
  type LocalRedisCluster,
  REDIS_URL,
  redisAvailable,
  startRedisCluster,
  uniquePrefix,
} from '@plumbline/test-utils';
import { Cluster, Redis } from 'ioredis';
import { RedisStore as LibraryRedisStore, type RedisReply } from 'rate-limit-redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLimiter } from './limiter.js';
import { REDIS_SCRIPTS, type RedisScriptClient, RedisStore } from './redis-store.js';

const redisUp = await redisAvailable();

describe('RedisStore scripts', () => {
  it.each(Object.entries(REDIS_SCRIPTS))(
    '%s touches KEYS[1] only (one key: one Cluster slot)',
    (_name, source) => {
      expect(new Set([...source.matchAll(/KEYS\[(\d+)\]/g)].map((match) => match[1]))).toEqual(
        new Set(['1']),
      );
      // Every command the script sends names that key as its only key.
      const keyArguments = [...source.matchAll(/redis\.call\('(\w+)', ([^,)]+)/g)].map((match) => match[2]);
      expect(keyArguments.length).toBeGreaterThan(0);
      expect(new Set(keyArguments)).toEqual(new Set(['KEYS[1]']));
    },
  );

  it('a client whose script cache is empty gets the source once (NOSCRIPT)', async () => {
    const calls: string[] = [];
    const client: RedisScriptClient = {
      evalsha: (sha) => {
        calls.push(`evalsha ${sha.length}`);
        return Promise.reject(new Error('NOSCRIPT No matching script.'));
      },
      eval: (source, _keys, key, window) => {
        calls.push(`eval ${source.startsWith("local ttl = redis.call('PTTL'")} ${key} ${window}`);
        return Promise.resolve([1, 60_000]);
      },
    };
    const store = new RedisStore({ client });
    store.init({ windowMs: 60_000 });
    expect((await store.increment('k')).totalHits).toBe(1);
    expect(calls).toEqual(['evalsha 40', 'eval true rl:k 60000']);
  });

  it('a call past timeoutMs rejects; another error rejects as it is', async () => {
    const hanging: RedisScriptClient = {
      evalsha: () => new Promise(() => {}),
      eval: () => new Promise(() => {}),
    };
    await expect(new RedisStore({ client: hanging, timeoutMs: 20 }).increment('k')).rejects.toThrow(
      'Redis did not answer within 20 ms',
    );
    const broken: RedisScriptClient = {
      evalsha: () => Promise.reject(new Error('ECONNREFUSED')),
      eval: () => Promise.reject(new Error('unused')),
    };
    await expect(new RedisStore({ client: broken }).decrement('k')).rejects.toThrow('ECONNREFUSED');
    expect(() => new RedisStore({ client: broken, timeoutMs: 0 })).toThrow(RangeError);
  });

  it('an unexpected reply is an error, not a count', async () => {
    const odd: RedisScriptClient = {
      evalsha: () => Promise.resolve('OK'),
      eval: () => Promise.resolve('OK'),
    };
    await expect(new RedisStore({ client: odd }).get('k')).rejects.toThrow(
      'unexpected reply from the rate-limit script',
    );
  });
});

describe.skipIf(!redisUp)('RedisStore on Redis', () => {
  let redis: Redis;
  const prefix = `${uniquePrefix('rl')}:`;

  beforeAll(() => {
    redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  const ours = (windowMs = 60_000) => {
    const store = new RedisStore({ client: redis, prefix });
    store.init({ windowMs });
    return store;
  };
  const theirs = async (windowMs = 60_000) => {
    const store = new LibraryRedisStore({
      prefix,
      sendCommand: (...args: string[]) => redis.call(args[0]!, ...args.slice(1)) as Promise<RedisReply>,
    });
    await store.init({ windowMs } as never);
    return store;
  };

  it('counts hits in a window that expires with its key (counter + PX)', async () => {
    const store = ours();
    const before = Date.now();
    expect((await store.increment('a')).totalHits).toBe(1);
    const second = await store.increment('a');
    expect(second.totalHits).toBe(2);
    expect(second.resetTime!.getTime() - before).toBeGreaterThan(59_000);
    expect(second.resetTime!.getTime() - before).toBeLessThanOrEqual(60_000 + (Date.now() - before));
    expect([await redis.get(`${prefix}a`), (await redis.pttl(`${prefix}a`)) > 59_000]).toEqual(['2', true]);
    expect((await store.get('a'))?.totalHits).toBe(2);
    expect(await store.get('missing')).toBeUndefined();
  });

  it('decrement takes a hit back only while the window is open; resetKey forgets', async () => {
    const store = ours();
    await store.increment('b');
    await store.increment('b');
    await store.decrement('b');
    expect((await store.get('b'))?.totalHits).toBe(1);
    await store.decrement('gone');
    expect(await redis.exists(`${prefix}gone`)).toBe(0);
    await store.resetKey('b');
    expect(await redis.exists(`${prefix}b`)).toBe(0);
  });

  it('a window that has ended starts over at 1', async () => {
    const store = ours(150);
    await store.increment('c');
    await store.increment('c');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await store.increment('c')).totalHits).toBe(1);
  });

  it('rate-limit-redis and RedisStore share one counter per key (a rolling deploy)', async () => {
    const [mine, library] = [ours(), await theirs()];
    const seen: number[] = [];
    for (let i = 0; i < 6; i++)
      seen.push((await (i % 2 === 0 ? mine : library).increment('shared')).totalHits);
    expect(seen).toEqual([1, 2, 3, 4, 5, 6]);
    await library.decrement('shared');
    await mine.decrement('shared');
    expect([(await mine.get('shared'))?.totalHits, (await library.get('shared'))?.totalHits]).toEqual([4, 4]);
    const [a, b] = [await mine.get('shared'), await library.get('shared')];
    expect(Math.abs(a!.resetTime!.getTime() - b!.resetTime!.getTime())).toBeLessThan(1000);
    // A window rate-limit-redis opened is counted on by RedisStore, and the other way round.
    expect((await library.increment('theirs-first')).totalHits).toBe(1);
    expect((await mine.increment('theirs-first')).totalHits).toBe(2);
    expect((await mine.increment('mine-first')).totalHits).toBe(1);
    expect((await library.increment('mine-first')).totalHits).toBe(2);
  });

  it('a limiter on RedisStore and one on rate-limit-redis refuse the same client at the same count', async () => {
    const [mine, library] = [
      createLimiter({ limit: 3, store: ours() }),
      createLimiter({ limit: 3, store: await theirs() }),
    ];
    const outcomes: boolean[] = [];
    for (let i = 0; i < 5; i++)
      outcomes.push((await (i % 2 === 0 ? mine : library).consume('limited'))!.exceeded);
    expect(outcomes).toEqual([false, false, false, true, true]);
  });
});

describe.skipIf(!redisUp)('RedisStore on a Redis Cluster (3 private masters)', () => {
  let local: LocalRedisCluster;
  let cluster: Cluster;

  beforeAll(async () => {
    // 17600-17699 belong to the auth, idempotency, reference-service and system-test clusters.
    local = await startRedisCluster({ portRange: [17700, 17724], persistent: false });
    cluster = new Cluster(
      local.seeds.split(',').map((seed) => ({ host: '127.0.0.1', port: Number(seed.split(':')[1]) })),
    );
  }, 60_000);
  afterAll(async () => {
    cluster?.disconnect();
    await local?.destroy();
  });

  it('each key is counted on its own master, whichever master that is', async () => {
    const store = new RedisStore({ client: cluster, prefix: 'rl:' });
    store.init({ windowMs: 60_000 });
    const keys = Array.from({ length: 12 }, (_, i) => `client:${i}`);
    for (const key of keys) await store.increment(key);
    const counts = await Promise.all(keys.map(async (key) => (await store.increment(key)).totalHits));
    expect(counts).toEqual(keys.map(() => 2));
    const ports = new Set(await Promise.all(keys.map((key) => local.portOf(`rl:${key}`))));
    expect(ports.size).toBe(3);
    const perMaster = await Promise.all(cluster.nodes('master').map((node) => node.keys('rl:*')));
    expect(perMaster.flat().sort()).toEqual(keys.map((key) => `rl:${key}`).sort());
  });
});
