/**
 * Fastify 5 adapter for @plumbline/query-parser. Thin: a `preHandler` hook reads the raw query
 * string (never Fastify's parsed `request.query`) or the parsed search body, calls the core and
 * puts the result on `request.collectionQuery`.
 *
 * @packageDocumentation
 */
import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { Collection } from './collection.js';
import type { Page } from './page.js';
import type { CollectionQuery } from './parse.js';
import { assertSearchContentType, pageHeaders, parseCollectionRequest, rawQueryOf } from './request.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The query `collectionQuery()` parsed for this route; `undefined` on other routes. */
    collectionQuery?: CollectionQuery;
  }
}

/**
 * Options for {@link collectionQuery}.
 *
 * @example
 * ```ts
 * const options: CollectionQueryOptions = {
 *   scope: (request) => ({ project_id: (request.params as { projectId: string }).projectId }),
 * };
 * ```
 */
export interface CollectionQueryOptions {
  /** Server-side equality filters for this request (a parent-scoped collection), AND-ed and cursor-bound. */
  readonly scope?: (request: FastifyRequest) => Readonly<Record<string, unknown>>;
}

/**
 * A `preHandler` hook that parses the collection query of a route into `request.collectionQuery`.
 * `GET` reads the raw query string; `POST` (for `/<collection>/search`) takes the body Fastify's
 * JSON parser produced and answers 415 `unsupported_media_type` to any other `Content-Type`.
 * Problems are thrown as one 400 `HttpError` for the `@plumbline/errors/fastify` error handler.
 *
 * @example
 * ```ts
 * app.get('/v1/tasks', { preHandler: collectionQuery(tasks) }, (request, reply) => {
 *   const query = getCollectionQuery(request, tasks);
 *   return sendPage(reply, buildPage(query, applyToArray(query, rows), { baseUrl: '/v1/tasks' }));
 * });
 * ```
 */
export function collectionQuery(
  collection: Collection,
  options: CollectionQueryOptions = {},
): preHandlerAsyncHookHandler {
  return async function collectionQueryHook(request) {
    if (request.method === 'POST') assertSearchContentType(request.headers['content-type']);
    request.collectionQuery = parseCollectionRequest(collection, {
      method: request.method,
      query: rawQueryOf(request.url),
      prefer: request.headers['prefer'],
      body: request.body,
      scope: options.scope?.(request),
    });
  };
}

/**
 * The query {@link collectionQuery} stored on the request, typed by the collection. Throws when
 * the hook did not run for this route or ran for another collection (a wiring bug, so a 500).
 *
 * @example
 * ```ts
 * const query = getCollectionQuery(request, tasks); // CollectionQuery<'id' | 'title' | ...>
 * ```
 */
export function getCollectionQuery<F extends string>(
  request: FastifyRequest,
  collection: Collection<F>,
): CollectionQuery<F> {
  const query = request.collectionQuery;
  if (query === undefined)
    throw new Error('getCollectionQuery: collectionQuery() did not run for this request');
  if (query.collection !== (collection as Collection)) {
    throw new Error('getCollectionQuery: the request was parsed for another collection');
  }
  return query as unknown as CollectionQuery<F>;
}

function text(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value.join(', ') : String(value);
}

/**
 * Sets the headers of a page built by `buildPage`: `Link` (added to any `Link` already set),
 * `Vary: Prefer`, and `Preference-Applied: count=exact` when a requested total is present.
 *
 * @example
 * ```ts
 * setPageHeaders(reply, page);
 * return reply.type('application/xml').send(toXml(page.body));
 * ```
 */
export function setPageHeaders(reply: FastifyReply, page: Page): void {
  const headers = pageHeaders(page, reply.request.collectionQuery, {
    link: text(reply.getHeader('link')),
    vary: text(reply.getHeader('vary')),
  });
  if (headers.link !== undefined) reply.header('Link', headers.link);
  reply.header('Vary', headers.vary);
  if (headers.preferenceApplied !== undefined) reply.header('Preference-Applied', headers.preferenceApplied);
}

/**
 * Sends a page built by `buildPage` as JSON, with the headers of {@link setPageHeaders}. Return
 * its result from an async handler.
 *
 * @example
 * ```ts
 * return sendPage(reply, buildPage(query, rows, { baseUrl: '/v1/tasks', total }));
 * ```
 */
export function sendPage(reply: FastifyReply, page: Page): FastifyReply {
  setPageHeaders(reply, page);
  return reply.type('application/json; charset=utf-8').send(page.body);
}
