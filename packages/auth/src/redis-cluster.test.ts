/**
 * The Redis stores on a real Redis Cluster of three private masters: a refresh-token family's keys,
 * which rotation reads and writes in one script, land on different masters without a hash tag (and
 * the store refuses such a prefix); with one, every step works and all of a family stays on one master.
 */
import { randomUUID } from 'node:crypto';
import { type LocalRedisCluster, redisAvailable, startRedisCluster } from '@plumbline/test-utils';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisRevocationStore } from './index.js';
import { RedisRefreshTokenStore } from './issuer.js';

// The shared Redis only tells us the Redis binaries are installed; the cluster is our own.
const redisUp = await redisAvailable();

describe.skipIf(!redisUp)('auth stores on a Redis Cluster (3 private masters)', () => {
  let local: LocalRedisCluster;
  let client: Cluster;

  beforeAll(async () => {
    local = await startRedisCluster({ portRange: [17600, 17624], persistent: false });
    client = new Cluster(
      local.nodes.map((node) => ({ host: '127.0.0.1', port: node.port })),
      { redisOptions: { maxRetriesPerRequest: 1 } },
    );
    await new Promise((resolve) => client.once('ready', resolve));
  }, 60_000);

  afterAll(async () => {
    client?.disconnect();
    await local?.destroy();
  });

  it('without a hash tag a family spreads over masters: the script is refused and so is the prefix', async () => {
    const hashes = Array.from({ length: 12 }, (_, i) => `h${i}-${randomUUID()}`);
    const keys = [...hashes.map((h) => `rt:tok:${h}`), `rt:fam:${randomUUID()}`];
    const ports = new Set(await Promise.all(keys.map((key) => local.portOf(key))));
    expect(ports.size).toBeGreaterThan(1);
    // What rotation does (two token keys and the family in one script) is refused by the cluster.
    await expect(client.eval("return redis.call('GET', KEYS[1])", 2, keys[0]!, keys[1]!)).rejects.toThrow(
      /CROSSSLOT/,
    );
    expect(() => new RedisRefreshTokenStore({ client, prefix: 'rt:' })).toThrow(
      new TypeError(
        'RedisRefreshTokenStore on a Redis Cluster needs a prefix with a hash tag, such as "{rt:}", so that a family\'s keys share one slot; got "rt:"',
      ),
    );
    for (const prefix of ['{}rt:', 'rt:{', 'rt}:{', 'plumbline:auth:refresh:']) {
      expect(() => new RedisRefreshTokenStore({ client, prefix }), prefix).toThrow(TypeError);
    }
  });

  it('with a hash tag: create, find, rotate, reuse detection and revocation across families', async () => {
    const prefix = `{rt-${randomUUID()}}:`;
    const store = new RedisRefreshTokenStore({ client, prefix });
    const now = Math.floor(Date.now() / 1000);
    const grant = { clientId: 'c1', subject: 'alice', scopes: ['read:projects'] };
    const results: unknown[] = [];
    for (let i = 0; i < 10; i++) {
      const [t0, t1, t2] = [`a${i}`, `b${i}`, `c${i}`];
      await store.createFamily(t0, grant, 60_000, { jti: `j0-${i}`, exp: now + 600 });
      const found = await store.find(t0);
      const rotated = await store.rotate(t0, t1, 'c1', 60_000, {
        accessToken: { jti: `j1-${i}`, exp: now + 600 },
      });
      // The spent token again: reuse, the family is revoked and its live access tokens are named.
      const reused = await store.rotate(t0, t2, 'c1', 60_000);
      const afterReuse = await store.rotate(t1, t2, 'c1', 60_000);
      results.push([found, rotated.status, reused, afterReuse.status, await store.find(t1)]);
    }
    expect(results).toEqual(
      Array.from({ length: 10 }, (_, i) => [
        grant,
        'rotated',
        {
          status: 'reused',
          accessTokens: [
            { jti: `j0-${i}`, exp: now + 600 },
            { jti: `j1-${i}`, exp: now + 600 },
          ],
        },
        'reused',
        undefined,
      ]),
    );
    const family = await store.createFamily('x', grant, 60_000);
    expect(family).toBeUndefined();
    expect(await store.revokeFamily('x', 'other')).toEqual({ status: 'invalid' });
    expect(await store.revokeFamily('x', 'c1')).toEqual({ status: 'revoked', accessTokens: [] });
    expect(await store.find('x')).toBeUndefined();
    // Every key of every family is on the one master that owns the tag's slot.
    const masters = await Promise.all(client.nodes('master').map((node) => node.keys(`${prefix}*`)));
    expect(masters.map((keys) => keys.length > 0).filter(Boolean)).toEqual([true]);
  });

  it('revocation keys are single-key commands and spread over every master', async () => {
    const prefix = `rv-${randomUUID()}:`;
    const store = new RedisRevocationStore({ client, prefix });
    const exp = Math.floor(Date.now() / 1000) + 600;
    const jtis = Array.from({ length: 30 }, (_, i) => `jti-${i}`);
    for (const jti of jtis.slice(0, 20)) await store.revoke(jti, exp);
    expect(await Promise.all(jtis.map((jti) => store.isRevoked(jti)))).toEqual(jtis.map((_, i) => i < 20));
    const counts = await Promise.all(client.nodes('master').map((node) => node.keys(`${prefix}*`)));
    expect(counts.filter((keys) => keys.length > 0).length).toBe(3);
  });
});
