/**
 * Three reference-service processes on one Redis (or one Redis Cluster) and one PostgreSQL, driven
 * round-robin: the guarantees that only hold if the state behind them is really shared. Run by
 * many-instances.test.ts (the machine's Redis) and redis-cluster.test.ts (a Redis Cluster of its own).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Cluster,
  type ClusterOptions,
  createDatabase,
  createProject,
  type Database,
  form,
  request,
  sleep,
  startCluster,
  tally,
  token,
} from './harness.js';
import { type Strategy, v2 } from './strategy.js';

/** Where the instances keep their shared state, and how to clean it up. */
export interface SharedState {
  /** Redis settings (and any other environment) for every instance. */
  readonly options: Pick<ClusterOptions, 'redisUrl' | 'redisClusterNodes' | 'env'>;
  /** Removes the keys written under a cluster's prefix. */
  cleanup(prefix: string): Promise<void>;
}

/**
 * Registers the multi-instance tests. `state()` is called in `beforeAll`, so a Redis the caller
 * starts in its own `beforeAll` (registered first) is up by then. The instances run with
 * VERSIONING_STRATEGY=`strategy`, and every request asks for v2 that way.
 */
export function describeManyInstances(
  title: string,
  enabled: boolean,
  state: () => SharedState,
  strategy: Strategy = 'path',
): void {
  describe.skipIf(!enabled)(title, () => {
    let db: Database;
    let cluster: Cluster;
    let shared: SharedState;
    const prefixes: string[] = [];
    const options = () => ({
      ...shared.options,
      env: { ...shared.options.env, VERSIONING_STRATEGY: strategy },
    });
    /** GET /projects?limit=1 in v2, the strategy's way. */
    const listProjects = (url: string, headers: Record<string, string>) =>
      request(...v2(strategy, url, '/projects?limit=1', { headers }));
    const create = (url: string, key: string, body: unknown) =>
      createProject(url, cluster.credentials, key, body, strategy);

    beforeAll(async () => {
      shared = state();
      db = await createDatabase('many');
      cluster = await startCluster({ count: 3, database: db, ...options() });
      prefixes.push(cluster.redisKeyPrefix);
    });

    afterAll(async () => {
      await cluster?.stop();
      for (const prefix of prefixes) await shared?.cleanup(prefix);
      await db?.drop();
    });

    it('200 concurrent POSTs with 20 idempotency keys create exactly 20 rows, no 5xx', async () => {
      const keys = Array.from({ length: 20 }, (_, k) => `many-${k}-${db.schema}`);
      const replies = await Promise.all(
        Array.from({ length: 200 }, async (_, i) => {
          const key = keys[i % keys.length] as string;
          const reply = await create(cluster.at(i).url, key, {
            name: `idem ${key}`,
          });
          return { key, reply };
        }),
      );
      const statuses = replies.map(({ reply }) => reply.status);
      expect(
        statuses.every((s) => s === 201 || s === 409),
        JSON.stringify(tally(statuses)),
      ).toBe(true);
      // Every 201 for a key is the same resource: the original or its byte-identical replay.
      const byKey = new Map<string, Set<string>>();
      for (const { key, reply } of replies) {
        if (reply.status === 409) {
          expect(reply.json()['error_code']).toBe('idempotency_key_in_use');
          expect(reply.headers.get('retry-after')).toMatch(/^\d+$/);
          continue;
        }
        const set = byKey.get(key) ?? new Set<string>();
        set.add(`${reply.headers.get('location')} ${reply.text}`);
        byKey.set(key, set);
      }
      for (const set of byKey.values()) expect(set.size).toBe(1);
      const rows = await db.query<{ n: string }>(
        "SELECT count(*) AS n FROM projects WHERE name LIKE 'idem many-%'",
      );
      expect(Number(rows[0]?.n)).toBe(20);
      // Every key ends with its one row: a retry of any key replays on any instance.
      const retries = await Promise.all(
        keys.map((key, i) => create(cluster.at(i + 1).url, key, { name: `idem ${key}` })),
      );
      expect(retries.map((r) => [r.status, r.headers.get('idempotent-replayed')])).toEqual(
        keys.map(() => [201, 'true']),
      );
      const after = await db.query<{ n: string }>(
        "SELECT count(*) AS n FROM projects WHERE name LIKE 'idem many-%'",
      );
      expect(Number(after[0]?.n)).toBe(20);
    });

    it('200 concurrent POSTs with one idempotency key create exactly one row, no 5xx', async () => {
      const key = `one-${db.schema}`;
      const replies = await Promise.all(
        Array.from({ length: 200 }, (_, i) => create(cluster.at(i).url, key, { name: `once ${key}` })),
      );
      const statuses = replies.map((reply) => reply.status);
      expect(
        statuses.every((s) => s === 201 || s === 409),
        JSON.stringify(tally(statuses)),
      ).toBe(true);
      const created = new Set(
        replies.filter((r) => r.status === 201).map((r) => `${r.headers.get('location')} ${r.text}`),
      );
      expect(created.size).toBeLessThanOrEqual(1);
      // Retried until it is no longer in flight, the key answers its one resource on every instance.
      const settled = [];
      for (const instance of cluster.instances) {
        let reply = await create(instance.url, key, { name: `once ${key}` });
        for (let i = 0; i < 40 && reply.status === 409; i++) {
          await sleep(100);
          reply = await create(instance.url, key, { name: `once ${key}` });
        }
        settled.push(`${reply.status} ${reply.headers.get('location')} ${reply.text}`);
      }
      expect(new Set(settled).size).toBe(1);
      // The Location of a v2 project, in the strategy's shape (`/v2/projects/…`, `/projects/…?version=2`).
      expect(settled[0]).toMatch(
        strategy === 'path' ? /^201 \S*\/v2\/projects\/\S+ / : /^201 \S*\/projects\/\S+ /,
      );
      if (created.size === 1) expect(settled[0]).toBe(`201 ${[...created][0]}`);
      const rows = await db.query<{ n: string }>('SELECT count(*) AS n FROM projects WHERE name = $1', [
        `once ${key}`,
      ]);
      expect(Number(rows[0]?.n)).toBe(1);
    });

    it('a refresh token replayed on another instance revokes the family on every instance', async () => {
      const [a, b, c] = cluster.instances as [
        (typeof cluster.instances)[0],
        (typeof cluster.instances)[0],
        (typeof cluster.instances)[0],
      ];
      const first = await token(a.url, cluster.credentials, 'read:projects offline_access');
      expect(first.refresh_token).toMatch(/\S/);
      const refresh = (url: string, refreshToken: string) =>
        request(
          `${url}/oauth/token`,
          form({
            grant_type: 'refresh_token',
            refresh_token: refreshToken,
            client_id: cluster.credentials.clientId,
            client_secret: cluster.credentials.clientSecret,
          }),
        );
      // Rotation on A: the old token is spent, a new one issued.
      const rotated = await refresh(a.url, first.refresh_token as string);
      expect(rotated.status).toBe(200);
      const newest = rotated.json<{ refresh_token: string }>().refresh_token;
      expect(newest).not.toBe(first.refresh_token);
      // Replay of the spent token on B: reuse detected.
      const replay = await refresh(b.url, first.refresh_token as string);
      expect([replay.status, replay.json()['error']]).toEqual([400, 'invalid_grant']);
      // The newest token of the family is dead everywhere, including on A which issued it.
      for (const instance of [c, a, b]) {
        const attempt = await refresh(instance.url, newest);
        expect([instance.port, attempt.status, attempt.json()['error']]).toEqual([
          instance.port,
          400,
          'invalid_grant',
        ]);
      }
      // So are the family's access tokens (issue 22 item 2), on every instance.
      const accessTokens = [first.access_token, rotated.json<{ access_token: string }>().access_token];
      for (const instance of [a, b, c]) {
        for (const access of accessTokens) {
          const reply = await listProjects(instance.url, { authorization: `Bearer ${access}` });
          expect([instance.port, reply.status, reply.json()['error_code']]).toEqual([
            instance.port,
            401,
            'invalid_token',
          ]);
        }
      }
    });

    it('a refresh token revoked on one instance (RFC 7009) ends its family on every instance', async () => {
      const [a, b, c] = cluster.instances as [
        (typeof cluster.instances)[0],
        (typeof cluster.instances)[0],
        (typeof cluster.instances)[0],
      ];
      const issued = await token(a.url, cluster.credentials, 'read:projects offline_access');
      const bearer = { authorization: `Bearer ${issued.access_token}` };
      // Warm every instance's verified-token cache: the revocation must win over it.
      for (const instance of [a, b, c]) {
        expect((await listProjects(instance.url, bearer)).status).toBe(200);
      }
      const revoked = await request(
        `${b.url}/oauth/revoke`,
        form({
          token: issued.refresh_token as string,
          client_id: cluster.credentials.clientId,
          client_secret: cluster.credentials.clientSecret,
        }),
      );
      expect([revoked.status, revoked.json()]).toEqual([200, {}]);
      for (const instance of [a, b, c]) {
        const use = await listProjects(instance.url, bearer);
        const again = await request(
          `${instance.url}/oauth/token`,
          form({
            grant_type: 'refresh_token',
            refresh_token: issued.refresh_token as string,
            client_id: cluster.credentials.clientId,
            client_secret: cluster.credentials.clientSecret,
          }),
        );
        expect([instance.port, use.status, again.status, again.json()['error']]).toEqual([
          instance.port,
          401,
          400,
          'invalid_grant',
        ]);
      }
    });

    it('a revoked jti is rejected by every instance within one second', async () => {
      const issued = await token(cluster.at(0).url, cluster.credentials, 'read:projects');
      const bearer = { authorization: `Bearer ${issued.access_token}` };
      // Warm every instance's verified-token cache first: revocation must win over the cache.
      for (const instance of cluster.instances) {
        const reply = await listProjects(instance.url, bearer);
        expect(reply.status).toBe(200);
      }
      const revoked = await request(
        `${cluster.at(1).url}/oauth/revoke`,
        form({
          token: issued.access_token,
          client_id: cluster.credentials.clientId,
          client_secret: cluster.credentials.clientSecret,
        }),
      );
      expect(revoked.status).toBe(200);
      await sleep(1000);
      const after = await Promise.all(
        cluster.instances.map((instance) =>
          listProjects(instance.url, bearer).then((r) => [r.status, r.json()['error_code']]),
        ),
      );
      expect(after).toEqual(cluster.instances.map(() => [401, 'invalid_token']));
    });

    it('the rate limit holds across the three instances together', async () => {
      const limit = 24;
      const limited = await startCluster({
        ...options(),
        count: 3,
        database: db,
        credentials: cluster.credentials,
        signingKey: cluster.signingKey,
        rateLimitPerMinute: limit,
      });
      prefixes.push(limited.redisKeyPrefix);
      try {
        const statuses: number[] = [];
        // Sequential, round-robin: each instance alone sees only a third of the limit.
        for (let i = 0; i < limit + 9; i++) {
          const reply = await listProjects(limited.at(i).url, { 'x-api-key': limited.credentials.apiKey });
          statuses.push(reply.status);
          if (reply.status === 429) {
            expect(reply.headers.get('retry-after')).toMatch(/^\d+$/);
            expect(reply.json()['error_code']).toBe('rate_limited');
          }
        }
        expect(statuses).toEqual([
          ...Array.from({ length: limit }, () => 200),
          ...Array.from({ length: 9 }, () => 429),
        ]);
      } finally {
        await limited.stop();
      }
    });
  });
}
