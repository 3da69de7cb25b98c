/**
 * Fastify 5 adapter for @plumbline/query-parser: route hooks read the raw query string (never
 * `request.query`) or the search body, call the core and set `request.collectionQuery`.
 * @packageDocumentation
 */
import type { FastifyReply, FastifyRequest, onRequestHookHandler, preHandlerHookHandler } from 'fastify';
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
} from './request.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The query `collectionQuery()` parsed for this route; `undefined` on other routes. */
    collectionQuery?: CollectionQuery;
  }
}

/**
 * Options for {@link collectionQuery}.
 * @example
 * ```ts
 * const options: CollectionQueryOptions = { scope: (r) => ({ project_id: (r.params as { id: string }).id }) };
 * ```
 */
export interface CollectionQueryOptions {
  /** Server-side equality filters for this request (a parent-scoped collection), AND-ed and cursor-bound. */
  readonly scope?: (request: FastifyRequest) => Readonly<Record<string, unknown>>;
}

/**
 * The route hooks {@link collectionQuery} returns: pass them as the route options, or spread them.
 * @example
 * ```ts
 * app.get('/v1/tasks', { ...collectionQuery(tasks), schema: { tags: ['tasks'] } }, list);
 * ```
 */
export interface CollectionQueryHooks {
  readonly onRequest: onRequestHookHandler;
  readonly preHandler: preHandlerHookHandler;
}

const SEARCH_TYPE = Symbol('@plumbline/query-parser.searchType');

/**
 * Route hooks setting `request.collectionQuery`: `GET` parses the raw query string, `POST` (search)
 * a JSON body (415 `unsupported_media_type` otherwise, before Fastify reads it; Fastify's text
 * parser and `bodyLimit` read it, the core parses it as on every framework). Problems are thrown.
 * @example
 * ```ts
 * app.get('/v1/tasks', collectionQuery(tasks), (request, reply) => {
 *   const query = getCollectionQuery(request, tasks);
 *   return sendPage(reply, buildPage(query, applyToArray(query, rows), { baseUrl: '/v1/tasks' }));
 * });
 * app.post('/v1/tasks/search', collectionQuery(tasks), list);
 * ```
 */
export function collectionQuery(
  collection: Collection,
  options: CollectionQueryOptions = {},
): CollectionQueryHooks {
  return {
    onRequest: function searchContentType(request, _reply, done) {
      if (request.method !== 'POST') return done();
      const type = request.headers['content-type'];
      try {
        assertSearchContentType(type);
        assertIdentityCoding(request.headers['content-encoding']);
      } catch (error) {
        return done(error as Error);
      }
      (request as unknown as Record<symbol, unknown>)[SEARCH_TYPE] = type;
      request.headers['content-type'] = 'text/plain; charset=utf-8'; // so the JSON is read as text
      done();
    },
    preHandler: function collectionQueryHook(request, _reply, done) {
      try {
        let body: unknown;
        if (request.method === 'POST') {
          request.headers['content-type'] = (request as unknown as Record<symbol, string>)[SEARCH_TYPE];
          body = parseSearchText(typeof request.body === 'string' ? request.body : '');
        }
        request.collectionQuery = parseCollectionRequest(collection, {
          method: request.method,
          query: rawQueryOf(request.url),
          prefer: request.headers['prefer'],
          body,
          scope: options.scope?.(request),
        });
      } catch (error) {
        return done(error as Error);
      }
      done();
    },
  };
}

/**
 * The query {@link collectionQuery} stored on the request, typed by the collection. Throws when
 * the hook did not run for this route or ran for another collection (a wiring bug, so a 500).
 * @example
 * ```ts
 * const query = getCollectionQuery(request, tasks); // CollectionQuery<'id' | 'title' | ...>
 * ```
 */
export function getCollectionQuery<F extends string>(
  request: FastifyRequest,
  collection: Collection<F>,
): CollectionQuery<F> {
  return expectCollectionQuery(request.collectionQuery, collection);
}

/**
 * Sets the headers of a page built by `buildPage`: `Link` (added to any `Link` already set),
 * `Vary: Prefer`, and `Preference-Applied: count=exact` when a requested total is present.
 * @example
 * ```ts
 * setPageHeaders(reply, page);
 * return reply.type('application/xml').send(toXml(page.body));
 * ```
 */
export function setPageHeaders(reply: FastifyReply, page: Page): void {
  const headers = pageHeaders(page, reply.request.collectionQuery, {
    link: reply.getHeader('link'),
    vary: reply.getHeader('vary'),
  });
  if (headers.link !== undefined) reply.header('Link', headers.link);
  reply.header('Vary', headers.vary);
  if (headers.preferenceApplied !== undefined) reply.header('Preference-Applied', headers.preferenceApplied);
}

/**
 * Sends a page built by `buildPage` as JSON, with the headers of {@link setPageHeaders}. Return
 * its result from an async handler.
 * @example
 * ```ts
 * return sendPage(reply, buildPage(query, rows, { baseUrl: '/v1/tasks', total }));
 * ```
 */
export function sendPage(reply: FastifyReply, page: Page): FastifyReply {
  setPageHeaders(reply, page);
  return reply.type('application/json; charset=utf-8').send(page.body);
}
