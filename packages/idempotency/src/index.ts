/**
 * @plumbline/idempotency: idempotency keys for POST (IETF httpapi Idempotency-Key draft). Key
 * parsing, request fingerprints, a fenced claim/complete/release state machine and its stores
 * (memory, Redis, and PostgreSQL/SQLite inside the handler's own transaction). Framework-agnostic: no request or response objects here.
 *
 * @packageDocumentation
 */

export type { IdempotencyRequestOptions, TransactionAccess } from './adapter.js';
export {
  type CapturedResponse,
  type Claim,
  createIdempotency,
  createTransactionalIdempotency,
  DEFAULT_REPLAY_HEADERS,
  type Decision,
  type Idempotency,
  type IdempotencyOptions,
  type IdempotentRequest,
  isStorableStatus,
  lookupKey,
  type PreparedIdempotentRequest,
  REPLAYED_BY_HEADER,
  REPLAYED_HEADER,
  type TransactionalIdempotency,
  type TransactionalIdempotencyOptions,
  type TransactionalOutcome,
} from './core.js';
export {
  canonicalBody,
  canonicalJson,
  compileExclusions,
  type Exclusions,
  fingerprintRequest,
} from './fingerprint.js';
export { DEFAULT_KEY_HEADERS, type HeaderValue, MAX_KEY_LENGTH, parseIdempotencyKey } from './key.js';
export { createMemoryStore, type MemoryStore, type MemoryStoreOptions } from './memory-store.js';
export { createRedisStore, type RedisScriptClient, type RedisStoreOptions } from './redis-store.js';
export {
  createSqlStore,
  type SqlClaim,
  type SqlDialect,
  type SqlIdempotencyStore,
  type SqlQuery,
  type SqlStoreOptions,
} from './sql-store.js';
export type { ClaimRequest, ClaimResult, IdempotencyStore, StoredResponse } from './store.js';
