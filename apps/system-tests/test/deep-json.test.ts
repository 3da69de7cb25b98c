/**
 * Regression: a body nested thousands of levels deep once overflowed the idempotency fingerprint
 * (a recursive canonical-JSON writer) and answered 500. It must be a 4xx.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Cluster,
  createDatabase,
  createProject,
  type Database,
  deleteRedisKeys,
  environmentReady,
  REDIS_URL,
  startCluster,
} from './harness.js';

const ready = await environmentReady();

describe.skipIf(!ready)('deeply nested JSON body', () => {
  let db: Database;
  let cluster: Cluster;
  beforeAll(async () => {
    db = await createDatabase('deep');
    cluster = await startCluster({ count: 1, database: db });
  });
  afterAll(async () => {
    await cluster?.stop();
    await deleteRedisKeys(REDIS_URL, cluster?.redisKeyPrefix ?? 'st_none:');
    await db?.drop();
  });

  it.each([2000, 50_000])('%i levels: a 4xx, not a 500', async (depth) => {
    const body = `{"name":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    const reply = await createProject(cluster.at(0).url, cluster.credentials, `deep-${depth}`, body);
    expect(reply.status).toBeGreaterThanOrEqual(400);
    expect(reply.status).toBeLessThan(500);
  });
});
