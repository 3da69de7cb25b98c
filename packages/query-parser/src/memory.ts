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

type Order = (a: Scalar | null, b: Scalar | null) => number;

// `compareScalars` for one field type, with its type checks hoisted: normalized numbers and
// ASCII strings (uuid, date) compare directly; anything else takes the general path, so the
// order is exactly `compareScalars`'s.
const numberOrder: Order = (a, b) =>
  typeof a === 'number' && typeof b === 'number' ? a - b : compareScalars('number', a, b);
const orderFor = (type: FieldType): Order => {
  if (type === 'int' || type === 'number') return numberOrder;
  return (a, b) => compareScalars(type, a, b);
};

/**
 * A sort plan as columns: each sort key's normalized values for every row, computed once, and a
 * comparison of two row indexes (ties go to the earlier row: `Array.prototype.sort` is stable).
 */
function columnsOf(plan: readonly KeyPlan[], rows: readonly Row[]) {
  const orders = plan.map((key) => orderFor(key.type));
  const signs = plan.map((key) => key.sign);
  const columns = plan.map(({ field, type }) => {
    const column: (Scalar | null)[] = new Array(rows.length);
    for (let i = 0; i < rows.length; i++) column[i] = normalizeStored(type, rows[i]![field]);
    return column;
  });
  const compare = (a: number, b: number): number => {
    for (let k = 0; k < columns.length; k++) {
      const column = columns[k]!;
      const order = orders[k]!(column[a]!, column[b]!);
      if (order !== 0) return order * signs[k]!;
    }
    return 0;
  };
  const compareTo = (a: number, after: readonly (Scalar | null)[]): number => {
    for (let k = 0; k < columns.length; k++) {
      const order = orders[k]!(columns[k]![a]!, after[k] ?? null);
      if (order !== 0) return order * signs[k]!;
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
