/**
 * The shape of a parsed collection query: its filters, pagination and the query itself. A module of
 * its own so that the parser, the page builder, the in-memory and SQL appliers all depend on it and
 * not on each other.
 */
import type { Collection, Operator, SortKey } from './collection.js';
import type { Scalar } from './values.js';

/**
 * One filter condition. `value` is an array only for `in`. All filters are AND-ed.
 *
 * @example
 * ```ts
 * const filter: Filter = { field: 'priority', op: 'gte', value: 2 };
 * ```
 */
export interface Filter<F extends string = string> {
  readonly field: F;
  readonly op: Operator;
  readonly value: Scalar | readonly Scalar[];
}

/**
 * The pagination of a query. `limit` and `offset` are always present for `offset` and `page`
 * (for `page`, `limit` = `size` and `offset` = `(page - 1) * size`), ready for SQL.
 *
 * @example
 * ```ts
 * const pagination: Pagination = { mode: 'page', page: 3, size: 10, limit: 10, offset: 20 };
 * ```
 */
export type Pagination =
  | { readonly mode: 'offset'; readonly limit: number; readonly offset: number }
  | {
      readonly mode: 'page';
      readonly page: number;
      readonly size: number;
      readonly limit: number;
      readonly offset: number;
    }
  | {
      readonly mode: 'cursor';
      readonly limit: number;
      /** The cursor as sent; `undefined` on the first page. */
      readonly cursor: string | undefined;
      /** The sort-key values the page starts after (verified); `undefined` on the first page. */
      readonly after: readonly Scalar[] | undefined;
    };

/**
 * A validated, frozen collection query. Apply it in this order: filters (and scope), search,
 * sort, pagination, field selection.
 *
 * @example
 * ```ts
 * const query: CollectionQuery<'id' | 'name'> = parseQuery(collection, 'sort=-name&limit=10');
 * query.sort; // [{ field: 'name', direction: 'desc' }, { field: 'id', direction: 'asc' }]
 * ```
 */
export interface CollectionQuery<F extends string = string> {
  /** The collection this query was parsed for (not enumerable). */
  readonly collection: Collection<F>;
  /** Client filters, ordered by field declaration then operator. */
  readonly filters: readonly Filter<F>[];
  /** Server-side equality filters (parent scope); never from the client, never in links. */
  readonly scope: readonly Filter<F>[];
  /** Trimmed, NFC-normalized search text, matched literally and case-insensitively. */
  readonly search: string | undefined;
  /** Sort keys; the last is always the unique id (the tie-breaker). */
  readonly sort: readonly SortKey<F>[];
  readonly pagination: Pagination;
  /** Selected fields (always including the id), or `undefined` for all selectable fields. */
  readonly fields: readonly F[] | undefined;
  /** Whether the response should carry `total`. */
  readonly count: boolean;
  /** Unknown parameters kept by `unknownParameters: 'passthrough'` (null-prototype object). */
  readonly extra: Readonly<Record<string, readonly string[]>>;
}
