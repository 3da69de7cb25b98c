import type { Collection, SortKey } from './collection.js';
import type { CollectionQuery, Filter } from './parse.js';
import { compareScalars, type FieldType, normalizeStored, type Scalar } from './values.js';

type Row = Readonly<Record<string, unknown>>;

/** A filter with its field type resolved once per query, not once per row. */
interface Check {
  readonly field: string;
  readonly type: FieldType;
  readonly filter: Filter;
}

/** A sort key with its field type and direction resolved once per query. */
interface KeyPlan {
  readonly field: string;
  readonly type: FieldType;
  readonly sign: 1 | -1;
}

function typeOf(collection: Collection, field: string): FieldType {
  return collection.fields.get(field)!.type;
}

function keyPlan(collection: Collection, sort: readonly SortKey[]): KeyPlan[] {
  return sort.map(({ field, direction }) => ({
    field,
    type: typeOf(collection, field),
    sign: direction === 'asc' ? 1 : -1,
  }));
}

function matches(row: Row, { field, type, filter }: Check): boolean {
  const value = normalizeStored(type, row[field]);
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
  plan: readonly KeyPlan[],
  a: readonly (Scalar | null)[],
  b: readonly (Scalar | null)[],
): number {
  for (let i = 0; i < plan.length; i++) {
    const key = plan[i]!;
    const order = compareScalars(key.type, a[i] ?? null, b[i] ?? null);
    if (order !== 0) return order * key.sign;
  }
  return 0;
}

function keysOf(plan: readonly KeyPlan[], row: Row): (Scalar | null)[] {
  const keys: (Scalar | null)[] = new Array(plan.length);
  for (let i = 0; i < plan.length; i++) keys[i] = normalizeStored(plan[i]!.type, row[plan[i]!.field]);
  return keys;
}

/** The sort-key values of a row, normalized (what a cursor carries). */
export function sortValues(collection: Collection, sort: readonly SortKey[], row: Row): (Scalar | null)[] {
  return keysOf(keyPlan(collection, sort), row);
}

function filtered<T extends Row>(query: CollectionQuery, rows: readonly T[]): T[] {
  const { collection } = query;
  const checks: Check[] = [...query.scope, ...query.filters].map((filter) => ({
    field: filter.field,
    type: typeOf(collection, filter.field),
    filter,
  }));
  const needle = query.search?.toLowerCase();
  if (checks.length === 0 && needle === undefined) return [...rows];
  return rows.filter((row) => {
    for (const check of checks) if (!matches(row, check)) return false;
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
  const plan = keyPlan(collection, sort);
  // Keys are normalized once per row, not once per comparison.
  let decorated = filtered(query, rows).map((row) => ({ row, keys: keysOf(plan, row) }));
  let skip = 0;
  if (pagination.mode === 'cursor') {
    const { after } = pagination;
    if (after !== undefined) {
      decorated = decorated.filter((d) => compareKeyLists(plan, d.keys, after) > 0);
    }
  } else skip = pagination.offset;
  const page = smallest(decorated, skip + pagination.limit + 1, (a, b) =>
    compareKeyLists(plan, a.keys, b.keys),
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
