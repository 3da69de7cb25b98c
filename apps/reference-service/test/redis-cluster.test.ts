/**
 * The service's context on a real Redis Cluster of three private masters (REDIS_CLUSTER_NODES): one
 * ioredis Cluster behind every Redis-backed part, rate-limit counters on every master, and
 * readiness that stays ready while any master answers.
 */

import { RedisStore } from '@plumbline/rate-limit';
import { type LocalRedisCluster, redisAvailable, startRedisCluster } from '@plumbline/test-utils';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/service/config.js';
import { type AppContext, createContext } from '../src/service/context.js';
import { checkReadiness } from '../src/service/readiness.js';

// The shared Redis only tells us the Redis binaries are installed; the cluster is our own.
const redisUp = await redisAvailable();

describe.skipIf(!redisUp)('context on a Redis Cluster (3 private masters)', () => {
  let local: LocalRedisCluster;
  let ctx: AppContext;

  beforeAll(async () => {
    // 17600-17666 and 17667-17699 belong to the auth, idempotency and system-test cluster tests.
    local = await startRedisCluster({ portRange: [17650, 17666], persistent: false });
    ctx = await createContext(
      loadConfig({
        REDIS_CLUSTER_NODES: local.seeds,
        SEED_DEMO_DATA: 'false',
        REDIS_COMMAND_TIMEOUT_MS: '300',
      }),
      { redisPrefix: 'rs-cluster:' },
    );
  }, 60_000);

  afterAll(async () => {
    await ctx?.close();
    await local?.destroy();
  });

  it('one Cluster client, connected to every master, serves idempotency and revocation keys on all of them', async () => {
    const redis = ctx.redis as Cluster;
    expect([redis instanceof Cluster, redis.nodes('master').map((node) => node.status)]).toEqual([
      true,
      ['ready', 'ready', 'ready'],
    ]);
    const exp = Math.floor(Date.now() / 1000) + 600;
    for (let i = 0; i < 30; i++) await ctx.revocation.revoke(`jti-${i}`, exp);
    expect(await ctx.revocation.isRevoked('jti-7')).toBe(true);
    expect(await ctx.revocation.isRevoked('jti-none')).toBe(false);
    for (let i = 0; i < 30; i++) {
      expect(
        await ctx.idempotencyStore.claim(`k-${i}`, { fingerprint: 'f', token: 't', leaseMs: 10_000 }),
      ).toEqual({
        state: 'new',
        token: 't',
      });
    }
    const perMaster = await Promise.all(redis.nodes('master').map((node) => node.keys('rs-cluster:*')));
    expect(perMaster.map((keys) => keys.length > 0)).toEqual([true, true, true]);
  });

  it("the rate limiter's counters live on every master, each counted where its key lives", async () => {
    const redis = ctx.redis as Cluster;
    const store = new RedisStore({ client: redis, prefix: 'rs-cluster:rl:' });
    const keys = Array.from({ length: 12 }, (_, i) => String(i));
    await Promise.all(keys.map((key) => store.increment(key)));
    const counts = await Promise.all(keys.map(async (key) => (await store.increment(key)).totalHits));
    expect(counts).toEqual(keys.map(() => 2));
    const masters = new Set(await Promise.all(keys.map((key) => local.portOf(`rs-cluster:rl:${key}`))));
    expect(masters.size).toBe(3);
  });

  it('stays ready with a master down, and its keys fail fast with 503 while the others are served', async () => {
    expect(await checkReadiness(ctx)).toEqual({ ready: true, checks: { database: 'ok', redis: 'ok' } });
    const victim = local.nodes[2]!;
    const jtis = Array.from({ length: 30 }, (_, i) => `jti-${i}`);
    const onVictim = await Promise.all(
      jtis.map(async (jti) => (await local.portOf(`rs-cluster:revoked:${jti}`)) === victim.port),
    );
    await victim.kill();
    expect(await checkReadiness(ctx)).toEqual({ ready: true, checks: { database: 'ok', redis: 'ok' } });
    const outcomes = await Promise.all(
      jtis.map((jti) =>
        ctx.revocation.isRevoked(jti).then(
          (revoked) => String(revoked),
          (error: { status?: number; code?: string }) => `${error.status} ${error.code}`,
        ),
      ),
    );
    expect(outcomes).toEqual(onVictim.map((dead) => (dead ? '503 service_unavailable' : 'true')));
    expect(onVictim.filter(Boolean).length).toBeGreaterThan(0);
  });
});
