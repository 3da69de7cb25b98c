import type { Collection } from './collection.js';
import type { CollectionQuery, Filter } from './query.js';
import type { Scalar } from './values.js';

/**
 * Options for {@link toSql}.
 *
 * @example
 * ```ts
 * const options: SqlOptions = { dialect: 'postgres', table: 'app.tasks', columns: { created_at: 'created' } };
 * ```
 */
export interface SqlOptions {
  readonly dialect: 'postgres' | 'sqlite';
  /** Table (or `schema.table`); a plain identifier, always quoted. */
  readonly table: string;
  /** Column per field, overriding each field's `column`. Identifiers come only from here or the definition. */
  readonly columns?: Readonly<Record<string, string>>;
  /**
   * PostgreSQL collation for comparing and ordering `string`/`enum` fields. Default `C` (code-point
   * order, the order cursors and `applyToArray` use); `null` keeps the column's own collation.
   */
  readonly collate?: string | null;
  /**
   * Columns selected in addition to the query's fields, under their own names, whatever `fields=`
   * asked for: what a service needs to build a representation that is not one column per field
   * (for example a currency beside an amount). Plain identifiers, checked once.
   */
  readonly extraColumns?: readonly string[];
}

/**
 * A parameterized statement: the page query (`limit + 1` rows, see {@link buildPage}) and the
 * `COUNT(*)` query for `total`. Values only travel in the params arrays.
 *
 * @example
 * ```ts
 * const { text, params, countText, countParams } = toSql(query, { dialect: 'sqlite', table: 'tasks' });
 * ```
 */
export interface SqlQuery {
  readonly text: string;
  readonly params: readonly unknown[];
  readonly countText: string;
  readonly countParams: readonly unknown[];
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const COMPARE: Readonly<Record<Exclude<Filter['op'], 'in'>, string>> = {
  eq: '=',
  ne: '<>',
  gt: '>',
  gte: '>=',
  lt: '<',
  lte: '<=',
};

interface Compiled {
  /** Quoted extra columns (`SqlOptions.extraColumns`). */
  readonly extra: readonly string[];
  readonly table: string;
  readonly column: ReadonlyMap<string, string>;
  /** Column as compared and ordered (with the collation for strings on PostgreSQL). */
  readonly ordered: ReadonlyMap<string, string>;
  /** Column as searched: lower-cased text. */
  readonly searched: ReadonlyMap<string, string>;
  readonly postgres: boolean;
}

function quote(identifier: string): string {
  if (!IDENTIFIER.test(identifier))
    throw new TypeError(`toSql: "${identifier}" is not a plain SQL identifier`);
  return `"${identifier}"`;
}

const cache = new WeakMap<Collection, WeakMap<SqlOptions, Compiled>>();

// Identifier checks and quoting happen once per (collection, options object), not per request.
function compile(collection: Collection, options: SqlOptions): Compiled {
  let perCollection = cache.get(collection);
  const hit = perCollection?.get(options);
  if (hit) return hit;
  if (options.dialect !== 'postgres' && options.dialect !== 'sqlite')
    throw new TypeError(`toSql: unknown dialect "${String(options.dialect)}"`);
  const postgres = options.dialect === 'postgres';
  const collate = postgres ? (options.collate === undefined ? 'C' : options.collate) : null;
  if (collate !== null && !IDENTIFIER.test(collate)) throw new TypeError(`toSql: bad collation "${collate}"`);
  const column = new Map<string, string>();
  const ordered = new Map<string, string>();
  const searched = new Map<string, string>();
  for (const field of collection.fields.values()) {
    const name = quote(options.columns?.[field.name] ?? field.column);
    column.set(field.name, name);
    const textual = field.type === 'string' || field.type === 'enum';
    ordered.set(field.name, textual && collate !== null ? `${name} COLLATE "${collate}"` : name);
    searched.set(
      field.name,
      postgres && field.type !== 'string' ? `LOWER(CAST(${name} AS TEXT))` : `LOWER(${name})`,
    );
  }
  const compiled: Compiled = {
    extra: (options.extraColumns ?? []).map(quote),
    table: options.table.split('.').map(quote).join('.'),
    column,
    ordered,
    searched,
    postgres,
  };
  if (!perCollection) {
    perCollection = new WeakMap();
    cache.set(collection, perCollection);
  }
  perCollection.set(options, compiled);
  return compiled;
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, '\\$&');
}

/**
 * Turns a query into parameterized SQL for PostgreSQL (`$1`) or SQLite (`?`): `SELECT` of the
 * selected fields plus the sort keys (aliased to field names), `WHERE` scope, filters and search
 * (`LOWER(col) LIKE ... ESCAPE '\'`, with `%`, `_` and `\` escaped), `ORDER BY` the sort keys
 * (NULLs last ascending, as in PostgreSQL), then `LIMIT limit+1 OFFSET offset`, or for a cursor a keyset
 * predicate (led by a range on the first sort key, so an index on it serves any depth) and no `OFFSET`. `countText` counts the rows the filters and search match.
 *
 * @example
 * ```ts
 * const sql = toSql(parseQuery(tasks, 'status=open&sort=-created_at'), { dialect: 'postgres', table: 'tasks' });
 * const rows = (await pool.query(sql.text, [...sql.params])).rows;
 * ```
 */
export function toSql(query: CollectionQuery, options: SqlOptions): SqlQuery {
  const { collection } = query;
  const c = compile(collection, options);
  const params: unknown[] = [];
  const bind = (value: Scalar): string => {
    params.push(!c.postgres && typeof value === 'boolean' ? Number(value) : value);
    return c.postgres ? `$${params.length}` : '?';
  };
  const where: string[] = [];
  for (const filter of [...query.scope, ...query.filters]) {
    const target = c.ordered.get(filter.field)!;
    if (filter.op === 'in') {
      where.push(`${target} IN (${(filter.value as readonly Scalar[]).map(bind).join(', ')})`);
    } else where.push(`${target} ${COMPARE[filter.op]} ${bind(filter.value as Scalar)}`);
  }
  if (query.search !== undefined) {
    const pattern = `%${escapeLike(query.search.toLowerCase())}%`;
    const any = collection.searchable.map((f) => `${c.searched.get(f)} LIKE ${bind(pattern)} ESCAPE '\\'`);
    where.push(any.length === 1 ? any[0]! : `(${any.join(' OR ')})`);
  }
  const countParams = [...params];
  const countText = `SELECT COUNT(*) AS "total" FROM ${c.table}${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`;

  const { sort, pagination } = query;
  if (pagination.mode === 'cursor' && pagination.after !== undefined) {
    const after = pagination.after;
    // The first sort key can only move one way from the cursor: saying so as a plain range lets the
    // database start from an index on that key instead of reading (and discarding) every row before
    // the cursor, which the OR below alone does not allow; deep pages then cost what the first does.
    const [lead] = sort;
    if (lead !== undefined && sort.length > 1) {
      where.push(`${c.ordered.get(lead.field)} ${lead.direction === 'asc' ? '>=' : '<='} ${bind(after[0]!)}`);
    }
    const branches = sort.map((key, i) => {
      const parts = sort.slice(0, i).map((k, j) => `${c.ordered.get(k.field)} = ${bind(after[j]!)}`);
      parts.push(`${c.ordered.get(key.field)} ${key.direction === 'asc' ? '>' : '<'} ${bind(after[i]!)}`);
      return parts.length === 1 ? parts[0]! : `(${parts.join(' AND ')})`;
    });
    where.push(`(${branches.join(' OR ')})`);
  }
  const selected = new Set<string>(query.fields ?? collection.selectable);
  for (const key of sort) selected.add(key.field);
  const list = [...selected].map((field) => {
    const column = c.column.get(field)!;
    return column === `"${field}"` ? column : `${column} AS "${field}"`;
  });
  for (const extra of c.extra) if (!selected.has(extra.slice(1, -1))) list.push(extra);
  // PostgreSQL's defaults already put NULLs last ascending; SQLite's put them first, so SQLite
  // spells it out, but only for nullable fields: the clause stops it scanning in index order.
  const order = sort.map((k) => {
    const nulls = !c.postgres && collection.fields.get(k.field)!.nullable;
    const direction = k.direction === 'asc' ? 'ASC' : 'DESC';
    return `${c.ordered.get(k.field)} ${direction}${nulls ? (k.direction === 'asc' ? ' NULLS LAST' : ' NULLS FIRST') : ''}`;
  });
  let text = `SELECT ${list.join(', ')} FROM ${c.table}`;
  if (where.length) text += ` WHERE ${where.join(' AND ')}`;
  text += ` ORDER BY ${order.join(', ')} LIMIT ${bind(pagination.limit + 1)}`;
  if (pagination.mode !== 'cursor') text += ` OFFSET ${bind(pagination.offset)}`;
  return Object.freeze({
    text,
    params: Object.freeze(params),
    countText,
    countParams: Object.freeze(countParams),
  });
}
