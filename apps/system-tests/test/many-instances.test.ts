/**
 * Three reference-service processes on the machine's Redis and one PostgreSQL (the scenarios are in
 * many-instances-scenarios.ts; redis-cluster.test.ts runs them again on a Redis Cluster).
 */
import { deleteRedisKeys, environmentReady, REDIS_URL } from './harness.js';
import { describeManyInstances } from './many-instances-scenarios.js';

const ready = await environmentReady();

describeManyInstances('three instances sharing Redis and PostgreSQL', ready, () => ({
  options: { redisUrl: REDIS_URL },
  cleanup: (prefix) => deleteRedisKeys(REDIS_URL, prefix),
}));
