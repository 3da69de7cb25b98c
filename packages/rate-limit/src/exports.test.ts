import { describe, expect, it } from 'vitest';

// Guards the public API: adding or removing an export must be a deliberate, reviewed change.
describe('public exports', () => {
  it('@plumbline/rate-limit', async () => {
    expect(Object.keys(await import('./index.js')).sort()).toEqual([
      'FallbackStore',
      'MemoryStore',
      'RedisStore',
      'addressKey',
      'createLimiter',
      'ipNetwork',
      'partitionKey',
      'principalKey',
      'quotaName',
      'rateLimitedError',
    ]);
  });

  it.each(['express', 'fastify', 'hono'])('@plumbline/rate-limit/%s', async (adapter) => {
    expect(Object.keys(await import(`./${adapter}.ts`)).sort()).toEqual(['rateLimit']);
  });
});
