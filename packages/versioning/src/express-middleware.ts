/**
 * Express adapter for @plumbline/versioning, part 1: the `versioning()` middleware and the request
 * getters. The core resolves the version and computes the headers; this file reads the request and
 * writes the headers. Published as `@plumbline/versioning/express` with `express-router.ts`.
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

interface Resolution {
  readonly version: Versioner;
  readonly url: string;
  readonly baseUrl: string;
}

type Carrier = Record<symbol, ResolvedVersion | Resolution | undefined>;

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
 * Resolves the API version once per request, exposes it through {@link getApiVersion}, and sets
 * `API-Supported-Versions`, `API-Deprecated-Versions`, `Deprecation`, `Sunset`, `Link` and `Vary`
 * before the handler runs, so every response carries them, errors included. A request the policy
 * refuses goes to `next(err)` with the `HttpError` (404/400/406 `unsupported_api_version`, 400
 * `invalid_api_version`, 400 `ambiguous_api_version`, 410 `api_version_sunset`).
 * @example
 * ```ts
 * const policy = createVersionPolicy({ strategy: 'header', versions: ['1', '2'] });
 * app.use(versioning(policy, { neutralPaths: ['/health'] }));
 * app.get('/projects', (req, res) => res.json({ version: getApiVersion(req) }));
 * app.use(errorHandler());
 * ```
 */
export function versioning(policy: VersionPolicy, options: VersioningOptions = {}): RequestHandler {
  const version = createVersioner(policy, options);
  return (req, res, next) => {
    const outcome = apply(version, req, res);
    next(outcome.kind === 'error' ? outcome.error : undefined);
  };
}
