import type { Collection } from './collection.js';
import { encodeCursor } from './cursor.js';
import { sortValues } from './memory.js';
import type { CollectionQuery, Pagination } from './query.js';
import { linksOf } from './query-string.js';
import { normalizeStored, type Scalar } from './values.js';

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
