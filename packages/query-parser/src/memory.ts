import type { Collection, SortKey } from './collection.js';
import type { CollectionQuery, Filter } from './query.js';
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

function keysOf(plan: readonly KeyPlan[], row: Row): (Scalar | null)[] {
  const keys: (Scalar | null)[] = new Array(plan.length);
  for (let i = 0; i < plan.length; i++) keys[i] = normalizeStored(plan[i]!.type, row[plan[i]!.field]);
  return keys;
}

type Compare = (a: number, b: number) => number;

/**
 * One sort key as a column: its normalized value for every row, computed once, and a comparison of
 * two row indexes by that key with its direction applied. The comparison is chosen by field type,
 * so the sort's hot loop makes one monomorphic call per key: normalized numbers subtract, ASCII
 * values (uuid, date) compare with the engine's own `<`, anything else (date-time included) takes
 * `compareScalars`. The order is exactly `compareScalars`'s, times the direction.
 */
function keyColumn({ field, type, sign }: KeyPlan, rows: readonly Row[]) {
  const column: (Scalar | null)[] = new Array(rows.length);
  for (let i = 0; i < rows.length; i++) column[i] = normalizeStored(type, rows[i]![field]);
  const order = (x: Scalar | null, y: Scalar | null): number => compareScalars(type, x, y) * sign;
  let compare: Compare;
  if (type === 'int' || type === 'number') {
    compare = (a, b) => {
      const x = column[a]!;
      const y = column[b]!;
      return typeof x === 'number' && typeof y === 'number' ? (x - y) * sign : order(x, y);
    };
  } else if (type === 'uuid' || type === 'date') {
    compare = (a, b) => {
      const x = column[a]!;
      const y = column[b]!;
      if (typeof x !== 'string' || typeof y !== 'string') return order(x, y);
      return x < y ? -sign : x > y ? sign : 0;
    };
  } else compare = (a, b) => order(column[a]!, column[b]!);
  return { compare, compareTo: (a: number, after: Scalar | null) => order(column[a]!, after) };
}

/**
 * A sort plan as columns, and a comparison of two row indexes (ties go to the earlier row:
 * `Array.prototype.sort` is stable). One and two keys (a sort and its id tie-breaker, the common
 * case) are composed directly, without a loop over the keys.
 */
function columnsOf(plan: readonly KeyPlan[], rows: readonly Row[]) {
  const keys = plan.map((key) => keyColumn(key, rows));
  let compare: Compare;
  if (keys.length === 0) compare = () => 0;
  else if (keys.length === 1) compare = keys[0]!.compare;
  else if (keys.length === 2) {
    const first = keys[0]!.compare;
    const second = keys[1]!.compare;
    compare = (a, b) => first(a, b) || second(a, b);
  } else {
    const compares = keys.map((key) => key.compare);
    compare = (a, b) => {
      for (let k = 0; k < compares.length; k++) {
        const order = compares[k]!(a, b);
        if (order !== 0) return order;
      }
      return 0;
    };
  }
  const compareTo = (a: number, after: readonly (Scalar | null)[]): number => {
    for (let k = 0; k < keys.length; k++) {
      const order = keys[k]!.compareTo(a, after[k] ?? null);
      if (order !== 0) return order;
    }
    return 0;
  };
  return { compare, compareTo };
}

/** The sort-key values of a row, normalized (what a cursor carries). */
export function sortValues(collection: Collection, sort: readonly SortKey[], row: Row): (Scalar | null)[] {
  return keysOf(keyPlan(collection, sort), row);
}

type Predicate = (row: Row) => boolean;

// Equality on a string-valued field is plain string equality (`compareScalars` orders distinct
// strings apart), without the general comparison; every other filter takes `matches`.
function predicateOf(check: Check): Predicate {
  const { field, type, filter } = check;
  if (filter.op === 'eq' && (type === 'string' || type === 'enum') && typeof filter.value === 'string') {
    const target = filter.value;
    return (row) => {
      const value = row[field];
      if (value === null || value === undefined) return false;
      return (typeof value === 'string' ? value : String(value)) === target;
    };
  }
  return (row) => matches(row, check);
}

function filtered<T extends Row>(query: CollectionQuery, rows: readonly T[]): T[] {
  const { collection } = query;
  const predicates: Predicate[] = [...query.scope, ...query.filters].map((filter) =>
    predicateOf({ field: filter.field, type: typeOf(collection, filter.field), filter }),
  );
  const needle = query.search?.toLowerCase();
  if (predicates.length === 0 && needle === undefined) return [...rows];
  const out: T[] = [];
  for (const row of rows) {
    let keep = true;
    for (let i = 0; i < predicates.length && keep; i++) keep = predicates[i]!(row);
    if (!keep) continue;
    if (
      needle === undefined ||
      collection.searchable.some((field) => {
        const value = row[field];
        return value !== null && value !== undefined && String(value).toLowerCase().includes(needle);
      })
    )
      out.push(row);
  }
  return out;
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
  const matched = filtered(query, rows);
  // Keys are normalized once per row, not once per comparison, into one column per sort key.
  const { compare, compareTo } = columnsOf(keyPlan(collection, sort), matched);
  let candidates: number[] = new Array(matched.length);
  for (let i = 0; i < matched.length; i++) candidates[i] = i;
  let skip = 0;
  if (pagination.mode === 'cursor') {
    const { after } = pagination;
    if (after !== undefined) candidates = candidates.filter((i) => compareTo(i, after) > 0);
  } else skip = pagination.offset;
  const page = smallest(candidates, skip + pagination.limit + 1, compare);
  const out: T[] = new Array(Math.max(0, page.length - skip));
  for (let i = skip; i < page.length; i++) out[i - skip] = matched[page[i]!]!;
  return out;
}

/**
 * The `k` smallest items in order. A page needs only `offset + limit + 1` rows, so a bounded
 * insertion buffer beats sorting the whole set when the set is larger than the page: a default
 * page (21 rows) of a filtered set of 67 takes about a third fewer instructions this way than by a
 * full sort. An insertion moves up to `k` items, so a deep page (large `k`) keeps the sort unless
 * the set is much larger still.
 */
function smallest<T>(items: T[], k: number, compare: (a: T, b: T) => number): T[] {
  const buffered = k * 8 < items.length || (k <= 128 && k * 2 < items.length);
  if (!buffered) return items.sort(compare).slice(0, k);
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
