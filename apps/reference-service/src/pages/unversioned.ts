/**
 * The version-neutral routes (`/health`, `/ready`, `/openapi.json`, `/.well-known/jwks.json`,
 * `/errors`, `/errors/{code}`, `/changelog`, `/docs/changelog`, `/metrics`, `/docs`, the deprecation pages) follow the same contract
 * as the versioned resources: `Accept` is negotiated (406 `not_acceptable` when nothing fits, with
 * `Vary: Accept, Accept-Language`), another method is 405 with `Allow`, and OPTIONS is 204 with
 * `Allow`, through the same packages (`createMethodGuard`, `negotiate`). The route handlers
 * themselves stay where they are; this runs in front of them.
 */
import { createMethodGuard, isHttpError } from '@plumbline/errors';
import type { NegotiatorOptions } from '@plumbline/negotiation';
import type { PlainReply } from '../service/plain-reply.js';

interface NeutralRoute {
  /** The path, or a pattern for a templated one (`/errors/{code}`). */
  readonly path: string | RegExp;
  readonly methods: readonly string[];
  /** What the handler writes; `undefined` when the route negotiates for itself. */
  readonly types?: readonly string[];
}

const JSON_ONLY = ['application/json'];

/** Every neutral route that is not negotiated elsewhere; `/`, `/oauth/*` do their own. */
const NEUTRAL_ROUTES: readonly NeutralRoute[] = [
  { path: '/health', methods: ['GET'], types: JSON_ONLY },
  { path: '/ready', methods: ['GET'], types: JSON_ONLY },
  { path: '/openapi.json', methods: ['GET'], types: JSON_ONLY },
  { path: '/.well-known/jwks.json', methods: ['GET'], types: JSON_ONLY },
  { path: '/errors', methods: ['GET'], types: JSON_ONLY },
  // The error pages negotiate JSON and HTML themselves (pages/docs.ts); only the methods are checked here.
  { path: /^\/errors\/[^/]+$/, methods: ['GET'] },
  // The changelog negotiates JSON, Markdown and HTML itself (pages/changelog.ts).
  { path: '/changelog', methods: ['GET'] },
  { path: '/docs/changelog', methods: ['GET'] },
  { path: '/metrics', methods: ['GET'], types: ['text/plain'] },
  { path: '/docs', methods: ['GET'], types: ['text/html'] },
  { path: '/docs/deprecations/v1', methods: ['GET'], types: ['text/plain'] },
  { path: '/docs/sunset-policy', methods: ['GET'], types: ['text/plain'] },
];

// The handlers write their own bodies; a serializer is only required by the negotiator's options.
const UNUSED = (data: unknown) => String(data);

/** One neutral route's contract, ready for any wiring. */
export interface UnversionedRoute {
  /** True for a request path this route serves. */
  matches(path: string): boolean;
  /**
   * The answer to `method` before the handler: 204 with `Allow` for OPTIONS, `undefined` for an
   * allowed method (go on), or throws 405 `method_not_allowed` (with `Allow`).
   */
  methodAnswer(method: string): PlainReply | undefined;
  /**
   * Options for the wiring's negotiation adapter (`negotiate`), run after an allowed method: 406
   * when nothing fits, `Vary` and `Content-Language` otherwise. `undefined` when the route
   * negotiates for itself. Build the adapter once per route, at start.
   */
  readonly negotiation: NegotiatorOptions | undefined;
}

/**
 * The contract of every neutral route of {@link NEUTRAL_ROUTES}, compiled once; a wiring that
 * builds one negotiation adapter per route at start walks this list.
 *
 * @example
 * ```ts
 * const negotiators = new Map(UNVERSIONED_ROUTES.map((r) => [r, r.negotiation && negotiate(r.negotiation)]));
 * ```
 */
export const UNVERSIONED_ROUTES: readonly UnversionedRoute[] = NEUTRAL_ROUTES.map((route) => {
  const guard = createMethodGuard(route.methods);
  const allowed = new Set(guard.allow.split(', '));
  return {
    matches: (path: string) => (typeof route.path === 'string' ? path === route.path : route.path.test(path)),
    methodAnswer(method: string): PlainReply | undefined {
      if (method !== 'OPTIONS' && allowed.has(method)) return undefined;
      const answer = guard.answer(method);
      if (isHttpError(answer)) throw answer;
      return { status: 204, headers: { Allow: answer.headers.Allow }, body: '' };
    },
    negotiation:
      route.types === undefined
        ? undefined
        : {
            types: route.types,
            languages: ['en', 'de'],
            serializers: Object.fromEntries(route.types.map((type) => [type, UNUSED])),
          },
  };
});

/**
 * The neutral route serving `path` (the request path, without the query), or `undefined`: then
 * the request is none of this contract's business.
 *
 * @example
 * ```ts
 * unversionedRoute('/health')?.methodAnswer('DELETE'); // throws 405 method_not_allowed, Allow: GET, HEAD, OPTIONS
 * ```
 */
export function unversionedRoute(path: string): UnversionedRoute | undefined {
  return UNVERSIONED_ROUTES.find((route) => route.matches(path));
}
