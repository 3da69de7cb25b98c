/**
 * Exactly-once across a crash: an instance is killed (SIGKILL) while its INSERT waits on a lock that
 * a PostgreSQL session of the test holds; the lock is then released and the client retries on
 * another instance. With the idempotency record in the database (the default), the killed
 * instance's transaction, key and row included, is rolled back by PostgreSQL, and the retry creates
 * exactly one row. With the shared store (Redis), the killed instance's INSERT commits on its own
 * once the lock is gone while its key only expires with the lease, so the retry runs again: two
 * rows. That is the window the package README documents for the Redis store.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdTableLock } from './dependencies.js';
import {
  type Credentials,
  createProject,
  type Database,
  deleteRedisKeys,
  environmentReady,
  REDIS_URL,
  type Reply,
  request,
  seedDatabase,
  sleep,
  startCluster,
} from './harness.js';

const ready = await environmentReady();

const LEASE_MS = 4000;

describe.skipIf(!ready)('an instance killed while its write waits on a lock', () => {
  let db: Database;
  let seeded: Credentials;

  beforeAll(async () => {
    ({ db, credentials: seeded } = await seedDatabase('crash'));
  });
  afterAll(async () => {
    await db?.drop();
  });

  /** Backends of the service instances waiting for a lock right now. */
  async function lockWaiters(): Promise<number> {
    const [row] = await db.query<{ n: string }>(
      "SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'",
      [db.applicationName],
    );
    return Number(row?.n ?? 0);
  }

  async function until(check: () => Promise<boolean>, tries = 200): Promise<void> {
    for (let i = 0; i < tries && !(await check()); i++) await sleep(50);
  }

  it.for([
    ['database', 'the record commits with the row: exactly one row', 1],
    [
      'shared',
      'the record is in Redis: the INSERT commits without it, the retry after the lease runs again',
      2,
    ],
  ] as const)('IDEMPOTENCY_STORE=%s: %s', async ([store, , expectedRows], context) => {
    const prefix = `${db.schema}crash${store}:`;
    const cluster = await startCluster({
      count: 2,
      database: db,
      credentials: seeded,
      redisKeyPrefix: prefix,
      env: {
        IDEMPOTENCY_STORE: store,
        IDEMPOTENCY_LEASE_MS: String(LEASE_MS),
        // Long enough that the INSERT is still waiting when the instance dies.
        DATABASE_STATEMENT_TIMEOUT_MS: '30000',
      },
    });
    const [victim, survivor] = cluster.instances;
    if (!victim || !survivor) throw new Error('two instances expected');
    let lock: Awaited<ReturnType<typeof holdTableLock>> | undefined;
    try {
      const { credentials } = cluster;
      const project = await createProject(survivor.url, credentials, randomUUID(), {
        name: `crash ${randomUUID()}`,
      });
      expect(project.status).toBe(201);
      const key = randomUUID();
      const title = `crash ${key}`;
      const createTask = (url: string): Promise<Reply> =>
        request(`${url}/v2/projects/${project.json()['id']}/tasks`, {
          method: 'POST',
          headers: {
            'x-api-key': credentials.apiKey,
            'content-type': 'application/json',
            'idempotency-key': key,
          },
          body: JSON.stringify({ title }),
        });

      lock = await holdTableLock(db.url, 'tasks');
      const pending = createTask(victim.url);
      await until(async () => (await lockWaiters()) > 0);
      expect(await lockWaiters()).toBe(1);
      victim.child.kill('SIGKILL');
      await victim.exited;
      expect((await pending).status).toBe(0);

      // The dead instance's claim is still held (its transaction, or its lease): in flight.
      const early = await createTask(survivor.url);
      expect([early.status, early.json()['error_code']]).toEqual([409, 'idempotency_key_in_use']);

      await lock.release();
      lock = undefined;
      await until(async () => (await lockWaiters()) === 0);

      let retry = await createTask(survivor.url);
      for (let i = 0; i < 40 && retry.status === 409; i++) {
        await sleep(250);
        retry = await createTask(survivor.url);
      }
      expect([retry.status, retry.headers.get('idempotent-replayed')]).toEqual([201, null]);
      const [row] = await db.query<{ n: string }>('SELECT count(*) AS n FROM tasks WHERE title = $1', [
        title,
      ]);
      const rows = Number(row?.n ?? 0);
      await context.annotate(`IDEMPOTENCY_STORE=${store}: ${rows} row(s) after the crash and the retry`);
      expect(rows).toBe(expectedRows);
    } finally {
      await lock?.release();
      await cluster.stop();
      await deleteRedisKeys(REDIS_URL, prefix);
    }
  });
});
