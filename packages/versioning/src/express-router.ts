/**
 * Express adapter for @plumbline/versioning, part 2: `versionedRouter()`, one Express router per
 * version behind one middleware.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { apply, createVersioner, writeHeaders } from './express-middleware.js';
import type { VersionPolicy } from './policy.js';
import { versionTable } from './request.js';
import { versionHeaders } from './resolve.js';

/**
 * Options for {@link versionedRouter}.
 * @example
 * ```ts
 * const options: VersionedRouterOptions = { neutral: healthRouter };
 * ```
 */
export interface VersionedRouterOptions {
  /**
   * Version-neutral routes (`/health`, `/openapi.json`, `/.well-known/jwks.json`), tried first
   * for every request; what it does not handle goes on to version resolution.
   */
  readonly neutral?: RequestHandler;
}

// Mounting by hand, as Express does for `app.use('/v1', router)`: the version router sees
// `/projects` while `req.baseUrl` and `req.originalUrl` still show `/v1/projects`.
function runMounted(
  handler: RequestHandler,
  matchedPath: string,
  req: Request,
  res: Response,
  next: NextFunction,
): void {
  const { url } = req;
  const baseUrl = req.baseUrl ?? '';
  const rest = url.slice(matchedPath.length);
  req.url = rest.charCodeAt(0) === 0x2f ? rest : `/${rest}`;
  req.baseUrl = baseUrl + matchedPath;
  handler(req, res, (err?: unknown) => {
    req.url = url;
    req.baseUrl = baseUrl;
    next(err);
  });
}

function isPassOn(err: unknown): boolean {
  return err === undefined || err === null || err === 'route' || err === 'router';
}

/**
 * One Express router per version plus version-neutral routes, behind one middleware. With the
 * path strategy `/v1/...` goes to the `'1'` router (which sees `/...`, like `app.use('/v1', r)`);
 * with the other strategies the request goes to the router of the resolved version. Every
 * supported version needs a router. Headers are set as {@link versioning} sets them. A refused
 * version is refused by the router itself, after its `neutral` routes (which answer whatever the
 * version says): behind `app.use(versioning(policy, { refuse: false }))`, which puts the version
 * headers on the answers of everything in between (a 401, a 429), it needs no {@link refuseVersion}.
 * @example
 * ```ts
 * const policy = createVersionPolicy({ strategy: 'path', versions: [{ version: '1', deprecated: true }, '2'] });
 * const neutral = express.Router().get('/health', (req, res) => res.json({ ok: true }));
 * app.use(versionedRouter(policy, { '1': routerV1, '2': routerV2 }, { neutral }));
 * app.use(notFoundHandler());
 * app.use(errorHandler());
 * ```
 */
export function versionedRouter(
  policy: VersionPolicy,
  routers: Readonly<Record<string, RequestHandler>>,
  options: VersionedRouterOptions = {},
): RequestHandler {
  const table = versionTable(policy, routers);
  const { neutral } = options;
  const resolve = createVersioner(policy);

  const dispatch = (req: Request, res: Response, next: NextFunction): void => {
    const outcome = apply(resolve, req, res);
    if (outcome.kind !== 'resolved') {
      next(outcome.kind === 'error' ? outcome.error : undefined);
      return;
    }
    const { version, matchedPath } = outcome.resolved;
    const router = table.get(version)!;
    if (matchedPath === undefined) router(req, res, next);
    else runMounted(router, matchedPath, req, res, next);
  };

  return (req, res, next) => {
    if (neutral === undefined) {
      dispatch(req, res, next);
      return;
    }
    writeHeaders(res, versionHeaders(policy));
    neutral(req, res, (err?: unknown) => {
      if (isPassOn(err)) dispatch(req, res, next);
      else next(err);
    });
  };
}
