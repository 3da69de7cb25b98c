import { HttpError, mergeVary } from '@plumbline/errors';
import type { Collection } from './collection.js';
import type { Page } from './page.js';
import { type ParseOptions, parseQuery, parseSearchBody } from './parse.js';
import type { CollectionQuery } from './query.js';

/**
 * The largest search body an adapter reads itself (when no body parser ran): 1 MiB.
 *
 * @example
 * ```ts
 * if (length > MAX_SEARCH_BODY_BYTES) throw new HttpError('payload_too_large');
 * ```
 */
export const MAX_SEARCH_BODY_BYTES = 1024 * 1024;

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/**
 * True when a `Prefer` header (RFC 7240) asks for `count=exact`.
 *
 * @example
 * ```ts
 * prefersCount('respond-async, count=exact'); // true
 * ```
 */
export function prefersCount(header: string | readonly string[] | undefined | null): boolean {
  if (header === undefined || header === null) return false;
  const text = typeof header === 'string' ? header : header.join(',');
  return text.split(',').some((pref) => {
    const token = (pref.split(';', 1)[0] ?? '').trim().toLowerCase().replaceAll('"', '');
    return token === 'count=exact';
  });
}

/**
 * Refuses a search body that is not JSON: 415 `unsupported_media_type` with
 * `Accept-Post: application/json`. Adapters call it before reading the body.
 *
 * @example
 * ```ts
 * assertSearchContentType(request.headers['content-type']); // throws on 'text/plain'
 * ```
 */
export function assertSearchContentType(type: string | undefined | null): void {
  if (typeof type === 'string' && JSON_TYPE.test(type)) return;
  throw new HttpError('unsupported_media_type', {
    params: { ...(typeof type === 'string' ? { type } : {}), supported: ['application/json'] },
    headers: { 'Accept-Post': 'application/json' },
  });
}

/**
 * Refuses a search body in a content coding (`Content-Encoding: gzip`, ...) with 415
 * `unsupported_media_type`: the adapters that read the body themselves read it as sent, so a coded
 * body would otherwise be parsed as if it were plain JSON (RFC 9110 section 8.4). A body parser that
 * ran before (express.json) has already decoded or refused it.
 *
 * @example
 * ```ts
 * assertIdentityCoding(undefined); // fine
 * assertIdentityCoding('gzip'); // throws 415 unsupported_media_type
 * ```
 */
export function assertIdentityCoding(coding: string | undefined): void {
  if (coding === undefined || coding.trim().toLowerCase() === 'identity' || coding.trim() === '') return;
  throw new HttpError('unsupported_media_type');
}

/**
 * Parses a search body an adapter read as text: 400 `malformed_json` when it is not JSON. An empty
 * body is `{}` (a search without criteria), as `express.json()` reads one, so every adapter
 * answers it alike.
 *
 * @example
 * ```ts
 * parseSearchText('{"sort":"-id"}'); // { sort: '-id' }
 * parseSearchText(''); // {}
 * ```
 */
export function parseSearchText(text: string): unknown {
  // No body at all is a search without criteria, as express.json reads an empty JSON body.
  if (text === '') return {};
  try {
    // A leading byte order mark is ignored, as express.json and TextDecoder do (RFC 8259 8.1).
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (cause) {
    throw new HttpError('malformed_json', { cause });
  }
}

/**
 * Reads a Web request body as UTF-8 text, refusing more than `limit` bytes (default 1 MiB) with
 * 413 `payload_too_large` while reading, so a large body is never buffered. `''` without a body.
 *
 * @example
 * ```ts
 * const body = parseSearchText(await readLimitedText(request.body));
 * ```
 */
export async function readLimitedText(
  body: ReadableStream<Uint8Array> | null | undefined,
  limit = MAX_SEARCH_BODY_BYTES,
): Promise<string> {
  const reader = body?.getReader();
  if (reader === undefined) return '';
  const decoder = new TextDecoder();
  let text = '';
  let size = 0;
  for (let step = await reader.read(); !step.done; step = await reader.read()) {
    size += step.value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw new HttpError('payload_too_large', { params: { limit } });
    }
    text += decoder.decode(step.value, { stream: true });
  }
  return text + decoder.decode();
}

/**
 * One collection request as an adapter sees it: the method, the raw query string, the `Prefer`
 * header, the parsed search body (for `POST`) and the server-side scope.
 *
 * @example
 * ```ts
 * const input: CollectionRequest = { method: 'GET', query: 'sort=-id', prefer: 'count=exact' };
 * ```
 */
export interface CollectionRequest {
  readonly method: string;
  /** The query string without `?`. */
  readonly query: string;
  readonly prefer?: string | readonly string[] | undefined | null;
  /** The parsed JSON body of a `POST` search. */
  readonly body?: unknown;
  readonly scope?: Readonly<Record<string, unknown>> | undefined;
}

/**
 * Parses a collection request the way every adapter does: a `POST` reads the search body, any
 * other method the raw query string; `Prefer: count=exact` asks for a total.
 *
 * @example
 * ```ts
 * const query = parseCollectionRequest(tasks, { method: 'GET', query: 'status=open' });
 * ```
 */
export function parseCollectionRequest<F extends string>(
  collection: Collection<F>,
  request: CollectionRequest,
): CollectionQuery<F> {
  if (request.method !== 'POST' && request.scope === undefined) {
    return parsedQueryString(collection as Collection, request.query, prefersCount(request.prefer)) as never;
  }
  const options: ParseOptions = {
    count: prefersCount(request.prefer),
    ...(request.scope !== undefined ? { scope: request.scope } : {}),
  };
  return request.method === 'POST'
    ? parseSearchBody(collection, request.body, options)
    : parseQuery(collection, request.query, options);
}

/** Recent query strings per collection and their parsed (deeply frozen) queries, one table per `count`. */
const parsedQueries = new WeakMap<Collection, readonly [plain: ParsedTable, counted: ParsedTable]>();
type ParsedTable = Map<string, CollectionQuery>;

/** At most this many parsed query strings are remembered per collection (and per `count`). */
export const PARSED_QUERY_CACHE_SIZE = 256;
/** Longer query strings are parsed every time, never remembered. */
export const PARSED_QUERY_CACHE_MAX_LENGTH = 1024;

/**
 * `parseQuery` for a request without a scope, remembering the result: a parsed query is frozen and
 * depends only on the collection, the query string and `count`, and a service sees the same few
 * query strings again and again. The tables are bounded (each starts over when full) because the
 * key comes from the client; failures are not remembered. The query string itself is the key (one
 * table per `count`), so a hit builds no string.
 */
function parsedQueryString(collection: Collection, query: string, count: boolean): CollectionQuery {
  if (query.length > PARSED_QUERY_CACHE_MAX_LENGTH) return parseQuery(collection, query, { count });
  let tables = parsedQueries.get(collection);
  if (tables === undefined) {
    tables = [new Map(), new Map()];
    parsedQueries.set(collection, tables);
  }
  const table = tables[count ? 1 : 0];
  let parsed = table.get(query);
  if (parsed === undefined) {
    parsed = parseQuery(collection, query, { count });
    if (table.size >= PARSED_QUERY_CACHE_SIZE) table.clear();
    table.set(query, parsed);
  }
  return parsed;
}

/**
 * The query string of a request target (`/tasks?x=1` → `x=1`).
 *
 * @example
 * ```ts
 * rawQueryOf('/v1/tasks?sort=-id'); // 'sort=-id'
 * ```
 */
export function rawQueryOf(url: string): string {
  const mark = url.indexOf('?');
  return mark < 0 ? '' : url.slice(mark + 1);
}

/**
 * A response header value as the frameworks report it (Node gives numbers and arrays).
 *
 * @example
 * ```ts
 * const vary: HeaderValue = res.getHeader('Vary');
 * ```
 */
export type HeaderValue = string | number | readonly string[] | null | undefined;

const text = (value: HeaderValue): string | undefined =>
  value === undefined || value === null
    ? undefined
    : typeof value === 'object'
      ? value.join(', ')
      : String(value);

/**
 * The response headers of a page, given the values already set: `Link` with the page relations
 * added to any earlier value (versioning's `rel="deprecation"`, say), `Vary` with `Prefer` added,
 * and `Preference-Applied: count=exact` when a requested total is in the page.
 *
 * @example
 * ```ts
 * const h = pageHeaders(page, query, { link: res.getHeader('Link'), vary: res.getHeader('Vary') });
 * ```
 */
export function pageHeaders(
  page: Page,
  query: CollectionQuery | undefined,
  existing: { readonly link?: HeaderValue; readonly vary?: HeaderValue } = {},
): { link?: string; vary: string; preferenceApplied?: string } {
  const out: { link?: string; vary: string; preferenceApplied?: string } = { vary: '' };
  const link = text(existing.link) ?? '';
  if (page.link !== '') out.link = link === '' ? page.link : `${link}, ${page.link}`;
  out.vary = mergeVary(text(existing.vary), 'Prefer');
  if (query?.count && page.body.page.total !== undefined) out.preferenceApplied = 'count=exact';
  return out;
}

/**
 * The query an adapter stored for a request, checked against the collection the handler expects:
 * throws (a wiring bug, so a 500) when none was stored or it was parsed for another collection.
 *
 * @example
 * ```ts
 * const query = expectCollectionQuery(c.get('collectionQuery'), tasks);
 * ```
 */
export function expectCollectionQuery<F extends string>(
  query: CollectionQuery | undefined,
  collection: Collection<F>,
): CollectionQuery<F> {
  if (query === undefined)
    throw new Error('getCollectionQuery: collectionQuery() did not run for this request');
  if (query.collection !== (collection as Collection)) {
    throw new Error('getCollectionQuery: the request was parsed for another collection');
  }
  return query as unknown as CollectionQuery<F>;
}
