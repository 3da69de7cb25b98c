/**
 * Hono adapter for @plumbline/query-parser: Web-standard middleware (Node, Bun, Deno, Workers).
 * Thin: it reads the raw query string or the search body, calls the core and stores the result
 * as the `collectionQuery` context variable.
 * @packageDocumentation
 */
import { plainResponse, requestHeader } from '@plumbline/errors/hono';
import type { Context, MiddlewareHandler } from 'hono';
import type { Collection } from './collection.js';
import type { Page } from './page.js';
import type { CollectionQuery } from './query.js';
import {
  assertIdentityCoding,
  assertSearchContentType,
  expectCollectionQuery,
  pageHeaders,
  parseCollectionRequest,
  parseSearchText,
  rawQueryOf,
  readLimitedText,
} from './request.js';

declare module 'hono' {
  interface ContextVariableMap {
    /** The query `collectionQuery()` parsed for this route. */
    collectionQuery: CollectionQuery;
  }
}

/**
 * Options for {@link collectionQuery}.
 * @example
 * ```ts
 * const options: CollectionQueryOptions = { scope: (c) => ({ project_id: c.req.param('projectId') }) };
 * ```
 */
export interface CollectionQueryOptions {
  /** Server-side equality filters for this request (a parent-scoped collection), AND-ed and cursor-bound. */
  readonly scope?: (c: Context) => Readonly<Record<string, unknown>>;
}

/**
 * Middleware that parses the collection query into `c.get('collectionQuery')`. `GET` reads the
 * raw query string; `POST` (for `/<collection>/search`) reads the JSON body (at most 1 MiB, or
 * as an earlier middleware read it through `c.req`) and
 * answers 415 `unsupported_media_type` to any other `Content-Type`. Problems are thrown as one
 * 400 `HttpError` for the `@plumbline/errors/hono` error handler.
 * @example
 * ```ts
 * app.get('/v1/tasks', collectionQuery(tasks), (c) => {
 *   const query = getCollectionQuery(c, tasks);
 *   return sendPage(c, buildPage(query, applyToArray(query, rows), { baseUrl: '/v1/tasks' }));
 * });
 * ```
 */
export function collectionQuery(
  collection: Collection,
  options: CollectionQueryOptions = {},
): MiddlewareHandler {
  const parse = (c: Context, body?: unknown) =>
    parseCollectionRequest(collection, {
      method: c.req.method,
      query: rawQueryOf(c.req.url),
      prefer: requestHeader(c, 'prefer'),
      body,
      scope: options.scope?.(c),
    });
  const search: MiddlewareHandler = async (c, next) => {
    assertSearchContentType(c.req.header('content-type'));
    // A body that middleware before this one read (a JSON parser, idempotency) is in Hono's body
    // cache and its stream is spent: read it from there, as the Express adapter reads `req.body`.
    if (!c.req.raw.bodyUsed) assertIdentityCoding(c.req.header('content-encoding'));
    const text = c.req.raw.bodyUsed ? await c.req.text() : await readLimitedText(c.req.raw.body);
    c.set('collectionQuery', parse(c, parseSearchText(text)));
    await next();
  };
  // Not async: a GET has nothing to wait for, so it hands Hono next()'s promise (a throw still
  // reaches onError, which catches what a middleware throws synchronously too).
  return (c, next) => {
    if (c.req.method === 'POST') return search(c, next);
    c.set('collectionQuery', parse(c));
    return next();
  };
}

/**
 * The query {@link collectionQuery} stored on the context, typed by the collection. Throws when
 * the middleware did not run for this request or ran for another collection (a wiring bug).
 * @example
 * ```ts
 * const query = getCollectionQuery(c, tasks); // CollectionQuery<'id' | 'title' | ...>
 * ```
 */
export function getCollectionQuery<F extends string>(
  c: Context,
  collection: Collection<F>,
): CollectionQuery<F> {
  return expectCollectionQuery(c.get('collectionQuery') as CollectionQuery | undefined, collection);
}

/**
 * Sets the headers of a page built by `buildPage`: `Link` (added to any `Link` already set),
 * `Vary: Prefer`, and `Preference-Applied: count=exact` when a requested total is present.
 * @example
 * ```ts
 * setPageHeaders(c, page);
 * return c.body(toXml(page.body), 200, { 'Content-Type': 'application/xml' });
 * ```
 */
export function setPageHeaders(c: Context, page: Page): void {
  applyPageHeaders(c, pageHeaders(page, c.get('collectionQuery') as CollectionQuery | undefined));
}

// Appended, not merged with what is set: reading `c.res` would make Hono build a Response early.
function applyPageHeaders(c: Context, headers: ReturnType<typeof pageHeaders>): void {
  if (headers.link !== undefined) c.header('Link', headers.link, { append: true });
  c.header('Vary', headers.vary, { append: true });
  if (headers.preferenceApplied !== undefined) c.header('Preference-Applied', headers.preferenceApplied);
}

/**
 * A JSON response of a page built by `buildPage`, with the headers of {@link setPageHeaders}.
 * @example
 * ```ts
 * return sendPage(c, buildPage(query, rows, { baseUrl: '/v1/tasks', total }));
 * ```
 */
export function sendPage(c: Context, page: Page): Response {
  const body = JSON.stringify(page.body);
  // On @hono/node-server, while Hono holds no header: one plain header object (see plainResponse).
  const headers = pageHeaders(page, c.get('collectionQuery') as CollectionQuery | undefined);
  const own: Record<string, string> = {
    'Content-Type': 'application/json; charset=utf-8',
    Vary: headers.vary,
  };
  if (headers.link !== undefined) own['Link'] = headers.link;
  if (headers.preferenceApplied !== undefined) own['Preference-Applied'] = headers.preferenceApplied;
  const plain = plainResponse(c, body, 200, own);
  if (plain !== undefined) return plain;
  applyPageHeaders(c, headers);
  c.header('Content-Type', 'application/json; charset=utf-8');
  return c.body(body);
}
