/**
 * The service on a real Redis Cluster: three masters started here (`redis-server --cluster-enabled
 * yes` on loopback ports of 17667-17699, joined with `redis-cli --cluster create`), torn down at the
 * end. The multi-instance scenarios run again on it, then one master is killed under load: requests
 * that need it get 503 with Retry-After, the rest keep working, nothing is done twice, and service
 * recovers without a restart when it comes back.
 */
import { type LocalRedisCluster, startRedisCluster } from '@plumbline/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Cluster,
  type Credentials,
  type Database,
  environmentReady,
  form,
  type Instance,
  request,
  seedDatabase,
  sleep,
  startCluster,
  tally,
  token,
} from './harness.js';
import { createFaultProject, expectOnly503s, load, rowsPerKey, settle } from './load.js';
import { describeManyInstances } from './many-instances-scenarios.js';

const ready = await environmentReady();
// 17600-17666 belong to the auth, idempotency and reference-service cluster tests.
const PORTS = [17667, 17699] as const;

/** The `jti` claim of a JWT (no verification: the test issued it). */
function jtiOf(jwt: string): string {
  const payload = JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString()) as { jti: string };
  return payload.jti;
}

describe.skipIf(!ready)('Redis Cluster of three masters', () => {
  let redis: LocalRedisCluster;

  beforeAll(async () => {
    redis = await startRedisCluster({ portRange: PORTS });
  });
  afterAll(async () => {
    await redis?.destroy();
  });

  // Creating POSTs keep their keys in Redis (IDEMPOTENCY_STORE=shared), so the cluster carries them.
  describeManyInstances('three instances sharing a Redis Cluster and PostgreSQL', ready, () => ({
    options: { redisClusterNodes: redis.seeds, env: { IDEMPOTENCY_STORE: 'shared' } },
    // The cluster is private to this file and destroyed at the end.
    cleanup: async () => {},
  }));

  describe('one master killed under load, then restarted', () => {
    let db: Database;
    let seeded: Credentials;
    let service: Cluster;

    beforeAll(async () => {
      ({ db, credentials: seeded } = await seedDatabase('cluster_faults'));
      service = await startCluster({
        count: 3,
        database: db,
        credentials: seeded,
        redisClusterNodes: redis.seeds,
        env: { IDEMPOTENCY_STORE: 'shared', REDIS_COMMAND_TIMEOUT_MS: '500' },
      });
    });
    afterAll(async () => {
      await service?.stop();
      await db?.drop();
    });

    it('503 with Retry-After for what needs the dead master, the rest works, no duplicates, recovery', async () => {
      const { credentials, redisKeyPrefix: prefix } = service;
      const victim = redis.nodes[0]!;
      const onVictim = async (key: string) => (await redis.portOf(key)) === victim.port;

      // Bearer tokens whose revocation-list key lives on the victim, and ones whose key does not.
      const bearer = { victim: '', alive: '' };
      for (let i = 0; i < 60 && (!bearer.victim || !bearer.alive); i++) {
        const jwt = (await token(service.at(i).url, credentials, 'read:projects')).access_token;
        if (await onVictim(`${prefix}revoked:${jtiOf(jwt)}`)) bearer.victim ||= jwt;
        else bearer.alive ||= jwt;
      }
      expect([bearer.victim !== '', bearer.alive !== '']).toEqual([true, true]);
      const offline = await token(service.at(0).url, credentials, 'read:projects offline_access');
      const refreshNeedsVictim = await onVictim(`{${prefix}refresh}:tok:x`);

      const loadKeys: string[] = [];
      const traffic = load(6, async (worker, n) => {
        const url = service.at(worker + n).url;
        switch (worker % 3) {
          case 0: {
            const key = `cl-load-${worker}-${n}`;
            loadKeys.push(key);
            return { kind: `POST ${key}`, reply: await createFaultProject(url, credentials, key) };
          }
          case 1: {
            const jwt = n % 2 === 0 ? bearer.victim : bearer.alive;
            return {
              kind: `GET bearer ${jwt === bearer.victim ? 'victim' : 'alive'}`,
              reply: await request(`${url}/v2/projects?limit=5`, {
                headers: { authorization: `Bearer ${jwt}` },
              }),
            };
          }
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
      await victim.kill();
      await sleep(300);

      // During the outage: new keys land on every master, so some POSTs need the dead one and some do not.
      const outageKeys = Array.from({ length: 30 }, (_, i) => `cl-during-${i}`);
      const posts = await Promise.all(
        outageKeys.map((key, i) => createFaultProject(service.at(i).url, credentials, key)),
      );
      const get = (instance: Instance, headers: Record<string, string>) =>
        request(`${instance.url}/v2/projects?limit=1`, { headers });
      const outage = {
        bearerVictim: await Promise.all(
          service.instances.map((i) => get(i, { authorization: `Bearer ${bearer.victim}` })),
        ),
        bearerAlive: await Promise.all(
          service.instances.map((i) => get(i, { authorization: `Bearer ${bearer.alive}` })),
        ),
        apiKey: await Promise.all(service.instances.map((i) => get(i, { 'x-api-key': credentials.apiKey }))),
        ready: await Promise.all(service.instances.map((i) => request(`${i.url}/ready`))),
        refresh: await request(
          `${service.at(1).url}/oauth/token`,
          form({
            grant_type: 'refresh_token',
            refresh_token: offline.refresh_token as string,
            client_id: credentials.clientId,
            client_secret: credentials.clientSecret,
          }),
        ),
      };
      await sleep(500);
      await victim.start();

      // Recovery without a restart: the token whose key is on the victim works again on every instance.
      for (const instance of service.instances) {
        let reply = await get(instance, { authorization: `Bearer ${bearer.victim}` });
        for (let i = 0; i < 100 && reply.status !== 200; i++) {
          await sleep(200);
          reply = await get(instance, { authorization: `Bearer ${bearer.victim}` });
        }
        expect([instance.port, reply.status]).toEqual([instance.port, 200]);
      }
      await sleep(300);
      const samples = await traffic.stop();

      const postStatuses = tally(posts.map((r) => r.status));
      expect(Object.keys(postStatuses).sort()).toEqual(['201', '503']);
      for (const reply of posts.filter((r) => r.status === 503)) {
        expect([reply.json()['error_code'], reply.headers.get('retry-after')]).toEqual([
          'service_unavailable',
          '1',
        ]);
      }
      expect(
        outage.bearerVictim.map((r) => [r.status, r.json()['error_code'], r.headers.get('retry-after')]),
      ).toEqual(service.instances.map(() => [503, 'service_unavailable', '1']));
      expect(outage.bearerAlive.map((r) => r.status)).toEqual([200, 200, 200]);
      expect(outage.apiKey.map((r) => r.status)).toEqual([200, 200, 200]);
      expect(outage.ready.map((r) => r.status)).toEqual([200, 200, 200]);
      expect(outage.refresh.status).toBe(refreshNeedsVictim ? 503 : 200);

      expectOnly503s([...samples, ...posts.map((reply, i) => ({ kind: `POST ${outageKeys[i]}`, reply }))]);
      expect(tally(samples.map((s) => s.reply.status))[503]).toBeGreaterThan(0);
      const byKind = (kind: string) =>
        tally(samples.filter((s) => s.kind === kind).map((s) => s.reply.status));
      expect(Object.keys(byKind('GET api key'))).toEqual(['200']);
      expect(Object.keys(byKind('GET bearer alive'))).toEqual(['200']);

      // No duplicate side effect, nothing left in flight: every key, retried after recovery, ends with
      // exactly one row and replays an earlier 201. A store write the dead master missed (a response
      // already sent as 201, or the release after a claim that timed out) is tried again until the
      // lease ends, so it lands once the master is back instead of leaving the key in flight (409)
      // for the whole 60 s lease.
      const created = new Map<string, string>();
      for (const { kind, reply } of samples) {
        if (reply.status === 201)
          created.set(kind.slice('POST '.length), reply.headers.get('location') ?? '');
      }
      for (const [i, reply] of posts.entries()) {
        if (reply.status === 201) created.set(outageKeys[i]!, reply.headers.get('location') ?? '');
      }
      const allKeys = [...outageKeys, ...loadKeys];
      const stuck: string[] = [];
      for (const [i, key] of allKeys.entries()) {
        const reply = await settle(service.at(i).url, credentials, key, 12);
        if (reply.status === 409) {
          stuck.push(key);
          continue;
        }
        expect([key, reply.status]).toEqual([key, 201]);
        const earlier = created.get(key);
        if (earlier) expect([key, reply.headers.get('location')]).toEqual([key, earlier]);
      }
      // What each stuck key's own request got, for the report should one be left in flight.
      const answers = new Map(
        samples.filter((s) => s.kind.startsWith('POST ')).map((s) => [s.kind.slice('POST '.length), s.reply]),
      );
      for (const [i, reply] of posts.entries()) answers.set(outageKeys[i]!, reply);
      expect(stuck.map((key) => `${key}: first answer ${answers.get(key)?.status ?? 'none'}`)).toEqual([]);
      const counts = await rowsPerKey(db, allKeys);
      expect([...counts].filter(([, n]) => n !== 1)).toEqual([]);
    });
  });
});
