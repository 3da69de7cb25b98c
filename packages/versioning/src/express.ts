/**
 * Express adapter for @plumbline/versioning (Express 4.21+ and 5). Thin: the core resolves the
 * version and computes the headers; this file reads the request, writes the headers and routes.
 *
 * @packageDocumentation
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { type CompiledPolicy, type HeaderRecord, internals, phaseAt, type VersionPolicy } from './policy.js';
import { headersAt, type ResolvedVersion, resolveAt, type VersionRequest } from './resolve.js';

const RESOLVED = Symbol.for('@plumbline/versioning.resolved');

type Carrier = Record<symbol, ResolvedVersion | undefined>;

/**
 * The API version {@link versioning} or {@link versionedRouter} resolved for this request;
 * `undefined` on version-neutral routes.
 *
 * @example
 * ```ts
 * router.get('/projects', (req, res) => {
 *   res.json(getApiVersion(req) === '1' ? legacyShape(projects) : projects);
 * });
 * ```
 */
export function getApiVersion(req: Request): string | undefined {
  return (req as unknown as Carrier)[RESOLVED]?.version;
}

/**
 * Everything resolved for this request: the version, what the client wrote, whether the default
 * was used; `undefined` on version-neutral routes.
 *
 * @example
 * ```ts
 * if (getResolvedVersion(req)?.defaulted) log.info('client sent no version');
 * ```
 */
export function getResolvedVersion(req: Request): ResolvedVersion | undefined {
  return (req as unknown as Carrier)[RESOLVED];
}

/**
 * Options for {@link versioning}.
 *
 * @example
 * ```ts
 * const options: VersioningOptions = { neutralPaths: ['/health', '/.well-known', /^\/errors\//] };
 * ```
 */
export interface VersioningOptions {
  /**
   * Version-neutral paths: not resolved, no version headers beyond `API-Supported-Versions`.
   * A string matches that path and everything below it (`/errors` matches `/errors/not_found`);
   * a RegExp is tested against the path. Default none. The path strategy needs none: a path
   * without a version segment is neutral by its shape.
   */
  readonly neutralPaths?: readonly (string | RegExp)[];
}

function neutralMatcher(paths: readonly (string | RegExp)[]): (path: string) => boolean {
  if (paths.length === 0) return () => false;
  const exact = new Set<string>();
  const prefixes: string[] = [];
  const patterns: RegExp[] = [];
  for (const entry of paths) {
    if (entry instanceof RegExp) patterns.push(entry);
    else {
      const path = entry.replace(/\/+$/, '').toLowerCase();
      exact.add(path === '' ? '/' : path);
      prefixes.push(`${path}/`);
    }
  }
  return (path) => {
    const lower = path.toLowerCase();
    return (
      exact.has(lower) ||
      prefixes.some((prefix) => lower.startsWith(prefix)) ||
      patterns.some((re) => re.test(path))
    );
  };
}

function writeHeaders(res: Response, record: HeaderRecord): void {
  for (const name in record) {
    const value = record[name]!;
    // Vary and Link are shared with other middleware: add to them, never replace them.
    if (name === 'Vary') res.vary(value);
    else if (name === 'Link') res.append('Link', value);
    else res.setHeader(name, value);
  }
}

function requestParts(policy: CompiledPolicy, req: Request): VersionRequest {
  switch (policy.strategy) {
    case 'path':
      return { path: req.path };
    case 'query': {
      // The raw query, not req.query: Express 4's qs would turn `version[]=1` into an array and
      // `version[a]=1` into an object, and the query parser setting differs between apps.
      const mark = req.url.indexOf('?');
      return { query: mark === -1 ? '' : req.url.slice(mark + 1) };
    }
    default:
      return { headers: req.headers };
  }
}

type Outcome =
  | { readonly kind: 'neutral' }
  | { readonly kind: 'error'; readonly error: unknown }
  | { readonly kind: 'resolved'; readonly resolved: ResolvedVersion };

const NEUTRAL: Outcome = { kind: 'neutral' };

// Headers go on the response before any handler runs, so they are still there when the error
// handler answers (it keeps headers already set).
function apply(
  policy: CompiledPolicy,
  req: Request,
  res: Response,
  isNeutral: (path: string) => boolean,
): Outcome {
  const already = getResolvedVersion(req);
  if (already !== undefined) return { kind: 'resolved', resolved: already };
  const now = policy.now();
  writeHeaders(res, phaseAt(policy, now).common);
  if (isNeutral(req.path)) return NEUTRAL;
  if (policy.vary !== undefined) res.vary(policy.vary);
  let resolved: ResolvedVersion | undefined;
  try {
    resolved = resolveAt(policy, requestParts(policy, req), now);
  } catch (error) {
    return { kind: 'error', error };
  }
  if (resolved === undefined) return NEUTRAL;
  (req as unknown as Carrier)[RESOLVED] = resolved;
  writeHeaders(
    res,
    headersAt(policy, resolved.version, now, { path: req.path, basePath: req.baseUrl ?? '' }),
  );
  return { kind: 'resolved', resolved };
}

/**
 * Resolves the API version once per request, exposes it through {@link getApiVersion}, and sets
 * `API-Supported-Versions`, `API-Deprecated-Versions`, `Deprecation`, `Sunset`, `Link` and `Vary`
 * before the handler runs, so every response carries them, errors included. A request the policy
 * refuses goes to `next(err)` with the `HttpError` (404/400/406 `unsupported_api_version`, 400
 * `invalid_api_version`, 400 `ambiguous_api_version`, 410 `api_version_sunset`).
 *
 * @example
 * ```ts
 * const policy = createVersionPolicy({ strategy: 'header', versions: ['1', '2'] });
 * app.use(versioning(policy, { neutralPaths: ['/health'] }));
 * app.get('/projects', (req, res) => res.json({ version: getApiVersion(req) }));
 * app.use(errorHandler());
 * ```
 */
export function versioning(policy: VersionPolicy, options: VersioningOptions = {}): RequestHandler {
  const compiled = internals(policy);
  const isNeutral = neutralMatcher(options.neutralPaths ?? []);
  return (req, res, next) => {
    const outcome = apply(compiled, req, res, isNeutral);
    if (outcome.kind === 'error') next(outcome.error);
    else next();
  };
}

/**
 * Options for {@link versionedRouter}.
 *
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
function mounted(handler: RequestHandler, matchedPath: string): RequestHandler {
  return (req, res, next) => {
    const { url } = req;
    const baseUrl = req.baseUrl ?? '';
    const rest = url.slice(matchedPath.length);
    req.url = rest.startsWith('/') ? rest : `/${rest}`;
    req.baseUrl = baseUrl + matchedPath;
    handler(req, res, (err?: unknown) => {
      req.url = url;
      req.baseUrl = baseUrl;
      next(err);
    });
  };
}

function isPassOn(err: unknown): boolean {
  return err === undefined || err === null || err === 'route' || err === 'router';
}

/**
 * One Express router per version plus version-neutral routes, behind one middleware. With the
 * path strategy `/v1/...` goes to the `'1'` router (which sees `/...`, like `app.use('/v1', r)`);
 * with the other strategies the request goes to the router of the resolved version. Every
 * supported version needs a router. Headers are set as {@link versioning} sets them.
 *
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
  const compiled = internals(policy);
  const table = new Map<string, RequestHandler>();
  for (const [key, router] of Object.entries(routers)) {
    const entry = compiled.lookup.get(key);
    if (entry === undefined || entry.version !== key) {
      throw new TypeError(
        `@plumbline/versioning: versionedRouter has a router for "${key}", which is not a supported version (${policy.versions.join(', ')})`,
      );
    }
    if (typeof router !== 'function')
      throw new TypeError(`@plumbline/versioning: the router for "${key}" is not a function`);
    table.set(key, router);
  }
  const missing = policy.versions.filter((version) => !table.has(version));
  if (missing.length > 0)
    throw new TypeError(`@plumbline/versioning: versionedRouter has no router for ${missing.join(', ')}`);
  const { neutral } = options;
  const never = () => false;

  const dispatch = (req: Request, res: Response, next: NextFunction): void => {
    const outcome = apply(compiled, req, res, never);
    if (outcome.kind !== 'resolved') {
      next(outcome.kind === 'error' ? outcome.error : undefined);
      return;
    }
    const { version, matchedPath } = outcome.resolved;
    const router = table.get(version)!;
    if (matchedPath === undefined) router(req, res, next);
    else mounted(router, matchedPath)(req, res, next);
  };

  return (req, res, next) => {
    if (neutral === undefined) {
      dispatch(req, res, next);
      return;
    }
    writeHeaders(res, phaseAt(compiled, compiled.now()).common);
    neutral(req, res, (err?: unknown) => {
      if (isPassOn(err)) dispatch(req, res, next);
      else next(err);
    });
  };
}
