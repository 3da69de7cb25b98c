/**
 * Rate limits with the IETF httpapi RateLimit fields, framework-neutral: `createLimiter` counts a
 * key in a store and says which headers to send, whether the limit is spent (with the 429
 * `rate_limited` problem to throw) and how to settle the hit once the response is known. The
 * adapters (`/express`, `/fastify`, `/hono`) only read the key off the request and send what it says.
 *
 * @packageDocumentation
 */
export { type Circuit, FallbackStore, type FallbackStoreOptions } from './fallback-store.js';
export { addressKey, ipNetwork, principalKey } from './keys.js';
export {
  createLimiter,
  type HeaderMode,
  type Limiter,
  type LimiterOptions,
  partitionKey,
  quotaName,
  type RateDecision,
  rateLimitedError,
} from './limiter.js';
export { MemoryStore, type MemoryStoreOptions } from './memory-store.js';
export { type RedisScriptClient, RedisStore, type RedisStoreOptions } from './redis-store.js';
export type { ClientRateLimitInfo, Store, StoreInitOptions } from './store.js';
