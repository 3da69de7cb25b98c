/**
 * Express adapter for @plumbline/versioning, part 1: the `versioning()` middleware, `refuseVersion()`
 * and the request getters. The core resolves the version and computes the headers; this file reads
 * the request and writes the headers. Published as `@plumbline/versioning/express` with
 * `express-router.ts`.
 */
import type { Request, RequestHandler, Response } from 'express';
import type { HeaderRecord, VersionPolicy } from './policy.js';
import {
  combineHeader,
  createRequestVersioning,
  type VersioningOptions,
  type VersioningOutcome,
} from './request.js';
import type { ResolvedVersion } from './resolve.js';

export type { VersioningOptions };

const RESOLVED = Symbol.for('@plumbline/versioning.resolved');
// Which policy resolved RESOLVED, and where the request was then: a later versioning() or
// versionedRouter of the same policy at the same place reuses the resolution instead of repeating it.
const RESOLVED_BY = Symbol.for('@plumbline/versioning.resolvedBy');
// The refusal a `refuse: false` versioning() kept for the request, for refuseVersion().
const REFUSED = Symbol.for('@plumbline/versioning.refused');

interface Resolution {
  readonly version: Versioner;
  readonly url: string;
  readonly baseUrl: string;
}

type Carrier = Record<symbol, unknown>;

/**
 * The API version {@link versioning} or {@link versionedRouter} resolved for this request;
 * `undefined` on version-neutral routes.
 * @example
 * ```ts
 * router.get('/projects', (req, res) => {
 *   res.json(getApiVersion(req) === '1' ? legacyShape(projects) : projects);
 * });
 * ```
 */
export function getApiVersion(req: Request): string | undefined {
  return getResolvedVersion(req)?.version;
}

/**
 * Everything resolved for this request: the version, what the client wrote, whether the default
 * was used; `undefined` on version-neutral routes.
 * @example
 * ```ts
 * if (getResolvedVersion(req)?.defaulted) log.info('client sent no version');
 * ```
 */
export function getResolvedVersion(req: Request): ResolvedVersion | undefined {
  return (req as unknown as Carrier)[RESOLVED] as ResolvedVersion | undefined;
}

// Vary and Link are shared with other middleware: add to them, never replace them.
export function writeHeaders(res: Response, record: HeaderRecord): void {
  for (const name in record) {
    if (name === 'Link') res.append('Link', record[name]!);
    else res.setHeader(name, combineHeader(name, res.getHeader(name) as string | undefined, record[name]!));
  }
}

/** @internal One policy's per-request versioning, as the Express adapter runs it. */
export interface Versioner {
  readonly resolve: ReturnType<typeof createRequestVersioning>;
  /** Whether the strategy reads the query string (only then is it cut out of the URL). */
  readonly readsQuery: boolean;
  /** Identifies the policy: a resolution is reused only by a versioner of the same policy. */
  readonly policy: VersionPolicy;
}

/** @internal */
export function createVersioner(policy: VersionPolicy, options: VersioningOptions = {}): Versioner {
  return {
    resolve: createRequestVersioning(policy, options),
    readsQuery: policy.strategy === 'query',
    policy,
  };
}

const EMPTY: HeaderRecord = Object.freeze({});

// Headers go on the response before any handler runs, so they are still there when the error
// handler answers (it keeps headers already set).
export function apply(version: Versioner, req: Request, res: Response): VersioningOutcome {
  const carrier = req as unknown as Carrier;
  const { url } = req;
  const baseUrl = req.baseUrl ?? '';
  const already = carrier[RESOLVED] as ResolvedVersion | undefined;
  if (already !== undefined) {
    // Resolved earlier on this request by the same policy at the same place (versioning() in
    // front of versionedRouter): the headers are on the response already.
    const by = carrier[RESOLVED_BY] as Resolution | undefined;
    if (
      by === undefined ||
      (by.version.policy === version.policy && by.url === url && by.baseUrl === baseUrl)
    )
      return { kind: 'resolved', resolved: already, headers: EMPTY };
  }
  let query = '';
  if (version.readsQuery) {
    // The raw query, not req.query: Express 4's qs would turn `version[]=1` into an array.
    const mark = url.indexOf('?');
    if (mark !== -1) query = url.slice(mark + 1);
  }
  const outcome = version.resolve({
    path: req.path,
    query,
    headers: req.headers,
    basePath: baseUrl,
    context: req,
  });
  writeHeaders(res, outcome.headers);
  if (outcome.kind === 'resolved') {
    carrier[RESOLVED] = outcome.resolved;
    carrier[RESOLVED_BY] = { version, url, baseUrl };
  }
  return outcome;
}

/**
 * Options of {@link versioning}: the core's neutral paths, and whether the middleware answers a
 * refused version itself. `refuse` has the name and meaning of the Fastify plugin's option.
 * @example
 * ```ts
 * const options: VersioningMiddlewareOptions = { neutralPaths: ['/health'], refuse: false };
 * app.use(versioning(policy, options));
 * ```
 */
export interface VersioningMiddlewareOptions extends VersioningOptions {
  /**
   * Whether the middleware answers a refused version (unknown, malformed, ambiguous, past its
   * sunset) by passing the core's `HttpError` to `next(err)`. Default `true`. With `false` it sets
   * the version headers of the refused request and calls `next()`, the refusal kept for the
   * request, so every answer before the refusal (a neutral route, a 401, a 429) carries the
   * headers; place {@link refuseVersion} where the app refuses (behind its version-neutral routes,
   * in front of the versioned ones). A {@link versionedRouter} behind it needs no `refuseVersion`:
   * it refuses by itself, after its `neutral` routes.
   * @example
   * ```ts
   * app.use(versioning(policy, { refuse: false }));
   * app.get('/health', (req, res) => res.json({ ok: true }));
   * app.use(refuseVersion());
   * ```
   */
  readonly refuse?: boolean;
}

/**
 * Resolves the API version once per request, exposes it through {@link getApiVersion}, and sets
 * `API-Supported-Versions`, `API-Deprecated-Versions`, `Deprecation`, `Sunset`, `Link` and `Vary`
 * before the handler runs, so every response carries them, errors included. A request the policy
 * refuses goes to `next(err)` with the `HttpError` (404/400/406 `unsupported_api_version`, 400
 * `invalid_api_version`, 400 `ambiguous_api_version`, 410 `api_version_sunset`); with
 * `{ refuse: false }` it goes on with its headers, and {@link refuseVersion} (or a
 * {@link versionedRouter}) refuses it later.
 * @example
 * ```ts
 * const policy = createVersionPolicy({ strategy: 'header', versions: ['1', '2'] });
 * app.use(versioning(policy, { neutralPaths: ['/health'] }));
 * app.get('/projects', (req, res) => res.json({ version: getApiVersion(req) }));
 * app.use(errorHandler());
 * ```
 */
export function versioning(policy: VersionPolicy, options: VersioningMiddlewareOptions = {}): RequestHandler {
  const version = createVersioner(policy, options);
  if (options.refuse ?? true) {
    return (req, res, next) => {
      const outcome = apply(version, req, res);
      next(outcome.kind === 'error' ? outcome.error : undefined);
    };
  }
  return (req, res, next) => {
    const outcome = apply(version, req, res);
    if (outcome.kind === 'error') (req as unknown as Carrier)[REFUSED] = outcome.error;
    next();
  };
}

/**
 * Answers the refused version that {@link versioning} with `{ refuse: false }` kept for this
 * request: passes its `HttpError` to `next(err)` (400 `unsupported_api_version`,
 * `invalid_api_version` or `ambiguous_api_version`, 404 under the path strategy, 406 under the
 * media-type strategy, 410 `api_version_sunset`), which `errorHandler()` answers with the version
 * headers `versioning()` set; every other request goes on (`next()`), as does every request when
 * no `versioning()` kept a refusal. Place it behind the version-neutral routes and in front of the
 * versioned ones; an `app.use(refuseVersion())` there also refuses the requests no route matches.
 * For apps that route themselves: a {@link versionedRouter} refuses by itself, after its `neutral`
 * routes, and needs none.
 * @example
 * ```ts
 * app.use(versioning(policy, { refuse: false })); // the version headers on every answer
 * app.get('/health', (req, res) => res.json({ ok: true })); // answers whatever the version says
 * app.use(authenticate({ jwt })); // its 401, before the refusal, carries the version headers
 * app.use(refuseVersion()); // from here on, a refused version is refused
 * app.get('/projects', (req, res) => res.json(projects()));
 * ```
 */
export function refuseVersion(): RequestHandler {
  return (req, _res, next) => {
    next((req as unknown as Carrier)[REFUSED]);
  };
}
