/**
 * OpenTelemetry for APIs that follow the conventions, framework-neutral: `createTelemetry` starts a
 * server span and a duration measurement per request through `@opentelemetry/api` (nothing when no
 * SDK is registered) and ends them with the stable HTTP attributes and the `plumbline.*` ones. The
 * adapters (`/express`, `/fastify`, `/hono`) read the request and the response for it.
 *
 * @packageDocumentation
 */
export {
  DURATION_BUCKETS,
  HTTP_ATTRIBUTES,
  KNOWN_METHODS,
  METRICS,
  PLUMBLINE_ATTRIBUTES,
} from './attributes.js';
export type { AdapterOptions } from './shared.js';
export {
  createTelemetry,
  idempotencyOutcome,
  type PrincipalIdMode,
  type PrincipalLike,
  problemErrorCode,
  type RequestFacts,
  type RequestTelemetry,
  type ResponseFacts,
  rateLimitPolicy,
  rateLimitRemaining,
  type Telemetry,
  type TelemetryOptions,
} from './telemetry.js';
