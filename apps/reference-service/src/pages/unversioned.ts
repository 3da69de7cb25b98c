/**
 * The version-neutral routes (`/health`, `/ready`, `/openapi.json`, `/.well-known/jwks.json`,
 * `/errors`, `/metrics`, `/docs`, the deprecation pages) follow the same contract as the versioned
 * resources: `Accept` is negotiated (406 `not_acceptable` when nothing fits, with
 * `Vary: Accept, Accept-Language`), another method is 405 with `Allow`, and OPTIONS is 204 with
 * `Allow`. Each wiring mounts a neutral route as a GET behind its framework's `negotiate` adapter,
 * given the options below, and answers the path's other methods with its `methodNotAllowed`; the
 * routes that negotiate their own representation (`/`, `/errors/{code}`, the changelog:
 * pages/neutral-routes.ts `negotiatedRoutes`) bring their own options.
 */
import type { NegotiatorOptions } from '@plumbline/negotiation';

const JSON_ONLY = ['application/json'];

/** What each neutral route writes (its handler writes the body; this is what `Accept` is checked against). */
const NEUTRAL_TYPES: Readonly<Record<string, readonly string[]>> = {
  '/health': JSON_ONLY,
  '/ready': JSON_ONLY,
  '/openapi.json': JSON_ONLY,
  '/.well-known/jwks.json': JSON_ONLY,
  '/errors': JSON_ONLY,
  '/metrics': ['text/plain'],
  '/docs': ['text/html'],
  '/docs/deprecations/v1': ['text/plain'],
  '/docs/sunset-policy': ['text/plain'],
};

// The handlers write their own bodies; a serializer is only required by the negotiator's options.
const UNUSED = (data: unknown) => String(data);

const NEGOTIATIONS: ReadonlyMap<string, NegotiatorOptions> = new Map(
  Object.entries(NEUTRAL_TYPES).map(([path, types]) => [
    path,
    { types, languages: ['en', 'de'], serializers: Object.fromEntries(types.map((type) => [type, UNUSED])) },
  ]),
);

/**
 * The options of the negotiation adapter in front of the neutral route at `path` (a route path of
 * pages/neutral-routes.ts `neutralRoutes`), or `undefined` when that route is not negotiated
 * (its assets and scripts). Build the adapter once per route, at start.
 *
 * @example
 * ```ts
 * unversionedNegotiation('/health'); // { types: ['application/json'], languages: ['en', 'de'], ... }
 * ```
 */
export function unversionedNegotiation(path: string): NegotiatorOptions | undefined {
  return NEGOTIATIONS.get(path);
}
