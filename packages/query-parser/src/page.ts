import type { Collection } from './collection.js';
import { encodeCursor } from './cursor.js';
import { sortValues } from './memory.js';
import type { CollectionQuery, Pagination } from './parse.js';
import { normalizeStored, type Scalar } from './values.js';

function encode(value: Scalar): string {
  return encodeURIComponent(String(value));
}

/**
 * The canonical `sort` value: `-created_at,name`, without the implied final `id` ascending
 * (kept when it is the only key and the collection's default sort is another one).
 */
function canonicalSort(query: CollectionQuery): string {
  const keys = [...query.sort];
  const last = keys[keys.length - 1];
  const implied = last !== undefined && last.field === query.collection.id && last.direction === 'asc';
  if (implied && (keys.length > 1 || query.collection.defaultSort.length === 0)) keys.pop();
  return keys.map((k) => (k.direction === 'desc' ? `-${k.field}` : k.field)).join(',');
}

function baseParts(query: CollectionQuery): string[] {
  const { collection } = query;
  const parts: string[] = [];
  for (const filter of query.filters) {
    if (filter.op === 'in') {
      const values = filter.value as readonly Scalar[];
      const field = collection.fields.get(filter.field)!;
      // An `in` made of repeats may hold commas, which only the repeated form can carry.
      if (field.operators.has('in') && !values.some((v) => String(v).includes(','))) {
        parts.push(`${filter.field}[in]=${values.map(encode).join(',')}`);
      } else for (const v of values) parts.push(`${filter.field}=${encode(v)}`);
    } else {
      const name = filter.op === 'eq' ? filter.field : `${filter.field}[${filter.op}]`;
      parts.push(`${name}=${encode(filter.value as Scalar)}`);
    }
  }
  if (query.search !== undefined) parts.push(`q=${encodeURIComponent(query.search)}`);
  const sort = canonicalSort(query);
  if (sort !== '') parts.push(`sort=${sort}`);
  return parts;
}

function tailParts(query: CollectionQuery): string[] {
  const parts: string[] = [];
  if (query.fields !== undefined) parts.push(`fields=${query.fields.join(',')}`);
  for (const [name, values] of Object.entries(query.extra)) {
    for (const value of values) parts.push(`${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
  }
  return parts;
}

function paginationParts(pagination: Pagination): string[] {
  switch (pagination.mode) {
    case 'offset':
      return [`limit=${pagination.limit}`, `offset=${pagination.offset}`];
    case 'page':
      return [`page=${pagination.page}`, `size=${pagination.size}`];
    case 'cursor':
      return pagination.cursor === undefined
        ? [`limit=${pagination.limit}`]
        : [`limit=${pagination.limit}`, `cursor=${pagination.cursor}`];
  }
}

function build(query: CollectionQuery, pagination: Pagination): string {
  return linksOf(query)(pagination);
}

/** The query string for any pagination of one query: its other parts are built once. */
function linksOf(query: CollectionQuery): (pagination: Pagination) => string {
  const base = baseParts(query).join('&');
  const tail = tailParts(query).join('&');
  return (pagination) => {
    const middle = paginationParts(pagination).join('&');
    return [base, middle, tail].filter((part) => part !== '').join('&');
  };
}

/**
 * The canonical query string of a query (no leading `?`): filters in declaration order, `q`,
 * `sort` in the `-created_at,name` form, pagination, `fields`, then passthrough parameters.
 * Parsing it again gives an equal query. Scope filters are server-side and never written.
 *
 * @example
 * ```ts
 * toQueryString(parseQuery(tasks, 'sort=created_at:desc&status=open')); // 'status=open&sort=-created_at&limit=20&offset=0'
 * ```
 */
export function toQueryString(query: CollectionQuery): string {
  return build(query, query.pagination);
}

/**
 * The pagination with the longest query string any page link of `query` can carry: the largest
 * offset (`maxOffset`) or page number its links may reach. A cursor page keeps its own: its `self`
 * link is the longest one that comes from the request (`first` has no cursor, and the cursor of
 * `next` is made from the last row, not from the request).
 */
function widestPagination(collection: Collection, pagination: Pagination): Pagination {
  switch (pagination.mode) {
    case 'offset':
      return { ...pagination, offset: collection.maxOffset };
    case 'page': {
      const page = Math.floor(collection.maxOffset / pagination.size) + 1;
      return { ...pagination, page, offset: (page - 1) * pagination.size };
    }
    case 'cursor':
      return pagination;
  }
}

/**
 * The length in bytes of the longest query string a page link of `query` can have ({@link buildPage}
 * writes it into `links` and `Link`), the `next` link of a cursor page aside: the canonical query
 * string with the largest offset or page number a link may reach. Canonical query strings are
 * ASCII (every value is percent-encoded), so characters are bytes.
 */
export function linkQueryLength(query: CollectionQuery): number {
  return build(query, widestPagination(query.collection, query.pagination)).length;
}

/**
 * At most how many bytes one value takes in a link: `encodeURIComponent` writes a UTF-16 code unit
 * as at most 9 bytes (`%XX%XX%XX`); `String(number)` has at most 24 characters, one of them a `+`
 * (`e+308`) written `%2B`; `false` has 5.
 */
function valueBound(value: Scalar): number {
  return typeof value === 'string' ? value.length * 9 : typeof value === 'number' ? 26 : 5;
}

/**
 * An upper bound of {@link linkQueryLength} from lengths alone, with nothing encoded or joined: the
 * parser builds the canonical query string to measure it only when this bound is over the limit,
 * so a query of ordinary size costs a few additions. Each part is counted with its `&`.
 */
export function linkQueryLengthBound(query: CollectionQuery): number {
  let bound = 0;
  for (const filter of query.filters) {
    // `field[op]=value&`, or for `in` each value as `field=value&` or `,value` after `field[in]=`.
    const name = filter.field.length + filter.op.length + 4;
    if (filter.op !== 'in') bound += name + valueBound(filter.value as Scalar);
    else for (const value of filter.value as readonly Scalar[]) bound += name + 1 + valueBound(value);
  }
  if (query.search !== undefined) bound += 3 + valueBound(query.search);
  bound += 6;
  for (const key of query.sort) bound += key.field.length + 2;
  // `limit=…&offset=…&`, `page=…&size=…&` or `limit=…&cursor=…&`: two integers of at most 16 digits.
  const { pagination } = query;
  bound += 48 + (pagination.mode === 'cursor' ? (pagination.cursor?.length ?? 0) : 0);
  if (query.fields !== undefined) {
    bound += 8;
    for (const field of query.fields) bound += field.length + 1;
  }
  for (const name in query.extra) {
    for (const value of query.extra[name]!) bound += valueBound(name) + valueBound(value) + 2;
  }
  return bound;
}

/**
 * Options for {@link buildPage}.
 *
 * @example
 * ```ts
 * const options: BuildPageOptions = { baseUrl: '/v1/projects/7/tasks', total: 42 };
 * ```
 */
export interface BuildPageOptions {
  /** The collection URL the links point to (absolute or a path), without a query string. */
  readonly baseUrl: string;
  /** Total matching rows (from `countText` or {@link countInArray}); a driver's numeric string is accepted. */
  readonly total?: number | string | bigint | undefined;
}

/**
 * The `page` member of a collection body.
 *
 * @example
 * ```ts
 * const meta: PageMeta = { limit: 20, offset: 40, has_more: true, total: 95 };
 * ```
 */
export interface PageMeta {
  readonly limit?: number;
  readonly offset?: number;
  readonly page?: number;
  readonly size?: number;
  readonly has_more: boolean;
  readonly next_cursor?: string;
  readonly total?: number;
}

/**
 * A collection response body ({@link https://github.com/plumbline/plumbline/blob/main/docs/design.md#d-pagination | design: pagination}).
 *
 * @example
 * ```ts
 * const body: CollectionBody = { data: [], page: { limit: 20, offset: 0, has_more: false }, links: { self: '/v1/tasks?limit=20&offset=0' } };
 * ```
 */
export interface CollectionBody<T = Record<string, unknown>> {
  readonly data: readonly T[];
  readonly page: PageMeta;
  readonly links: Readonly<Partial<Record<'self' | 'first' | 'prev' | 'next' | 'last', string>>>;
}

/**
 * What {@link buildPage} returns: the body and the RFC 8288 `Link` header value.
 *
 * @example
 * ```ts
 * const page: Page = buildPage(query, rows, { baseUrl: '/v1/tasks' });
 * ```
 */
export interface Page<T = Record<string, unknown>> {
  readonly body: CollectionBody<T>;
  /** `<url>; rel="self", <url>; rel="next", ...` (the same relations as `links`). */
  readonly link: string;
}

function cursorFor(collection: Collection, query: CollectionQuery, row: Record<string, unknown>) {
  // A cursor over a nullable sort key could not be continued (see parseQuery), so none is offered.
  if (query.sort.some((key) => collection.fields.get(key.field)!.nullable)) return undefined;
  const values = sortValues(collection, query.sort, row);
  if (values.some((v) => v === null)) return undefined;
  return encodeCursor(collection, query, values as Scalar[]);
}

/** Reduces rows to the selected fields; field types are looked up once per page, not per row. */
function projector(query: CollectionQuery): (row: Record<string, unknown>) => Record<string, unknown> {
  const { collection } = query;
  const fields = query.fields ?? collection.selectable;
  const types = fields.map((field) => collection.fields.get(field)!.type);
  return (row) => {
    const out: Record<string, unknown> = {};
    for (let i = 0; i < fields.length; i++) {
      const field = fields[i]!;
      if (Object.hasOwn(row, field)) {
        const value = row[field];
        const type = types[i]!;
        // Drivers hand back Dates, 0/1 and numeric strings; the body carries the declared type.
        out[field] =
          value === null || value === undefined || type === 'string' ? value : normalizeStored(type, value);
      }
    }
    return out;
  };
}

/**
 * Builds the collection body (`data`, `page`, `links`) and the `Link` header from up to
 * `limit + 1` rows (as {@link applyToArray} and {@link toSql} return them): the extra row only
 * sets `has_more`. Rows are reduced to the selected fields (or all selectable ones) here, the
 * last step of the pipeline. Links keep the client's filters, search, sort (canonical form) and
 * fields. `next_cursor` is given whenever there is a next page and cursors are enabled, so a
 * client can switch from offsets to a cursor; cursor pages link `self`, `first` and `next`.
 *
 * @example
 * ```ts
 * const { body, link } = buildPage(query, rows, { baseUrl: '/v1/tasks', total: 95 });
 * res.set('Link', link).json(body);
 * ```
 */
export function buildPage<T extends Record<string, unknown>>(
  query: CollectionQuery,
  rows: readonly T[],
  options: BuildPageOptions,
): Page {
  const { collection, pagination } = query;
  const hasMore = rows.length > pagination.limit;
  const pageRows = hasMore ? rows.slice(0, pagination.limit) : rows;
  const last = pageRows[pageRows.length - 1];
  const total = options.total === undefined ? undefined : Number(options.total);
  if (total !== undefined && !(Number.isSafeInteger(total) && total >= 0))
    throw new TypeError(`buildPage: total must be a non-negative integer, got ${String(options.total)}`);
  const nextCursor =
    hasMore && last !== undefined && collection.pagination.includes('cursor')
      ? cursorFor(collection, query, last)
      : undefined;
  if (pagination.mode === 'cursor' && hasMore && nextCursor === undefined) {
    throw new TypeError(
      'buildPage: a sort key of the last row is null; keyset pagination needs NOT NULL sort keys',
    );
  }
  const queryString = linksOf(query);
  const url = (p: Pagination) => `${options.baseUrl}?${queryString(p)}`;
  const links: Record<string, string> = { self: url(pagination) };
  const meta: Record<string, unknown> = {};
  if (pagination.mode === 'cursor') {
    meta['limit'] = pagination.limit;
    links['first'] = url({ ...pagination, cursor: undefined, after: undefined });
    if (nextCursor !== undefined)
      links['next'] = url({ ...pagination, cursor: nextCursor, after: undefined });
  } else if (pagination.mode === 'offset') {
    const { limit, offset } = pagination;
    Object.assign(meta, { limit, offset });
    links['first'] = url({ mode: 'offset', limit, offset: 0 });
    if (offset > 0) links['prev'] = url({ mode: 'offset', limit, offset: Math.max(0, offset - limit) });
    if (hasMore && offset + limit <= collection.maxOffset)
      links['next'] = url({ mode: 'offset', limit, offset: offset + limit });
    if (total !== undefined) {
      const lastOffset = Math.min(Math.max(0, Math.ceil(total / limit) - 1) * limit, collection.maxOffset);
      links['last'] = url({ mode: 'offset', limit, offset: lastOffset });
    }
  } else {
    const { page, size } = pagination;
    Object.assign(meta, { page, size });
    const at = (n: number) => url({ mode: 'page', page: n, size, limit: size, offset: (n - 1) * size });
    const maxPage = Math.floor(collection.maxOffset / size) + 1;
    links['first'] = at(1);
    if (page > 1) links['prev'] = at(page - 1);
    if (hasMore && page < maxPage) links['next'] = at(page + 1);
    if (total !== undefined) links['last'] = at(Math.min(Math.max(1, Math.ceil(total / size)), maxPage));
  }
  meta['has_more'] = hasMore;
  if (nextCursor !== undefined) meta['next_cursor'] = nextCursor;
  if (total !== undefined) meta['total'] = total;
  const link = (['self', 'first', 'prev', 'next', 'last'] as const)
    .filter((rel) => links[rel] !== undefined)
    .map((rel) => `<${links[rel]}>; rel="${rel}"`)
    .join(', ');
  return {
    body: { data: pageRows.map(projector(query)), page: meta as unknown as PageMeta, links },
    link,
  };
}
