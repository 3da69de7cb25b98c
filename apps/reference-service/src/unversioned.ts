/**
 * The version-neutral routes (`/health`, `/ready`, `/openapi.json`, `/.well-known/jwks.json`,
 * `/errors`, `/errors/{code}`, `/metrics`, `/docs`, the deprecation pages) follow the same contract
 * as the versioned resources: `Accept` is negotiated (406 `not_acceptable` when nothing fits, with
 * `Vary: Accept, Accept-Language`), another method is 405 with `Allow`, and OPTIONS is 204 with
 * `Allow`, through the same packages (`createMethodGuard`, `negotiate`). The route handlers
 * themselves stay where they are; this runs in front of them.
 */
import { createMethodGuard, isHttpError } from '@plumbline/errors';
import { negotiate } from '@plumbline/negotiation/express';
import type { RequestHandler } from 'express';

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
  // The error pages negotiate JSON and HTML themselves (docs.ts); only the methods are checked here.
  { path: /^\/errors\/[^/]+$/, methods: ['GET'] },
  { path: '/metrics', methods: ['GET'], types: ['text/plain'] },
  { path: '/docs', methods: ['GET'], types: ['text/html'] },
  { path: '/docs/deprecations/v1', methods: ['GET'], types: ['text/plain'] },
  { path: '/docs/sunset-policy', methods: ['GET'], types: ['text/plain'] },
];

// The handlers write their own bodies; a serializer is only required by the negotiator's options.
const UNUSED = (data: unknown) => String(data);

/**
 * Method check and negotiation for the neutral routes, in front of their handlers; any other path
 * passes through untouched.
 *
 * @example
 * ```ts
 * const neutral = Router();
 * neutral.use(unversionedContract());
 * ```
 */
export function unversionedContract(): RequestHandler {
  const compiled = NEUTRAL_ROUTES.map((route) => {
    const guard = createMethodGuard(route.methods);
    return {
      matches: (path: string) =>
        typeof route.path === 'string' ? path === route.path : route.path.test(path),
      guard,
      allowed: new Set(guard.allow.split(', ')),
      negotiated:
        route.types === undefined
          ? undefined
          : negotiate({
              types: route.types,
              languages: ['en', 'de'],
              serializers: Object.fromEntries(route.types.map((type) => [type, UNUSED])),
            }),
    };
  });
  return (req, res, next) => {
    const route = compiled.find((entry) => entry.matches(req.path));
    if (route === undefined) {
      next();
      return;
    }
    if (req.method === 'OPTIONS' || !route.allowed.has(req.method)) {
      const answer = route.guard.answer(req.method);
      if (isHttpError(answer)) {
        next(answer);
        return;
      }
      res.setHeader('Allow', answer.headers.Allow);
      res.status(204).end();
      return;
    }
    if (route.negotiated === undefined) next();
    else route.negotiated(req, res, next);
  };
}
