import { randomBytes } from 'node:crypto';
import { expectedFor, type FieldType, parseScalar, type Scalar } from './values.js';

/**
 * A filter operator. `eq` is `?field=value`; the others are `?field[op]=value`.
 *
 * @example
 * ```ts
 * const op: Operator = 'gte'; // ?priority[gte]=2
 * ```
 */
export type Operator = 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte' | 'in';

/**
 * All operators, in canonical order.
 *
 * @example
 * ```ts
 * OPERATORS.includes('in'); // true
 * ```
 */
export const OPERATORS: readonly Operator[] = Object.freeze(['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in']);

/**
 * A pagination mode: `offset` (`limit`+`offset`), `page` (`page`+`size`) or `cursor` (`cursor`+`limit`).
 *
 * @example
 * ```ts
 * const modes: PaginationMode[] = ['cursor'];
 * ```
 */
export type PaginationMode = 'offset' | 'page' | 'cursor';

/**
 * The parameter names the grammar reserves; no field may use one.
 *
 * @example
 * ```ts
 * RESERVED_PARAMETERS.includes('sort'); // true
 * ```
 */
export const RESERVED_PARAMETERS: readonly string[] = Object.freeze([
  'sort',
  'q',
  'limit',
  'offset',
  'page',
  'size',
  'cursor',
  'fields',
]);

/**
 * How one field of a collection may be used.
 *
 * @example
 * ```ts
 * const status: FieldSpec = { type: 'enum', values: ['open', 'done'], filter: ['eq', 'in'], repeatable: true };
 * ```
 */
export interface FieldSpec {
  readonly type: FieldType;
  /** Allowed values of an `enum` field (required for `enum`, refused otherwise). */
  readonly values?: readonly string[];
  /** Filterable: `true` means `['eq']`; a list names the operators allowed. Default false. */
  readonly filter?: boolean | readonly Operator[];
  /** `?field=a&field=b` is allowed and means "a or b". Default false (a repeat is 400). */
  readonly repeatable?: boolean;
  /** May appear in `sort`. Default false. */
  readonly sort?: boolean;
  /** Searched by `q` (string-like types only). Default false. */
  readonly search?: boolean;
  /** Returned in responses and allowed in `fields`. Default true. */
  readonly select?: boolean;
  /** SQL column for this field. Default: the field name. */
  readonly column?: string;
  /**
   * The column may hold NULL. SQL then spells out `NULLS LAST`/`NULLS FIRST` so SQLite orders
   * NULLs as PostgreSQL and `applyToArray` do (at the cost of index-ordered scans on SQLite).
   * Cursor pagination needs non-NULL sort keys. Default false.
   */
  readonly nullable?: boolean;
}

/**
 * Options for {@link defineCollection}.
 *
 * @example
 * ```ts
 * const options: CollectionOptions<{ id: FieldSpec }> = { fields: { id: { type: 'uuid', sort: true } } };
 * ```
 */
export interface CollectionOptions<F extends Readonly<Record<string, FieldSpec>>> {
  readonly fields: F;
  /** The unique field used as the final sort tie-breaker and always returned. Default `id`. */
  readonly id?: keyof F & string;
  /** Sort used when the client sends none, in any accepted shape. Default: by `id` only. */
  readonly defaultSort?: string;
  /** Page size when none is asked for. Default 20. */
  readonly defaultLimit?: number;
  /** Largest `limit`/`size`. Default 100. */
  readonly maxLimit?: number;
  /** Largest `offset` (and largest offset a `page` may reach). Default 10 000. */
  readonly maxOffset?: number;
  /** Clamp `limit`/`size` to `maxLimit` instead of answering 400 `limit_too_large`. Default false. */
  readonly clampLimit?: boolean;
  /** Allowed pagination modes; the first is used when the request names none. Default all three. */
  readonly pagination?: readonly PaginationMode[];
  /** Minimum search length in characters (after trimming). Default 3. */
  readonly searchMinLength?: number;
  /** Maximum search length in characters. Default 200. */
  readonly searchMaxLength?: number;
  /** Unknown parameters: `strict` answers 400 `unknown_parameter`; `passthrough` keeps them in `extra`. Default strict. */
  readonly unknownParameters?: 'strict' | 'passthrough';
  /**
   * HMAC-SHA256 key for cursors (at least 32 bytes). Default: random per process, drawn when the first
   * cursor is signed or read (never at definition time, so a module may define collections at top level
   * on Cloudflare Workers); such cursors die on restart and do not cross instances.
   */
  readonly cursorSecret?: string | Uint8Array;
  /** Most values in one `[in]` list or repeated filter. Default 50. */
  readonly maxInValues?: number;
  /** Most keys in `sort`. Default 3. */
  readonly maxSortKeys?: number;
  /**
   * Longest query string in bytes, as sent and as every page link writes it (for a search body:
   * the query string it is equivalent to). Default 2048: a page's `Link` header repeats the query
   * in up to five links, and five times 2 KiB stays well inside the 16 KiB that Node clients (and
   * many proxies) accept for a whole response header section.
   */
  readonly maxQueryLength?: number;
  /** Most parameters in one query string, most values in one search body. Default 100. */
  readonly maxParameters?: number;
  /** `prefer`: `total` only on `Prefer: count=exact`; `always`: every page. Default prefer. */
  readonly count?: 'prefer' | 'always';
}

/**
 * A field as the parser uses it, compiled once at definition time.
 *
 * @example
 * ```ts
 * const status: CompiledField = tasks.fields.get('status')!;
 * status.operators.has('in'); // true
 * status.parse('done'); // 'done' (undefined when not a declared value)
 * ```
 */
export interface CompiledField {
  readonly name: string;
  readonly index: number;
  readonly type: FieldType;
  readonly values: readonly string[] | undefined;
  readonly operators: ReadonlySet<Operator>;
  readonly repeatable: boolean;
  readonly sortable: boolean;
  readonly searchable: boolean;
  readonly selectable: boolean;
  readonly column: string;
  readonly nullable: boolean;
  readonly expected: string;
  /** Parses one raw query value into the field's type; undefined when it is not valid. */
  readonly parse: (raw: string) => Scalar | undefined;
}

/**
 * A sort key: field and direction.
 *
 * @example
 * ```ts
 * const key: SortKey = { field: 'created_at', direction: 'desc' };
 * ```
 */
export interface SortKey<F extends string = string> {
  readonly field: F;
  readonly direction: 'asc' | 'desc';
}

// The mark `isCollection` looks for at run time. It is deliberately not part of the `Collection`
// type: a `unique symbol` in the declarations makes the ESM and CJS copies of the type distinct, and a
// project that loads both (one file imports, another requires) then fails TS2717 on the Fastify and
// Hono request augmentations.
const BRAND = Symbol.for('@plumbline/query-parser.Collection');

/**
 * A compiled collection definition: pass it to {@link parseQuery} and friends.
 *
 * @example
 * ```ts
 * const tasks: Collection<'id' | 'title'> = defineCollection({ fields: { id: { type: 'int' }, title: { type: 'string' } } });
 * ```
 */
export interface Collection<F extends string = string> {
  readonly fields: ReadonlyMap<F, CompiledField>;
  readonly id: F;
  readonly defaultSort: readonly SortKey<F>[];
  /** The `id` ascending key appended as the final tie-breaker. */
  readonly tieBreaker: SortKey<F>;
  readonly defaultLimit: number;
  readonly maxLimit: number;
  readonly maxOffset: number;
  readonly clampLimit: boolean;
  readonly pagination: readonly PaginationMode[];
  readonly searchMinLength: number;
  readonly searchMaxLength: number;
  readonly unknownParameters: 'strict' | 'passthrough';
  readonly maxInValues: number;
  readonly maxSortKeys: number;
  readonly maxQueryLength: number;
  readonly maxParameters: number;
  readonly count: 'prefer' | 'always';
  /** Filterable, sortable, searchable and selectable field names, in declaration order. */
  readonly filterable: readonly F[];
  readonly sortable: readonly F[];
  /** The sortable names as a set, for per-request lookups. */
  readonly sortableSet: ReadonlySet<string>;
  /** The selectable names as a set, for per-request lookups. */
  readonly selectableSet: ReadonlySet<string>;
  readonly searchable: readonly F[];
  readonly selectable: readonly F[];
}

const FIELD_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;
const COLUMN = /^[A-Za-z_][A-Za-z0-9_]*$/;
const ORDERING: ReadonlySet<Operator> = new Set(['gt', 'gte', 'lt', 'lte']);
const ORDERABLE: ReadonlySet<FieldType> = new Set(['string', 'int', 'number', 'date', 'date-time']);
const SEARCHABLE: ReadonlySet<FieldType> = new Set(['string', 'enum', 'uuid']);
const DIRECTION_SUFFIX = /_(asc|desc)$/;

function fail(message: string): never {
  throw new TypeError(`defineCollection: ${message}`);
}

function positiveInt(name: string, value: number | undefined, fallback: number, min = 1): number {
  const result = value ?? fallback;
  if (!Number.isSafeInteger(result) || result < min) fail(`${name} must be an integer >= ${min}`);
  return result;
}

function compileField(name: string, index: number, spec: FieldSpec): CompiledField {
  if (!FIELD_NAME.test(name))
    fail(`field name "${name}" must match ${FIELD_NAME} (letters, digits, underscores)`);
  if (RESERVED_PARAMETERS.includes(name)) fail(`field name "${name}" collides with a reserved parameter`);
  const { type } = spec;
  if (type === 'enum') {
    if (!spec.values || spec.values.length === 0) fail(`enum field "${name}" needs values`);
    if (spec.values.some((v) => v.length === 0 || v.includes(',')))
      fail(`enum values of "${name}" must be non-empty and contain no comma`);
  } else if (spec.values !== undefined) {
    fail(`field "${name}" declares values but is not an enum`);
  }
  const operators: ReadonlySet<Operator> = new Set(
    spec.filter === true ? ['eq'] : spec.filter === false || spec.filter === undefined ? [] : spec.filter,
  );
  for (const op of operators) {
    if (!OPERATORS.includes(op)) fail(`unknown operator "${op}" on field "${name}"`);
    if (ORDERING.has(op) && !ORDERABLE.has(type))
      fail(`operator "${op}" needs an ordered type; field "${name}" is ${type}`);
  }
  if (spec.repeatable && !operators.has('eq')) fail(`repeatable field "${name}" must allow eq filters`);
  if (spec.search && !SEARCHABLE.has(type)) fail(`field "${name}" of type ${type} cannot be searchable`);
  const column = spec.column ?? name;
  if (!COLUMN.test(column)) fail(`column "${column}" of field "${name}" is not a plain SQL identifier`);
  const enumSet = spec.values ? new Set(spec.values) : undefined;
  return Object.freeze({
    name,
    index,
    type,
    values: spec.values ? Object.freeze([...spec.values]) : undefined,
    operators,
    repeatable: spec.repeatable ?? false,
    sortable: spec.sort ?? false,
    searchable: spec.search ?? false,
    selectable: spec.select ?? true,
    column,
    nullable: spec.nullable ?? false,
    expected: expectedFor(type, spec.values),
    parse: (raw: string) => parseScalar(type, raw, enumSet),
  });
}

/** The outcome of reading one sort token: a key, or the error code and params to report. */
export type SortTokenResult =
  | { readonly ok: true; readonly key: SortKey }
  | {
      readonly ok: false;
      readonly code: 'invalid_sort' | 'sort_field_not_allowed';
      readonly params: Readonly<Record<string, string | readonly string[]>>;
    };

/** `name` for `name_asc`/`name_desc`, else the empty string (never a field name). */
function suffixStem(name: string): string {
  if (name.endsWith('_asc')) return name.slice(0, -4);
  if (name.endsWith('_desc')) return name.slice(0, -5);
  return '';
}

/**
 * Reads one sort token in any of the three shapes ({@link https://github.com/plumbline/plumbline/blob/main/docs/design.md#d-sort | design: sort}: sign, then `:dir`, then `_dir`
 * suffix when the stem is sortable, else a bare field ascending).
 */
export function readSortToken(
  token: string,
  sortable: ReadonlySet<string>,
  allowed: readonly string[],
): SortTokenResult {
  let name = token;
  let direction: 'asc' | 'desc' | undefined;
  const sign = name.charCodeAt(0);
  if (sign === 45 /* - */ || sign === 43 /* + */) {
    direction = sign === 45 ? 'desc' : 'asc';
    name = name.slice(1);
  }
  const colon = name.indexOf(':');
  if (colon >= 0) {
    const suffix = name.slice(colon + 1);
    name = name.slice(0, colon);
    if (direction !== undefined)
      return {
        ok: false,
        code: 'invalid_sort',
        params: { sort: token, reason: 'use either a sign or :asc/:desc, not both' },
      };
    if (suffix !== 'asc' && suffix !== 'desc')
      return {
        ok: false,
        code: 'invalid_sort',
        params: { sort: token, reason: 'direction must be asc or desc' },
      };
    direction = suffix;
  } else if (direction === undefined && !sortable.has(name)) {
    // Definition-time checks rule out a sortable name that is also a sortable stem + suffix,
    // so trying the bare name first gives the same answer as the documented order, faster.
    const suffix = name.endsWith('_asc') ? 'asc' : name.endsWith('_desc') ? 'desc' : undefined;
    const stem = suffix && name.slice(0, -suffix.length - 1);
    if (stem && sortable.has(stem)) {
      name = stem;
      direction = suffix;
    }
  }
  if (sortable.has(name))
    return { ok: true, key: Object.freeze({ field: name, direction: direction ?? 'asc' }) };
  // `-name_asc`, `name_desc:asc`: a suffix on a sortable stem, after a sign or before `:dir`, is a
  // second direction, not a field called `name_asc`.
  if (direction !== undefined && sortable.has(suffixStem(name))) {
    return {
      ok: false,
      code: 'invalid_sort',
      params: {
        sort: token,
        reason:
          colon >= 0
            ? 'use either :asc/:desc or _asc/_desc, not both'
            : 'use either a sign or _asc/_desc, not both',
      },
    };
  }
  if (!FIELD_NAME.test(name))
    return { ok: false, code: 'invalid_sort', params: { sort: token, reason: 'not a field name' } };
  return { ok: false, code: 'sort_field_not_allowed', params: { field: name, allowed } };
}

/**
 * Declares a collection: its fields, how each may be filtered, sorted, searched and selected,
 * and the paging limits. Every configuration mistake (an ambiguous sort name, an ordering
 * operator on a type without an order, a field named like a reserved parameter, an unknown
 * default sort) throws a `TypeError` here, once, instead of failing on some request later.
 *
 * @example
 * ```ts
 * const tasks = defineCollection({
 *   fields: {
 *     id: { type: 'int', sort: true },
 *     title: { type: 'string', search: true, sort: true },
 *     status: { type: 'enum', values: ['open', 'done'], filter: ['eq', 'in'] },
 *     created_at: { type: 'date-time', filter: ['gte', 'lt'], sort: true },
 *   },
 *   defaultSort: '-created_at',
 *   cursorSecret: process.env.CURSOR_SECRET,
 * });
 * ```
 */
export function defineCollection<const F extends Readonly<Record<string, FieldSpec>>>(
  options: CollectionOptions<F>,
): Collection<keyof F & string> {
  type Name = keyof F & string;
  const fields = new Map<Name, CompiledField>();
  Object.keys(options.fields).forEach((name, index) => {
    fields.set(name as Name, compileField(name, index, options.fields[name]!));
  });
  const id = (options.id ?? 'id') as Name;
  if (!fields.has(id)) fail(`the id field "${id}" is not declared`);
  if (!fields.get(id)!.selectable) fail(`the id field "${id}" is always returned, so it must be selectable`);
  const pick = (test: (f: CompiledField) => boolean) =>
    Object.freeze([...fields.values()].filter(test).map((f) => f.name as Name));
  const sortable = pick((f) => f.sortable);
  const sortableSet = new Set<string>(sortable);
  for (const name of sortable) {
    const m = DIRECTION_SUFFIX.exec(name);
    if (m && sortableSet.has(name.slice(0, m.index)))
      fail(`sortable fields "${name}" and "${name.slice(0, m.index)}" make "${name}" ambiguous`);
  }
  const maxSortKeys = positiveInt('maxSortKeys', options.maxSortKeys, 3);
  const defaultSort: SortKey<Name>[] = [];
  if (options.defaultSort !== undefined) {
    const tokens = options.defaultSort.split(',');
    if (tokens.length > maxSortKeys) fail(`defaultSort has more than ${maxSortKeys} keys`);
    for (const token of tokens) {
      const read = readSortToken(token, sortableSet, sortable);
      if (!read.ok) fail(`defaultSort "${options.defaultSort}": ${JSON.stringify(read.params)}`);
      if (defaultSort.some((k) => k.field === read.key.field))
        fail(`defaultSort repeats "${read.key.field}"`);
      defaultSort.push(read.key as SortKey<Name>);
    }
  }
  const pagination = options.pagination ?? ['offset', 'page', 'cursor'];
  if (pagination.length === 0 || pagination.some((m) => !['offset', 'page', 'cursor'].includes(m)))
    fail('pagination must list one or more of offset, page, cursor');
  const maxLimit = positiveInt('maxLimit', options.maxLimit, 100);
  const defaultLimit = positiveInt('defaultLimit', options.defaultLimit, Math.min(20, maxLimit));
  if (defaultLimit > maxLimit) fail('defaultLimit exceeds maxLimit');
  const searchMinLength = positiveInt('searchMinLength', options.searchMinLength, 3);
  const searchMaxLength = positiveInt('searchMaxLength', options.searchMaxLength, 200);
  if (searchMinLength > searchMaxLength) fail('searchMinLength exceeds searchMaxLength');
  // No secret: the random key is drawn on first use (cursorKeyOf), not here. Workers forbid random
  // values in global scope, where collections are usually defined.
  let cursorKey: Uint8Array | undefined;
  if (options.cursorSecret !== undefined) {
    cursorKey =
      typeof options.cursorSecret === 'string' ? Buffer.from(options.cursorSecret) : options.cursorSecret;
    if (cursorKey.byteLength < 32) fail('cursorSecret must be at least 32 bytes');
  }
  const collection = Object.freeze({
    [BRAND]: true as const,
    fields,
    id,
    defaultSort: Object.freeze(defaultSort),
    tieBreaker: Object.freeze({ field: id, direction: 'asc' as const }),
    defaultLimit,
    maxLimit,
    maxOffset: positiveInt('maxOffset', options.maxOffset, 10_000, 0),
    clampLimit: options.clampLimit ?? false,
    pagination: Object.freeze([...new Set(pagination)]),
    searchMinLength,
    searchMaxLength,
    unknownParameters: options.unknownParameters ?? 'strict',
    maxInValues: positiveInt('maxInValues', options.maxInValues, 50),
    maxSortKeys,
    maxQueryLength: positiveInt('maxQueryLength', options.maxQueryLength, 2048),
    maxParameters: positiveInt('maxParameters', options.maxParameters, 100),
    count: options.count ?? 'prefer',
    filterable: pick((f) => f.operators.size > 0),
    sortable,
    sortableSet,
    searchable: pick((f) => f.searchable),
    selectable: pick((f) => f.selectable),
    selectableSet: new Set([...fields.values()].filter((f) => f.selectable).map((f) => f.name)),
  });
  CURSOR_KEYS.set(collection, cursorKey ?? null);
  return collection;
}

// The HMAC key lives outside the collection object, so logging or serializing a collection
// can never leak it. null: no secret was given and no cursor has been made or read yet.
const CURSOR_KEYS = new WeakMap<Collection, Uint8Array | null>();

/** The cursor HMAC key of a collection (package-internal); a random one is drawn on first use. */
export function cursorKeyOf(collection: Collection): Uint8Array {
  let key = CURSOR_KEYS.get(collection);
  if (key === undefined) throw new TypeError('not a collection made by defineCollection');
  if (key === null) {
    key = randomBytes(32);
    CURSOR_KEYS.set(collection, key);
  }
  return key;
}

/**
 * True for a value made by {@link defineCollection}.
 *
 * @example
 * ```ts
 * isCollection(tasks); // true
 * ```
 */
export function isCollection(value: unknown): value is Collection {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}
