/**
 * Hono adapter for @plumbline/versioning (Hono 4 on Node, Bun, Deno and Workers): the
 * `versioning()` middleware resolves the API version, sets the version headers on every response
 * (errors included) and types `c.var.apiVersion`. The core decides everything; nothing here needs
 * Node. @packageDocumentation
 */
import { mergeVary } from '@plumbline/errors';
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
  return async (c, next) => {
    const url = c.req.url;
    const mark = url.indexOf('?');
    const outcome = resolve({
      path: c.req.path,
      query: mark === -1 ? '' : url.slice(mark + 1),
      headers: header === undefined ? {} : { [header]: c.req.header(header) },
    });
    // Vary and Link are lists other middleware share: appended (no read of c.res, which would make
    // Hono build extra Responses), Vary de-duplicated on the final response.
    for (const [name, value] of Object.entries(outcome.headers)) {
      c.header(name, value, { append: name === 'Vary' || name === 'Link' });
    }
    if (outcome.kind === 'error') throw outcome.error;
    if (outcome.kind === 'resolved') c.set('apiVersion', outcome.resolved);
    await next();
    if (outcome.headers['Vary'] !== undefined) tidyVary(c);
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
