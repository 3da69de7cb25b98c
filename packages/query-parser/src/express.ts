/**
 * Express adapter for @plumbline/query-parser (Express 4.21+ and 5): reads the raw query string
 * (never `req.query`) or the search body, calls the core and stores the result.
 * @packageDocumentation
 */
import { HttpError } from '@plumbline/errors';
import type { Request, RequestHandler, Response } from 'express';
import type { Collection } from './collection.js';
import type { Page } from './page.js';
import type { CollectionQuery } from './query.js';
import {
  assertIdentityCoding,
  assertSearchContentType,
  expectCollectionQuery,
  MAX_SEARCH_BODY_BYTES,
  pageHeaders,
  parseCollectionRequest,
  parseSearchText,
  rawQueryOf,
} from './request.js';

const QUERY = Symbol.for('@plumbline/query-parser.query');

/**
 * Options for {@link collectionQuery}.
 * @example
 * ```ts
 * const options: CollectionQueryOptions = { scope: (req) => ({ project_id: req.params['projectId'] }) };
 * ```
 */
export interface CollectionQueryOptions {
  /** Server-side equality filters for this request (a parent-scoped collection), AND-ed and cursor-bound. */
  readonly scope?: (req: Request) => Readonly<Record<string, unknown>>;
}

// Used only when no body parser ran, so the middleware works on a bare app too.
function readJsonBody(req: Request): Promise<unknown> {
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      // Over the limit: refused at once; the rest drains unread (a settled promise ignores 'end').
      if (size > MAX_SEARCH_BODY_BYTES)
        reject(new HttpError('payload_too_large', { params: { limit: MAX_SEARCH_BODY_BYTES } }));
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  }).then(parseSearchText);
}

/**
 * Middleware that parses the collection query for {@link getCollectionQuery}: `GET` reads the raw
 * query string, `POST` (`/<collection>/search`) the JSON body (`req.body`, or at most 1 MiB read
 * here; 415 `unsupported_media_type` when not JSON). Every problem goes to `next(err)` as one 400.
 * @example
 * ```ts
 * app.get('/v1/tasks', collectionQuery(tasks), (req, res) => {
 *   const query = getCollectionQuery(req, tasks);
 *   sendPage(res, buildPage(query, applyToArray(query, rows), { baseUrl: '/v1/tasks' }));
 * });
 * app.post('/v1/tasks/search', collectionQuery(tasks), listTasks);
 * ```
 */
export function collectionQuery(
  collection: Collection,
  options: CollectionQueryOptions = {},
): RequestHandler {
  const parse = (req: Request, body?: unknown) =>
    parseCollectionRequest(collection, {
      method: req.method,
      query: rawQueryOf(req.originalUrl ?? req.url ?? ''),
      prefer: req.headers['prefer'],
      body,
      scope: options.scope?.(req),
    });
  return (req, _res, next) => {
    if (req.method !== 'POST') {
      // No body to read: parsed at once, without a promise (a throw from `next` is not ours).
      let query: CollectionQuery;
      try {
        query = parse(req);
      } catch (error) {
        next(error);
        return;
      }
      (req as unknown as Record<symbol, unknown>)[QUERY] = query;
      next();
      return;
    }
    const run = async () => {
      assertSearchContentType(req.headers['content-type']);
      const unread = req.body === undefined && req.readable;
      if (unread) assertIdentityCoding(req.headers['content-encoding']);
      const body = unread ? await readJsonBody(req) : req.body;
      (req as unknown as Record<symbol, unknown>)[QUERY] = parse(req, body);
    };
    run().then(() => next(), next);
  };
}

/**
 * The query {@link collectionQuery} stored on the request, typed by the collection. Throws when
 * the middleware did not run for this request or ran for another collection (a wiring bug).
 * @example
 * ```ts
 * const query = getCollectionQuery(req, tasks); // CollectionQuery<'id' | 'title' | ...>
 * ```
 */
export function getCollectionQuery<F extends string>(
  req: Request,
  collection: Collection<F>,
): CollectionQuery<F> {
  return expectCollectionQuery(
    (req as unknown as Record<symbol, CollectionQuery | undefined>)[QUERY],
    collection,
  );
}

/**
 * Sets the headers of a page built by `buildPage` (`Link` added to any set before, `Vary: Prefer`,
 * `Preference-Applied`), for services that send the body themselves (in XML, say).
 * @example
 * ```ts
 * setPageHeaders(res, page);
 * represent(res, page.body); // @plumbline/negotiation: JSON or XML
 * ```
 */
export function setPageHeaders(res: Response, page: Page): void {
  const query = (res.req as unknown as Record<symbol, CollectionQuery | undefined>)[QUERY];
  const headers = pageHeaders(page, query, {
    link: res.getHeader('Link'),
    vary: res.getHeader('Vary'),
  });
  if (headers.link !== undefined) res.setHeader('Link', headers.link);
  res.setHeader('Vary', headers.vary);
  if (headers.preferenceApplied !== undefined) res.setHeader('Preference-Applied', headers.preferenceApplied);
}

/**
 * Sends a page built by `buildPage` as JSON, with the headers of {@link setPageHeaders}.
 * @example
 * ```ts
 * sendPage(res, buildPage(query, rows, { baseUrl: req.baseUrl + req.path, total }));
 * ```
 */
export function sendPage(res: Response, page: Page): void {
  setPageHeaders(res, page);
  res.json(page.body);
}
