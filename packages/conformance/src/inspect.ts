/**
 * Reading responses: JSON bodies, page items, next links, error fields, stack traces. Pure
 * functions over received responses, so each can be tested with a literal.
 */
import type { ReceivedResponse } from './http.js';
import { isObject, type JsonObject } from './openapi.js';

/**
 * The media type of a Content-Type value, lower-case, without parameters.
 *
 * @example
 * ```ts
 * mediaTypeOf('Application/JSON; charset=utf-8'); // 'application/json'
 * ```
 */
export function mediaTypeOf(contentType: string | null | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/**
 * True for `application/json` and `+json` types.
 *
 * @example
 * ```ts
 * isJsonType('application/problem+json'); // true
 * ```
 */
export function isJsonType(contentType: string | null | undefined): boolean {
  const type = mediaTypeOf(contentType);
  return type === 'application/json' || type.endsWith('+json');
}

/**
 * True for `application/xml`, `text/xml` and `+xml` types.
 *
 * @example
 * ```ts
 * isXmlType('application/problem+xml'); // true
 * ```
 */
export function isXmlType(contentType: string | null | undefined): boolean {
  const type = mediaTypeOf(contentType);
  return type === 'application/xml' || type === 'text/xml' || type.endsWith('+xml');
}

/**
 * The parsed body when it is JSON (by Content-Type or by shape), else `undefined`.
 *
 * @example
 * ```ts
 * jsonBody({ status: 200, headers: new Headers(), body: '{"a":1}' }); // { a: 1 }
 * ```
 */
export function jsonBody(response: ReceivedResponse): unknown {
  const type = response.headers.get('content-type');
  if (!isJsonType(type) && !(type === null && /^\s*[{[]/.test(response.body))) return undefined;
  try {
    return JSON.parse(response.body) as unknown;
  } catch {
    return undefined;
  }
}

const ITEM_KEYS = ['data', 'items', 'results', 'records', 'content', 'entries'];

/**
 * The items of a collection page: a top-level array, or the array under `data`, `items`,
 * `results`, ... (or the only array member).
 *
 * @example
 * ```ts
 * pageItems({ data: [{ id: 1 }], page: {} }); // [{ id: 1 }]
 * ```
 */
export function pageItems(json: unknown): unknown[] | undefined {
  if (Array.isArray(json)) return json;
  if (!isObject(json)) return undefined;
  for (const key of ITEM_KEYS) {
    const value = json[key];
    if (Array.isArray(value)) return value;
  }
  const arrays = Object.values(json).filter(Array.isArray);
  return arrays.length === 1 ? arrays[0] : undefined;
}

/** Members that hold a page's metadata: the body itself, or one of these objects in it. */
const META_CONTAINERS = [
  'page',
  'meta',
  'pagination',
  'paging',
  'page_info',
  'pageInfo',
  'response_metadata',
];
/** Body members that carry the token for the next page, by how common they are. */
const TOKEN_KEYS = [
  'nextCursor',
  'next_cursor',
  'cursor',
  'endCursor',
  'continuationToken',
  'continuation_token',
  'nextPageToken',
  'next_page_token',
  'nextToken',
  'next_token',
];
/** Body members that say whether another page follows. */
const MORE_KEYS = ['hasNextPage', 'has_next_page', 'hasMore', 'has_more', 'more'];
/** Body members that give the total number of items. */
const TOTAL_KEYS = [
  'total',
  'totalCount',
  'total_count',
  'totalItems',
  'total_items',
  'totalResults',
  'total_results',
  'count',
];
/** Query parameters that take a next-page token, in the order they are preferred when documented. */
const TOKEN_PARAMS = [
  'cursor',
  'page_token',
  'pageToken',
  'continuationToken',
  'continuation_token',
  'next_page_token',
  'nextPageToken',
  'after',
  'starting_after',
];

/**
 * What a collection page says about its pagination, from the `Link` header and the body (the body
 * itself or its `page`, `meta`, `pagination`, `paging`, `page_info` or `response_metadata` member).
 *
 * @example
 * ```ts
 * pageMetadata(new Headers(), { data: [], meta: { nextCursor: 'abc', total: 9 } });
 * // { recognised: true, token: { key: 'nextCursor', value: 'abc' }, total: 9, unrecognised: [] }
 * ```
 */
export interface PageMetadata {
  /** The next-page link (`Link rel="next"`, `links.next`, `_links.next.href` or `next`). */
  readonly next?: string;
  /** A token for the next page (`nextCursor`, `continuationToken`, `next_page_token`, ...). */
  readonly token?: { readonly key: string; readonly value: string };
  /** Whether another page follows (`hasNextPage`, `hasMore`, `has_more`, ...). */
  readonly hasMore?: boolean;
  /** The total number of items (`total`, `totalCount`, `total_count`, ...). */
  readonly total?: number;
  /** True when the page has a member the probe knows as page metadata (even `null`: the last page). */
  readonly recognised: boolean;
  /** Body members besides the items that the probe does not recognise as page metadata. */
  readonly unrecognised: readonly string[];
}

/** Every member name the probe reads as page metadata. */
const KNOWN_KEYS = new Set([
  ...META_CONTAINERS,
  ...TOKEN_KEYS,
  ...MORE_KEYS,
  ...TOTAL_KEYS,
  'links',
  '_links',
  'next',
  'prev',
  'previous',
]);

function containers(json: JsonObject): JsonObject[] {
  const nested = META_CONTAINERS.map((key) => json[key]).filter(isObject);
  return [json, ...nested, ...nested.map((inner) => inner['pagination']).filter(isObject)];
}

/**
 * Reads the pagination metadata of a page (see {@link PageMetadata}).
 *
 * @example
 * ```ts
 * pageMetadata(new Headers({ link: '</p?offset=1>; rel="next"' }), []).next; // '/p?offset=1'
 * ```
 */
export function pageMetadata(headers: Headers, json: unknown): PageMetadata {
  const fromHeader = parseLinkHeader(headers.get('link')).get('next');
  if (!isObject(json))
    return {
      recognised: fromHeader !== undefined,
      ...(fromHeader === undefined ? {} : { next: fromHeader }),
      unrecognised: [],
    };
  const links = isObject(json['links'])
    ? json['links']
    : isObject(json['_links'])
      ? json['_links']
      : undefined;
  let next = fromHeader ?? linkValue(links?.['next']);
  let token: PageMetadata['token'];
  let hasMore: boolean | undefined;
  let total: number | undefined;
  for (const container of containers(json)) {
    next ??= linkValue(container['next']);
    for (const key of TOKEN_KEYS) {
      const value = container[key];
      if (token === undefined && typeof value === 'string' && value !== '') token = { key, value };
    }
    for (const key of MORE_KEYS)
      if (hasMore === undefined && typeof container[key] === 'boolean') hasMore = container[key] as boolean;
    for (const key of TOTAL_KEYS)
      if (total === undefined && typeof container[key] === 'number') total = container[key] as number;
  }
  const items = pageItems(json);
  const unrecognised = Object.keys(json).filter((key) => json[key] !== items && !KNOWN_KEYS.has(key));
  return {
    recognised:
      fromHeader !== undefined ||
      containers(json).some((container) => Object.keys(container).some((key) => KNOWN_KEYS.has(key))),
    ...(next === undefined ? {} : { next }),
    ...(token === undefined ? {} : { token }),
    ...(hasMore === undefined ? {} : { hasMore }),
    ...(total === undefined ? {} : { total }),
    unrecognised,
  };
}

/**
 * True when the page describes its pagination in a shape the probe recognises: an RFC 8288 `Link`
 * header with a relation, a next link, a next-page token, a has-more flag, a total, or a
 * `page`/`meta`/`pagination`/`links` member.
 *
 * @example
 * ```ts
 * hasPaginationMetadata(new Headers(), { items: [], hasNextPage: false }); // true
 * ```
 */
export function hasPaginationMetadata(headers: Headers, json: unknown): boolean {
  if (/rel\s*=/i.test(headers.get('link') ?? '')) return true;
  return isObject(json) && pageMetadata(headers, json).recognised;
}

/**
 * Parses an RFC 8288 Link header into relation → target.
 *
 * @example
 * ```ts
 * parseLinkHeader('</p?offset=2>; rel="next", </p?offset=0>; rel="first prev"').get('prev'); // '/p?offset=0'
 * ```
 */
export function parseLinkHeader(value: string | null): Map<string, string> {
  const links = new Map<string, string>();
  if (value === null) return links;
  for (const match of value.matchAll(/<([^>]*)>([^,<]*)/g)) {
    const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i.exec(match[2] ?? '');
    const names = (rel?.[1] ?? rel?.[2] ?? '').toLowerCase().split(/\s+/);
    for (const name of names) if (name !== '' && !links.has(name)) links.set(name, match[1] ?? '');
  }
  return links;
}

function linkValue(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return value;
  if (isObject(value) && typeof value['href'] === 'string') return value['href'];
  return undefined;
}

/**
 * Where the next page is: `Link rel="next"`, `links.next`, `_links.next.href`, `next`; else a
 * next-page token (`nextCursor`, `continuationToken`, `next_page_token`, ...) sent in the query
 * parameter the collection documents for it (`query`, e.g. `page_token`; default `cursor`); else,
 * when the page says more follow (`hasNextPage`, `hasMore`) or its total is beyond it, the
 * following `offset` or `page` of the current URL.
 *
 * @example
 * ```ts
 * nextLink(new Headers(), { links: { next: '/v2/projects?offset=1&limit=1' } }, new URL('http://h/v2/projects'));
 * // '/v2/projects?offset=1&limit=1'
 * ```
 */
export function nextLink(
  headers: Headers,
  json: unknown,
  current: URL,
  query: readonly string[] = [],
): string | undefined {
  const meta = pageMetadata(headers, json);
  if (meta.next !== undefined) return meta.next;
  const url = new URL(current);
  if (meta.token !== undefined) {
    const param = TOKEN_PARAMS.find((name) => query.includes(name)) ?? 'cursor';
    url.searchParams.set(param, meta.token.value);
    url.searchParams.delete('offset');
    url.searchParams.delete('page');
    return `${url.pathname}${url.search}`;
  }
  if (pageHasMore(json) !== true) return undefined;
  const page = Number(url.searchParams.get('page'));
  if (url.searchParams.has('page') && Number.isInteger(page)) url.searchParams.set('page', String(page + 1));
  else {
    const offset = Number(url.searchParams.get('offset') ?? 0);
    url.searchParams.set(
      'offset',
      String((Number.isFinite(offset) ? offset : 0) + (pageItems(json)?.length ?? 0)),
    );
  }
  return `${url.pathname}${url.search}`;
}

/**
 * Whether the page says more items follow (`hasNextPage`, `hasMore`, `has_more`, ..., or a total
 * beyond the page), if it says.
 *
 * @example
 * ```ts
 * pageHasMore({ page: { has_more: false } }); // false
 * ```
 */
export function pageHasMore(json: unknown): boolean | undefined {
  if (!isObject(json)) return undefined;
  const meta = pageMetadata(new Headers(), json);
  if (meta.hasMore !== undefined) return meta.hasMore;
  const items = pageItems(json);
  if (meta.total !== undefined && items !== undefined) return meta.total > items.length;
  return undefined;
}

/**
 * `error_code` and `message` of an error body (JSON or XML), when present as strings.
 *
 * @example
 * ```ts
 * errorFields({ status: 400, headers: new Headers({ 'content-type': 'application/json' }), body: '{"error_code":"x","message":"y"}' });
 * // { errorCode: 'x', message: 'y' }
 * ```
 */
export function errorFields(response: ReceivedResponse): { errorCode?: string; message?: string } {
  const type = response.headers.get('content-type');
  if (isXmlType(type)) {
    const code = /<error_code>([^<]*)<\/error_code>/.exec(response.body)?.[1];
    const message = /<message>([^<]*)<\/message>/.exec(response.body)?.[1];
    return { ...(code ? { errorCode: code } : {}), ...(message ? { message } : {}) };
  }
  const json = jsonBody(response);
  if (!isObject(json)) return {};
  const code = json['error_code'];
  const message = json['message'];
  return {
    ...(typeof code === 'string' && code !== '' ? { errorCode: code } : {}),
    ...(typeof message === 'string' && message !== '' ? { message } : {}),
  };
}

/**
 * Why a 2xx body looks like a failure (`error`, `error_code`, `errors`, `success: false`,
 * `status: "error"`), or `undefined`. Objects with an `id` member are resources and never match.
 *
 * @example
 * ```ts
 * errorMarker({ error: 'unknown sort field' }); // 'member "error"'
 * ```
 */
export function errorMarker(json: unknown): string | undefined {
  // A body with an `id` is a resource (a job may well have a `status: "failed"`), not an error.
  if (!isObject(json) || 'id' in json) return undefined;
  for (const key of ['error', 'error_code', 'errorCode', 'exception']) {
    if (json[key] !== undefined && json[key] !== null && json[key] !== false) return `member "${key}"`;
  }
  if (Array.isArray(json['errors']) && json['errors'].length > 0) return 'non-empty "errors"';
  if (json['success'] === false || json['ok'] === false) return '"success": false';
  if (typeof json['status'] === 'string' && /^(error|fail(ed|ure)?)$/i.test(json['status']))
    return `"status": "${json['status']}"`;
  return undefined;
}

const STACK_PATTERNS: readonly [RegExp, string][] = [
  [
    /\bat (?:async )?[\w$.<>[\] ]*\(?(?:file:\/\/|\/|[A-Za-z]:\\|node:)[^\s)]*:\d+:\d+\)?/,
    'a JavaScript stack frame',
  ],
  [/Traceback \(most recent call last\)/, 'a Python traceback'],
  [/\bat [\w$.]+\([\w$]+\.(?:java|kt|scala):\d+\)/, 'a JVM stack frame'],
  [/\.(?:php|rb|py|go|cs):\d+\b/, 'a source file with a line number'],
  [/node_modules[\\/]/, 'a node_modules path'],
  [/"stack"\s*:\s*"/, 'a "stack" member'],
  [/SQLSTATE|syntax error at or near|ORA-\d{5}|SQLITE_[A-Z]+/, 'a database driver message'],
];

/**
 * What in a body looks like a leaked stack trace or driver message, or `undefined`.
 *
 * @example
 * ```ts
 * stackTraceIn('Error: boom\n    at handler (/srv/app.js:10:5)'); // 'a JavaScript stack frame'
 * ```
 */
export function stackTraceIn(body: string): string | undefined {
  for (const [pattern, what] of STACK_PATTERNS) if (pattern.test(body)) return what;
  return undefined;
}

const IMF_FIXDATE =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/**
 * True for an RFC 9110 IMF-fixdate (the form `Sunset` uses).
 *
 * @example
 * ```ts
 * isHttpDate('Thu, 31 Dec 2026 23:59:59 GMT'); // true
 * ```
 */
export function isHttpDate(value: string): boolean {
  return IMF_FIXDATE.test(value) && !Number.isNaN(Date.parse(value));
}

/**
 * True for a `Deprecation` value: `true` (docs/conventions.md 9 (5)) or `@<unix seconds>` (RFC 9745).
 *
 * @example
 * ```ts
 * isDeprecationValue('@1767225600'); // true
 * ```
 */
export function isDeprecationValue(value: string): boolean {
  return /^(true|@-?\d+)$/.test(value.trim());
}
