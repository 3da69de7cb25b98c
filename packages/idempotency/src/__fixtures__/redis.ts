import { REDIS_URL } from '@plumbline/test-utils';
import { Redis, type RedisOptions } from 'ioredis';

/** A test client on the machine's Redis that fails fast instead of queueing while disconnected. */
export function testRedis(options: RedisOptions = {}): Redis {
  return new Redis(REDIS_URL, { maxRetriesPerRequest: 1, lazyConnect: false, ...options });
}

/** Deletes every key under `prefix` (never FLUSHDB: the Redis is shared). */
export async function deletePrefix(client: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    cursor = next;
    if (keys.length > 0) await client.del(...keys);
  } while (cursor !== '0');
}
