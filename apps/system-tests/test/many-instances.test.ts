/**
 * Three reference-service processes on the machine's Redis and one PostgreSQL (the scenarios are in
 * many-instances-scenarios.ts; redis-cluster.test.ts runs them again on a Redis Cluster), under each
 * VERSIONING_STRATEGY: idempotency, revocation and the shared rate limit hold whichever way a client
 * asks for its version.
 */
import { deleteRedisKeys, environmentReady, REDIS_URL } from './harness.js';
import { describeManyInstances } from './many-instances-scenarios.js';
import { STRATEGIES } from './strategy.js';

const ready = await environmentReady();

for (const strategy of STRATEGIES) {
  describeManyInstances(
    `three instances sharing Redis and PostgreSQL, VERSIONING_STRATEGY=${strategy}`,
    ready,
    () => ({
      options: { redisUrl: REDIS_URL },
      cleanup: (prefix) => deleteRedisKeys(REDIS_URL, prefix),
    }),
    strategy,
  );
}
