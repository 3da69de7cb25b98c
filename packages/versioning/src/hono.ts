/**
 * Hono adapter for @plumbline/versioning (Hono 4 on Node, Bun, Deno and Workers): the
 * `versioning()` middleware resolves the API version, sets the version headers on every response
 * (errors included) and types `c.var.apiVersion`. The core decides everything; nothing here needs
 * Node. @packageDocumentation
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

/**
 * Resolves the API version once per request under the policy's strategy (the core's
 * `createRequestVersioning`), sets `c.var.apiVersion` and the version headers before the handler
 * runs, and throws the core's `HttpError` for a refused request (`problemDetails().onError` of
 * `@plumbline/errors/hono` renders it). With the path strategy, mount per-version apps with
 * `app.route('/v1', v1)`.
 * @example
 * ```ts
 * const policy = createVersionPolicy({ strategy: 'path', versions: [{ version: '1', deprecated: true }, '2'] });
 * app.use(versioning(policy));
 * app.route('/v1', v1).route('/v2', v2);
 * ```
 */
export function versioning(policy: VersionPolicy, options: VersioningOptions = {}): MiddlewareHandler {
  const resolve = createRequestVersioning(policy, options);
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
      setResponseHeaders(c, outcome.headers);
      throw outcome.error;
    }
    if (outcome.kind === 'resolved') c.set('apiVersion', outcome.resolved);
    // A throw above still reaches Hono's onError: compose calls this inside its try.
    return withResponseHeaders(c, outcome.headers, next);
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
