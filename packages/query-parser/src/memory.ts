import type { Collection, SortKey } from './collection.js';
import type { CollectionQuery, Filter } from './parse.js';
import { compareScalars, normalizeStored, type Scalar } from './values.js';

type Row = Readonly<Record<string, unknown>>;

function cell(collection: Collection, row: Row, field: string): Scalar | null {
  return normalizeStored(collection.fields.get(field)!.type, row[field]);
}

function matches(collection: Collection, row: Row, filter: Filter): boolean {
  const type = collection.fields.get(filter.field)!.type;
  const value = cell(collection, row, filter.field);
  // SQL semantics: a NULL cell satisfies no comparison, not even `<>`.
  if (value === null) return false;
  if (filter.op === 'in') {
    return (filter.value as readonly Scalar[]).some((v) => compareScalars(type, value, v) === 0);
  }
  const order = compareScalars(type, value, filter.value as Scalar);
  switch (filter.op) {
    case 'eq':
      return order === 0;
    case 'ne':
      return order !== 0;
    case 'gt':
      return order > 0;
    case 'gte':
      return order >= 0;
    case 'lt':
      return order < 0;
    case 'lte':
      return order <= 0;
  }
}

function compareKeyLists(
  collection: Collection,
  sort: readonly SortKey[],
  a: readonly (Scalar | null)[],
  b: readonly (Scalar | null)[],
): number {
  for (let i = 0; i < sort.length; i++) {
    const { field, direction } = sort[i]!;
    const order = compareScalars(collection.fields.get(field)!.type, a[i] ?? null, b[i] ?? null);
    if (order !== 0) return direction === 'asc' ? order : -order;
  }
  return 0;
}

/** The sort-key values of a row, normalized (what a cursor carries). */
export function sortValues(collection: Collection, sort: readonly SortKey[], row: Row): (Scalar | null)[] {
  return sort.map((k) => cell(collection, row, k.field));
}

function filtered<T extends Row>(query: CollectionQuery, rows: readonly T[]): T[] {
  const { collection } = query;
  const conditions = [...query.scope, ...query.filters];
  const needle = query.search?.toLowerCase();
  return rows.filter((row) => {
    for (const condition of conditions) if (!matches(collection, row, condition)) return false;
    if (needle === undefined) return true;
    return collection.searchable.some((field) => {
      const value = row[field];
      return value !== null && value !== undefined && String(value).toLowerCase().includes(needle);
    });
  });
}

/**
 * Runs a query in memory, in the contract's order (scope and filters, search, sort, pagination)
 * and returns up to `limit + 1` rows: the extra row tells {@link buildPage} there is a next page.
 * Field selection happens in `buildPage`. Comparisons follow the SQL builder exactly (code-point
 * string order, `NULL` satisfies no filter and sorts last, literal case-insensitive search).
 *
 * @example
 * ```ts
 * const rows = applyToArray(query, allTasks);
 * const { body, link } = buildPage(query, rows, { baseUrl: '/v1/tasks', total: countInArray(query, allTasks) });
 * ```
 */
export function applyToArray<T extends Row>(query: CollectionQuery, rows: readonly T[]): T[] {
  const { collection, sort, pagination } = query;
  // Keys are normalized once per row, not once per comparison.
  let decorated = filtered(query, rows).map((row) => ({ row, keys: sortValues(collection, sort, row) }));
  let skip = 0;
  if (pagination.mode === 'cursor') {
    const { after } = pagination;
    if (after !== undefined) {
      decorated = decorated.filter((d) => compareKeyLists(collection, sort, d.keys, after) > 0);
    }
  } else skip = pagination.offset;
  const page = smallest(decorated, skip + pagination.limit + 1, (a, b) =>
    compareKeyLists(collection, sort, a.keys, b.keys),
  );
  return page.slice(skip).map((d) => d.row);
}

/**
 * The `k` smallest items in order. A page needs only `offset + limit + 1` rows, so a bounded
 * insertion buffer beats sorting the whole set when the set is much larger than the page.
 */
function smallest<T>(items: T[], k: number, compare: (a: T, b: T) => number): T[] {
  if (k * 8 >= items.length) return items.sort(compare).slice(0, k);
  const buffer: T[] = [];
  for (const item of items) {
    if (buffer.length === k) {
      if (compare(item, buffer[k - 1]!) >= 0) continue;
      buffer.pop();
    }
    let low = 0;
    let high = buffer.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (compare(buffer[mid]!, item) <= 0) low = mid + 1;
      else high = mid;
    }
    buffer.splice(low, 0, item);
  }
  return buffer;
}

/**
 * Counts the rows matching a query's scope, filters and search (the `total` of a page).
 *
 * @example
 * ```ts
 * countInArray(query, allTasks); // 42
 * ```
 */
export function countInArray(query: CollectionQuery, rows: readonly Row[]): number {
  return filtered(query, rows).length;
}
