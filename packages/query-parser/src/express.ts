/**
 * Express adapter for @plumbline/query-parser (Express 4.21+ and 5). Thin: it reads the raw
 * query string (never `req.query`) or the search body, calls the core and stores the result.
 *
 * @packageDocumentation
 */
import { HttpError } from '@plumbline/errors';
import type { Request, RequestHandler, Response } from 'express';
import type { Collection } from './collection.js';
import type { Page } from './page.js';
import { type CollectionQuery, type ParseOptions, parseQuery, parseSearchBody } from './parse.js';

const QUERY = Symbol.for('@plumbline/query-parser.query');
const MAX_BODY_BYTES = 1024 * 1024;
const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/**
 * Options for {@link collectionQuery}.
 *
 * @example
 * ```ts
 * const options: CollectionQueryOptions = { scope: (req) => ({ project_id: req.params['projectId'] }) };
 * ```
 */
export interface CollectionQueryOptions {
  /** Server-side equality filters for this request (a parent-scoped collection), AND-ed and cursor-bound. */
  readonly scope?: (req: Request) => Readonly<Record<string, unknown>>;
}

/** True when a `Prefer` header (RFC 7240) asks for `count=exact`. */
function prefersCount(header: string | string[] | undefined): boolean {
  if (header === undefined) return false;
  const text = Array.isArray(header) ? header.join(',') : header;
  return text.split(',').some((pref) => {
    const token = (pref.split(';', 1)[0] ?? '').trim().toLowerCase().replaceAll('"', '');
    return token === 'count=exact';
  });
}

function rawQueryString(req: Request): string {
  const url = req.originalUrl ?? req.url ?? '';
  const mark = url.indexOf('?');
  return mark < 0 ? '' : url.slice(mark + 1);
}

// Used only when no body parser ran, so the middleware works on a bare app too.
function readJsonBody(req: Request): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.removeAllListeners('data');
        req.resume();
        reject(new HttpError('payload_too_large', { params: { limit: MAX_BODY_BYTES } }));
      } else chunks.push(chunk);
    });
    req.on('end', () => {
      if (size > MAX_BODY_BYTES) return;
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch (cause) {
        reject(new HttpError('malformed_json', { cause }));
      }
    });
    req.on('error', reject);
  });
}

/**
 * Middleware that parses the collection query of a request and stores it for
 * {@link getCollectionQuery}. `GET` (and `HEAD`) read the raw query string; `POST` (for
 * `/<collection>/search`) reads the JSON body (using `req.body` when a JSON parser ran, otherwise
 * reading at most 1 MiB itself) and answers 415 `unsupported_media_type` to a non-JSON body.
 * `Prefer: count=exact` asks for `total`. Every problem goes to `next(err)` as one 400.
 *
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
  return (req, _res, next) => {
    const run = async () => {
      const scope = options.scope?.(req);
      const parseOptions: ParseOptions = {
        count: prefersCount(req.headers['prefer']),
        ...(scope !== undefined ? { scope } : {}),
      };
      let query: CollectionQuery;
      if (req.method === 'POST') {
        const type = req.headers['content-type'];
        if (type === undefined || !JSON_TYPE.test(type)) {
          throw new HttpError('unsupported_media_type', {
            params: { ...(type !== undefined ? { type } : {}), supported: ['application/json'] },
            headers: { 'Accept-Post': 'application/json' },
          });
        }
        const body = req.body === undefined && req.readable ? await readJsonBody(req) : req.body;
        query = parseSearchBody(collection, body, parseOptions);
      } else {
        query = parseQuery(collection, rawQueryString(req), parseOptions);
      }
      (req as unknown as Record<symbol, unknown>)[QUERY] = query;
    };
    run().then(() => next(), next);
  };
}

/**
 * The query {@link collectionQuery} stored on the request, typed by the collection. Throws when
 * the middleware did not run for this request or ran for another collection (a wiring bug).
 *
 * @example
 * ```ts
 * const query = getCollectionQuery(req, tasks); // CollectionQuery<'id' | 'title' | ...>
 * ```
 */
export function getCollectionQuery<F extends string>(
  req: Request,
  collection: Collection<F>,
): CollectionQuery<F> {
  const query = (req as unknown as Record<symbol, CollectionQuery | undefined>)[QUERY];
  if (query === undefined)
    throw new Error('getCollectionQuery: collectionQuery() did not run for this request');
  if (query.collection !== (collection as Collection)) {
    throw new Error('getCollectionQuery: the request was parsed for another collection');
  }
  return query as unknown as CollectionQuery<F>;
}

// Keeps the Link values other middleware set (versioning's rel="deprecation", for example): one
// header, comma-separated, as RFC 8288 allows.
function appendLink(res: Response, link: string): void {
  const existing = res.getHeader('Link');
  const before = Array.isArray(existing)
    ? existing.join(', ')
    : existing === undefined
      ? ''
      : String(existing);
  res.setHeader('Link', before === '' ? link : `${before}, ${link}`);
}

/**
 * Sets the headers of a page built by `buildPage`: its `Link` relations (added to any `Link` already
 * set), `Vary: Prefer`, and `Preference-Applied: count=exact` when a requested total is present. For
 * services that send the body themselves (in another media type, or with their own representation).
 *
 * @example
 * ```ts
 * setPageHeaders(res, page);
 * represent(res, page.body); // @plumbline/negotiation: JSON or XML
 * ```
 */
export function setPageHeaders(res: Response, page: Page): void {
  if (page.link !== '') appendLink(res, page.link);
  res.vary('Prefer');
  const query = (res.req as unknown as Record<symbol, CollectionQuery | undefined>)[QUERY];
  if (query?.count && page.body.page.total !== undefined) res.setHeader('Preference-Applied', 'count=exact');
}

/**
 * Sends a page built by `buildPage` as JSON, with the headers of {@link setPageHeaders}.
 *
 * @example
 * ```ts
 * sendPage(res, buildPage(query, rows, { baseUrl: req.baseUrl + req.path, total }));
 * ```
 */
export function sendPage(res: Response, page: Page): void {
  setPageHeaders(res, page);
  res.json(page.body);
}
