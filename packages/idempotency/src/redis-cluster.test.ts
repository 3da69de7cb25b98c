import { type LocalRedisCluster, redisAvailable, startRedisCluster } from '@plumbline/test-utils';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisStore } from './redis-store.js';

// The shared Redis only tells us the Redis binaries are installed; the cluster is our own.
const redisUp = await redisAvailable();

describe.skipIf(!redisUp)('Redis Cluster (3 private masters) with a client keyPrefix', () => {
  let local: LocalRedisCluster;
  let cluster: Cluster;

  beforeAll(async () => {
    local = await startRedisCluster({ portRange: [17625, 17649], persistent: false });
    cluster = new Cluster(
      local.nodes.map((n) => ({ host: '127.0.0.1', port: n.port })),
      { keyPrefix: 'app:', redisOptions: { maxRetriesPerRequest: 1 } },
    );
  });

  afterAll(async () => {
    cluster?.disconnect();
    await local?.destroy();
  });

  it('claims, completes, replays and fences on keys spread over every shard', async () => {
    const store = createRedisStore({ client: cluster, prefix: 'idem:' });
    const body = Buffer.from([0, 255, 1, 254]);
    for (let i = 0; i < 30; i += 1) {
      const key = `key-${i}`;
      expect(await store.claim(key, { fingerprint: 'f', token: 't', leaseMs: 10_000 })).toEqual({
        state: 'new',
        token: 't',
      });
      expect(await store.complete(key, 'other', { status: 201, headers: [], body }, 10_000)).toBe(false);
      expect(
        await store.complete(key, 't', { status: 201, headers: [['location', `/o/${i}`]], body }, 10_000),
      ).toBe(true);
      const replay = await store.claim(key, { fingerprint: 'f', token: 'u', leaseMs: 10_000 });
      expect(replay.state === 'completed' && [replay.response.headers, [...replay.response.body]]).toEqual([
        [['location', `/o/${i}`]],
        [0, 255, 1, 254],
      ]);
    }
    const keysPerNode = await Promise.all(cluster.nodes('master').map((node) => node.dbsize()));
    expect(keysPerNode.filter((n) => n > 0).length).toBe(3);
    expect(await cluster.exists('idem:key-0')).toBe(1);
  });
});
