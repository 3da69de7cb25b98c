/**
 * An exhausted PostgreSQL pool: with DATABASE_POOL_SIZE=1 and the one connection held by a write
 * waiting on a lock, a request that needs another connection gets 503 with Retry-After once
 * DATABASE_CONNECT_TIMEOUT_MS has passed, instead of waiting; both succeed once the lock is gone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdTableLock } from './dependencies.js';
import {
  type Cluster,
  type Credentials,
  createProject,
  type Database,
  deleteRedisKeys,
  environmentReady,
  REDIS_URL,
  request,
  seedDatabase,
  sleep,
  startCluster,
} from './harness.js';

const ready = await environmentReady();

describe.skipIf(!ready)('PostgreSQL pool exhausted past DATABASE_CONNECT_TIMEOUT_MS', () => {
  let db: Database;
  let seeded: Credentials;
  let service: Cluster;

  beforeAll(async () => {
    ({ db, credentials: seeded } = await seedDatabase('pool'));
    service = await startCluster({
      count: 1,
      database: db,
      credentials: seeded,
      env: {
        DATABASE_POOL_SIZE: '1',
        DATABASE_CONNECT_TIMEOUT_MS: '300',
        // Long enough that only the pool's own deadline can end the second request's wait.
        DATABASE_STATEMENT_TIMEOUT_MS: '60000',
      },
    });
  });
  afterAll(async () => {
    await service?.stop();
    if (service) await deleteRedisKeys(REDIS_URL, service.redisKeyPrefix);
    await db?.drop();
  });

  it('answers 503 service_unavailable with Retry-After, then serves both once the connection is free', async () => {
    const url = service.at(0).url;
    const lock = await holdTableLock(db.url, 'projects');
    let released = false;
    try {
      const write = createProject(url, service.credentials, `pool-${db.schema}`, { name: 'pool write' });
      // The pool's only connection is now inside the INSERT, waiting for the lock.
      let waiting = 0;
      for (let i = 0; i < 100 && waiting === 0; i++) {
        await sleep(50);
        const rows = await db.query<{ n: string }>(
          "SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'",
          [db.applicationName],
        );
        waiting = Number(rows[0]?.n);
      }
      expect(waiting).toBe(1);

      const starved = await request(`${url}/v2/projects?limit=1`, {
        headers: { 'x-api-key': service.credentials.apiKey },
      });
      const health = await request(`${url}/health`);
      expect([
        starved.status,
        starved.json()['error_code'],
        starved.headers.get('retry-after'),
        health.status,
      ]).toEqual([503, 'service_unavailable', '1', 200]);

      await lock.release();
      released = true;
      const written = await write;
      expect([written.status, written.json()['name']]).toEqual([201, 'pool write']);
      const after = await request(`${url}/v2/projects?limit=1`, {
        headers: { 'x-api-key': service.credentials.apiKey },
      });
      expect(after.status).toBe(200);
    } finally {
      if (!released) await lock.release();
    }
  });
});
