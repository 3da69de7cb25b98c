import type { ContentNegotiator } from './negotiator.js';

/**
 * The negotiator that decided each request, keyed by the framework's request object (Fastify's
 * request, Hono's raw `Request`), so `represent` and `entityTagOf` in separate files use the same one.
 */
export const NEGOTIATORS = new WeakMap<object, ContentNegotiator>();

/** Hono requests whose route already set an `ETag` (conditional() on a GET): `represent` keeps it. */
export const ROUTE_ETAG = new WeakSet<object>();
