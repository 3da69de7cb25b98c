/**
 * Hono adapter for @plumbline/versioning (Hono 4 on Node, Bun, Deno and Workers): the
 * `versioning()` middleware resolves the API version, sets the version headers on every response
 * (errors included) and types `c.var.apiVersion`; with `refuse: false` it only sets the headers and
 * `refuseVersion()` answers a refused version where the app places it. The core decides
 * everything; nothing here needs Node. @packageDocumentation
 */
import { requestHeader, requestPath, setResponseHeaders, withResponseHeaders } from '@plumbline/errors/hono';
import type { Context, MiddlewareHandler } from 'hono';
import { internals, type VersionPolicy } from './policy.js';
import { createRequestVersioning, type VersioningOptions } from './request.js';
import type { ResolvedVersion } from './resolve.js';

export type { VersioningOptions };

declare module 'hono' {
  interface ContextVariableMap {
    /** Set by `versioning()` of `@plumbline/versioning/hono`; absent on version-neutral routes. */
    apiVersion: ResolvedVersion;
  }
}

const NO_HEADERS = Object.freeze({});

// The refusal a `refuse: false` versioning() kept for the request, on its Context. A registered
// symbol, so the ESM and CommonJS builds of this file (both loaded in one process) share it.
const REFUSED = Symbol.for('@plumbline/versioning.refused');
type Carrier = { [REFUSED]?: unknown };

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
   * sunset) by throwing the core's `HttpError`. Default `true`. With `false` it sets the version
   * headers of the refused request and goes on (`next()`), the refusal kept for the request, so
   * every answer before the refusal (a neutral route, a 401, a 429) carries the headers; place
   * {@link refuseVersion} where the app refuses (behind its version-neutral routes, in front of the
   * versioned ones).
   * @example
   * ```ts
   * app.use(versioning(policy, { refuse: false }));
   * app.get('/health', (c) => c.json({ ok: true }));
   * app.use(refuseVersion());
   * ```
   */
  readonly refuse?: boolean;
}

/**
 * Resolves the API version once per request under the policy's strategy (the core's
 * `createRequestVersioning`), sets `c.var.apiVersion` and the version headers before the handler
 * runs, and throws the core's `HttpError` for a refused request (`problemDetails().onError` of
 * `@plumbline/errors/hono` renders it). With `{ refuse: false }` a refused request gets its
 * headers and goes on, and {@link refuseVersion} throws the refusal later. With the path strategy,
 * mount per-version apps with `app.route('/v1', v1)`.
 * @example
 * ```ts
 * const policy = createVersionPolicy({ strategy: 'path', versions: [{ version: '1', deprecated: true }, '2'] });
 * app.use(versioning(policy));
 * app.route('/v1', v1).route('/v2', v2);
 * ```
 */
export function versioning(
  policy: VersionPolicy,
  options: VersioningMiddlewareOptions = {},
): MiddlewareHandler {
  const resolve = createRequestVersioning(policy, options);
  const refuse = options.refuse ?? true;
  // Only the one header the strategy reads is copied out of the request (`vary` names it).
  const header = policy.vary?.toLowerCase();
  // A pinnedVersion may read any header (a client id, an API key), so it gets them all.
  const allHeaders = internals(policy).pinned !== undefined;
  const readsQuery = policy.strategy === 'query';
  return (c, next) => {
    let query = '';
    if (readsQuery) {
      const url = c.req.url;
      const mark = url.indexOf('?');
      if (mark !== -1) query = url.slice(mark + 1);
    }
    const outcome = resolve({
      path: requestPath(c),
      query,
      // On @hono/node-server read from Node's header table, not a Web Headers built for the request.
      headers: allHeaders
        ? c.req.header()
        : header === undefined
          ? NO_HEADERS
          : { [header]: requestHeader(c, header) },
      context: c,
    });
    // Where these go (Node's response on @hono/node-server, so c.json() keeps the server's fast
    // path) is decided by @plumbline/errors/hono; Vary and Link are merged with other middleware's.
    if (outcome.kind === 'error') {
      if (refuse) {
        setResponseHeaders(c, outcome.headers);
        throw outcome.error;
      }
      // Kept for refuseVersion(); the request goes on with the refusal's headers, merged with the
      // later answer's Vary as a resolved request's are.
      (c as Carrier)[REFUSED] = outcome.error;
    } else if (outcome.kind === 'resolved') c.set('apiVersion', outcome.resolved);
    // A throw above still reaches Hono's onError: compose calls this inside its try.
    return withResponseHeaders(c, outcome.headers, next);
  };
}

/**
 * Answers the refused version that {@link versioning} with `{ refuse: false }` kept for this
 * request: throws its `HttpError` (400 `unsupported_api_version`, `invalid_api_version` or
 * `ambiguous_api_version`, 404 under the path strategy, 406 under the media-type strategy, 410
 * `api_version_sunset`), which `problemDetails().onError` renders with the version headers
 * `versioning()` set; every other request goes on (`next()`), as does every request when no
 * `versioning()` kept a refusal. Place it behind the version-neutral routes and in front of the
 * versioned ones: `app.use(refuseVersion())` there also refuses the requests no route matches.
 * @example
 * ```ts
 * app.use(versioning(policy, { refuse: false })); // the version headers on every answer
 * app.get('/health', (c) => c.json({ ok: true })); // answers whatever the version says
 * app.use(authenticate({ jwt })); // its 401, before the refusal, carries the version headers
 * app.use(refuseVersion()); // from here on, a refused version is refused
 * app.get('/projects', (c) => c.json(projects()));
 * ```
 */
export function refuseVersion(): MiddlewareHandler {
  return (c, next) => {
    const refused = (c as Carrier)[REFUSED];
    if (refused !== undefined) throw refused;
    return next();
  };
}

/**
 * The API version resolved for this request, or `undefined` on version-neutral routes.
 * @example
 * ```ts
 * app.get('/projects', (c) => c.json(getApiVersion(c) === '1' ? legacy() : current()));
 * ```
 */
export function getApiVersion(c: Context): string | undefined {
  return c.get('apiVersion')?.version;
}

/**
 * Everything resolved for this request (`version`, `requested`, `defaulted`, `matchedPath`).
 * @example
 * ```ts
 * if (getResolvedVersion(c)?.defaulted) console.info('client sent no version');
 * ```
 */
export function getResolvedVersion(c: Context): ResolvedVersion | undefined {
  return c.get('apiVersion');
}
