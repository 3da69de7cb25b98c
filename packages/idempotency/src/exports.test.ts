import { describe, expect, it } from 'vitest';

// Guards the public API: adding or removing an export must be a deliberate, reviewed change.
describe('public exports', () => {
  it('@plumbline/idempotency', async () => {
    expect(Object.keys(await import('./index.js')).sort()).toEqual([
      'DEFAULT_KEY_HEADERS',
      'DEFAULT_REPLAY_HEADERS',
      'MAX_KEY_LENGTH',
      'REPLAYED_BY_HEADER',
      'REPLAYED_HEADER',
      'canonicalBody',
      'canonicalJson',
      'compileExclusions',
      'createIdempotency',
      'createMemoryStore',
      'createRedisStore',
      'createSqlStore',
      'createTransactionalIdempotency',
      'fingerprintRequest',
      'isStorableStatus',
      'lookupKey',
      'parseIdempotencyKey',
    ]);
  });

  it('@plumbline/idempotency/express', async () => {
    expect(Object.keys(await import('./express.js')).sort()).toEqual([
      'getTransaction',
      'idempotency',
      'idempotencyTransaction',
    ]);
  });
});
