/**
 * Hono adapter for @plumbline/versioning (Hono 4 on Node, Bun, Deno and Workers): the
 * `versioning()` middleware resolves the API version, sets the version headers on every response
 * (errors included) and types `c.var.apiVersion`. The core decides everything; nothing here needs
 * Node. @packageDocumentation
 */
import { mergeVary } from '@plumbline/errors';
import { requestHeader } from '@plumbline/errors/hono';
import type { Context, MiddlewareHandler } from 'hono';
import type { VersionPolicy } from './policy.js';
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
const APPEND = Object.freeze({ append: true });

function tidyVary(c: Context): void {
  const vary = c.res.headers.get('vary');
  if (vary === null) return;
  const tidy = mergeVary(undefined, vary);
  if (tidy === vary) return;
  try {
    c.res.headers.set('Vary', tidy);
  } catch {
    // Immutable headers (a Response from fetch()): the appended value stays as it is.
  }
}

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
  const readsQuery = policy.strategy === 'query';
  return (c, next) => {
    let query = '';
    if (readsQuery) {
      const url = c.req.url;
      const mark = url.indexOf('?');
      if (mark !== -1) query = url.slice(mark + 1);
    }
    const outcome = resolve({
      path: c.req.path,
      query,
      // On @hono/node-server read from Node's header table, not a Web Headers built for the request.
      headers: header === undefined ? NO_HEADERS : { [header]: requestHeader(c, header) },
    });
    // Vary and Link are lists other middleware share: appended (no read of c.res, which would make
    // Hono build extra Responses), Vary de-duplicated on the final response.
    const record = outcome.headers;
    for (const name in record) {
      if (name === 'Vary' || name === 'Link') c.header(name, record[name]!, APPEND);
      else c.header(name, record[name]!);
    }
    if (outcome.kind === 'error') throw outcome.error;
    if (outcome.kind === 'resolved') c.set('apiVersion', outcome.resolved);
    // No async frame of its own unless Vary needs tidying after the handler (a throw above still
    // reaches Hono's onError: compose calls this inside its try).
    if (record['Vary'] === undefined) return next();
    return next().then(() => tidyVary(c));
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
