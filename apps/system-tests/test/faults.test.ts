/**
 * Shared services failing under load: Redis stopped and restarted, PostgreSQL backends terminated,
 * and SIGTERM with requests in flight. The service must answer 503 (never 500), never repeat a side
 * effect, and recover without a restart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Cluster,
  type Credentials,
  type Database,
  deleteRedisKeys,
  environmentReady,
  type OwnRedis,
  REDIS_URL,
  request,
  seedDatabase,
  sleep,
  startCluster,
  startOwnRedis,
  tally,
  token,
} from './harness.js';
import { createFaultProject, expectOnly503s, load, rowsPerKey, settle } from './load.js';
import { sigtermUnderLoad } from './sigterm-scenario.js';

const ready = await environmentReady();

describe.skipIf(!ready)('faults', () => {
  let db: Database;
  let seeded: Credentials;

  beforeAll(async () => {
    ({ db, credentials: seeded } = await seedDatabase('faults'));
  });
  afterAll(async () => {
    await db?.drop();
  });

  describe('Redis stopped during load, then restarted', () => {
    let redis: OwnRedis;
    let cluster: Cluster;

    beforeAll(async () => {
      redis = await startOwnRedis();
      // Creating POSTs keep their keys in Redis here (the shared store), so this outage reaches them;
      // with the default database store they do not need Redis at all (stalls.test.ts).
      cluster = await startCluster({
        count: 3,
        database: db,
        redisUrl: redis.url,
        credentials: seeded,
        env: { IDEMPOTENCY_STORE: 'shared' },
      });
    });
    afterAll(async () => {
      await cluster?.stop();
      await redis?.destroy();
    });

    it('answers 503 where Redis is needed, keeps serving the rest, recovers, never duplicates', async () => {
      const { credentials } = cluster;
      const jwt = (await token(cluster.at(0).url, credentials, 'read:projects')).access_token;
      const before = ['redis-before-0', 'redis-before-1', 'redis-before-2'];
      for (const key of before)
        expect((await createFaultProject(cluster.at(0).url, credentials, key)).status).toBe(201);

      const loadKeys: string[] = [];
      const traffic = load(6, async (worker, n) => {
        const url = cluster.at(worker + n).url;
        switch (worker % 3) {
          case 0: {
            const key = `redis-load-${worker}-${n}`;
            loadKeys.push(key);
            return { kind: `POST ${key}`, reply: await createFaultProject(url, credentials, key) };
          }
          case 1:
            return {
              kind: 'GET bearer',
              reply: await request(`${url}/v2/tasks?status=todo&sort=-priority`, {
                headers: { authorization: `Bearer ${jwt}` },
              }),
            };
          default:
            return {
              kind: 'GET api key',
              reply: await request(`${url}/v2/tasks?status=todo&sort=-priority`, {
                headers: { 'x-api-key': credentials.apiKey },
              }),
            };
        }
      });
      await sleep(500);
      await redis.stop({ save: true });
      await sleep(300);
      const outage = {
        post: await createFaultProject(cluster.at(1).url, credentials, 'redis-during-0'),
        bearer: await request(`${cluster.at(2).url}/v2/projects`, {
          headers: { authorization: `Bearer ${jwt}` },
        }),
        apiKey: await request(`${cluster.at(0).url}/v2/projects`, {
          headers: { 'x-api-key': credentials.apiKey },
        }),
        health: await request(`${cluster.at(1).url}/health`),
      };
      await sleep(1000);
      await redis.start();

      // Recovery without a restart: a request that needs Redis succeeds again on every instance.
      for (const instance of cluster.instances) {
        let reply = await request(`${instance.url}/v2/projects?limit=1`, {
          headers: { authorization: `Bearer ${jwt}` },
        });
        for (let i = 0; i < 50 && reply.status !== 200; i++) {
          await sleep(200);
          reply = await request(`${instance.url}/v2/projects?limit=1`, {
            headers: { authorization: `Bearer ${jwt}` },
          });
        }
        expect([instance.port, reply.status]).toEqual([instance.port, 200]);
      }
      await sleep(300);
      const samples = await traffic.stop();

      expect([outage.post.status, outage.post.json()['error_code']]).toEqual([503, 'service_unavailable']);
      expect(outage.post.headers.get('retry-after')).toMatch(/^\d+$/);
      expect([outage.bearer.status, outage.bearer.json()['error_code']]).toEqual([
        503,
        'service_unavailable',
      ]);
      expect(outage.bearer.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(outage.apiKey.status).toBe(200);
      expect(outage.health.status).toBe(200);

      expectOnly503s(samples);
      const statuses = samples.map((s) => s.reply.status);
      expect(statuses).toContain(503);
      // Requests that do not need Redis never failed.
      expect(tally(samples.filter((s) => s.kind === 'GET api key').map((s) => s.reply.status))).toEqual({
        200: samples.filter((s) => s.kind === 'GET api key').length,
      });

      // Every key, retried after recovery, ends with exactly one row and an earlier 201 is replayed.
      // Exception, by design of @plumbline/idempotency: a claim taken just before Redis went away,
      // whose completion could not be stored, stays "in flight" (409) until its lease (60 s) ends.
      // Such a key must not have more than one row.
      const created = new Map<string, string>();
      for (const { kind, reply } of samples) {
        if (reply.status === 201)
          created.set(kind.slice('POST '.length), reply.headers.get('location') ?? '');
      }
      const allKeys = [...before, 'redis-during-0', ...loadKeys];
      const stuck: string[] = [];
      for (const [i, key] of allKeys.entries()) {
        const reply = await settle(cluster.at(i).url, credentials, key, 12);
        if (reply.status === 409 && loadKeys.includes(key)) {
          stuck.push(key);
          continue;
        }
        expect([key, reply.status]).toEqual([key, 201]);
        const earlier = created.get(key);
        if (earlier) expect([key, reply.headers.get('location')]).toEqual([key, earlier]);
      }
      // At most the requests in flight when Redis stopped (two POST workers).
      expect(stuck.length).toBeLessThanOrEqual(2);
      const counts = await rowsPerKey(db, allKeys);
      expect([...counts].filter(([key, n]) => (stuck.includes(key) ? n > 1 : n !== 1))).toEqual([]);
    });
  });

  describe('PostgreSQL backends terminated during load', () => {
    let cluster: Cluster;

    beforeAll(async () => {
      cluster = await startCluster({
        count: 2,
        database: db,
        credentials: seeded,
        redisKeyPrefix: `${db.schema}pg:`,
      });
    });
    afterAll(async () => {
      await cluster?.stop();
      await deleteRedisKeys(REDIS_URL, cluster?.redisKeyPrefix ?? `${db.schema}pg:`);
    });

    it('answers 503 (never 500) while connections are lost, then recovers by itself', async () => {
      const { credentials } = cluster;
      const keys: string[] = [];
      const traffic = load(6, async (worker, n) => {
        const url = cluster.at(worker + n).url;
        if (worker % 2 === 0) {
          const key = `pg-load-${worker}-${n}`;
          keys.push(key);
          return { kind: `POST ${key}`, reply: await createFaultProject(url, credentials, key) };
        }
        return {
          kind: 'GET',
          reply: await request(`${url}/v2/tasks?status=todo&sort=-priority`, {
            headers: { 'x-api-key': credentials.apiKey },
          }),
        };
      });
      let terminated = 0;
      for (let round = 0; round < 5; round++) {
        await sleep(300);
        terminated += await db.terminateBackends();
      }
      await sleep(300);
      const samples = await traffic.stop();
      expect(terminated).toBeGreaterThan(0);
      expectOnly503s(samples);

      // Recovery without a restart: every instance serves again.
      for (const instance of cluster.instances) {
        let reply = await request(`${instance.url}/v2/projects?limit=1`, {
          headers: { 'x-api-key': credentials.apiKey },
        });
        for (let i = 0; i < 50 && reply.status !== 200; i++) {
          await sleep(200);
          reply = await request(`${instance.url}/v2/projects?limit=1`, {
            headers: { 'x-api-key': credentials.apiKey },
          });
        }
        expect([instance.port, reply.status]).toEqual([instance.port, 200]);
      }
      // No duplicate side effect: each key, retried, has exactly one row.
      for (const [i, key] of keys.entries()) {
        const reply = await settle(cluster.at(i).url, credentials, key);
        expect([key, reply.status]).toEqual([key, 201]);
      }
      const counts = await rowsPerKey(db, keys);
      expect([...counts].filter(([, n]) => n !== 1)).toEqual([]);
    });
  });

  describe('SIGTERM under load', () => {
    // Clients that open a connection per request. With keep-alive clients the service does not drain
    // (pending/sigterm-keep-alive.test.ts).
    it('finishes in-flight requests, refuses new connections, exits 0 within the grace period, loses no 2xx', async () => {
      await sigtermUnderLoad(db, seeded, { keepAlive: false, label: 'close' });
    });
  });
});
