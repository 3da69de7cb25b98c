/**
 * The canonical query string of a collection query, and the bounds of the page links written from
 * it (the parser refuses a query whose links would be too long; the page builder writes them).
 */
import type { Collection } from './collection.js';
import type { CollectionQuery, Pagination } from './query.js';
import type { Scalar } from './values.js';

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
export function linksOf(query: CollectionQuery): (pagination: Pagination) => string {
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
