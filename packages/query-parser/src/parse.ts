import { type FieldIssue, HttpError, jsonPointer, type MessageParams } from '@plumbline/errors';
import {
  type Collection,
  type CompiledField,
  OPERATORS,
  type Operator,
  type PaginationMode,
  RESERVED_PARAMETERS,
  readSortToken,
  type SortKey,
} from './collection.js';
import { decodeCursor } from './cursor.js';
import type { CollectionQuery, Filter, Pagination } from './query.js';
import { linkQueryLength, linkQueryLengthBound } from './query-string.js';
import { normalizeStored, type Scalar } from './values.js';

/**
 * Options for {@link parseQuery} and {@link parseSearchBody}.
 *
 * @example
 * ```ts
 * const options: ParseOptions = { scope: { project_id: req.params.projectId }, count: true };
 * ```
 */
export interface ParseOptions {
  /**
   * Server-side equality filters AND-ed to every query (for `/projects/{id}/tasks`). Keys are
   * declared fields (filterable or not); string values are parsed by the field's type, and one
   * that cannot be of that type answers 404 `not_found` (no such parent can exist).
   */
  readonly scope?: Readonly<Record<string, unknown>>;
  /** The client asked for a total (`Prefer: count=exact`). */
  readonly count?: boolean;
}

type Location = { readonly parameter: string } | { readonly pointer: string };

/** One raw parameter: decoded name and value, and where an error about it points. */
interface Entry {
  readonly name: string;
  readonly value: string;
  /** Set for body members: where in the body the value was. */
  readonly pointer?: string;
  /** Set for body members: the field as messages name it (`limit`, `filter.status`, `filter.priority.gte`). */
  readonly member?: string;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
const CONTROL = /[\u0000-\u001f\u007f]/;
// A UTF-16 surrogate without its other half: no UTF-8 can say it, so no link can carry it (a
// JSON body can: `"\ud800"`); decodeURIComponent never makes one.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function tooLong(collection: Collection, what: 'bytes' | 'parameters'): HttpError {
  return what === 'bytes'
    ? new HttpError('query_too_long', { params: { max: collection.maxQueryLength } })
    : new HttpError('query_too_long', { extensions: { max_parameters: collection.maxParameters } });
}

/**
 * The bound every page link keeps: a valid query whose canonical query string, with the largest
 * offset or page number its links may carry, is over `maxQueryLength` bytes is 400
 * `query_too_long`, like an over-long query string. A query string can grow when it is written in
 * canonical form (`+` becomes `%20`, the default sort and the pagination are added), and a search
 * body has no query string of its own, so both are measured this way; the page links repeat that
 * string, so it is what the `Link` header grows with. `body` says the query came from a search
 * body: its message then names the body and its length (`body_length`).
 */
function assertLinkLength<Q extends CollectionQuery>(query: Q, body: boolean): Q {
  const { maxQueryLength } = query.collection;
  if (linkQueryLengthBound(query) <= maxQueryLength) return query;
  const length = linkQueryLength(query);
  if (length <= maxQueryLength) return query;
  throw new HttpError('query_too_long', {
    params: body ? { max: maxQueryLength, body_length: length } : { max: maxQueryLength },
  });
}

function decode(text: string, plusIsSpace: boolean): string | undefined {
  const spaced = plusIsSpace && text.includes('+') ? text.replaceAll('+', ' ') : text;
  if (!spaced.includes('%')) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    return undefined;
  }
}

/**
 * Splits and decodes a raw query string (`a=1&b=2`, with or without the leading `?`). `+` is a
 * space except in `sort`, where a literal `+` is the ascending sign.
 */
function readQueryString(collection: Collection, raw: string, issues: FieldIssue[]): Entry[] {
  const text = raw.charCodeAt(0) === 63 /* ? */ ? raw.slice(1) : raw;
  if (
    text.length > collection.maxQueryLength ||
    (text.length * 3 > collection.maxQueryLength && Buffer.byteLength(text) > collection.maxQueryLength)
  ) {
    throw tooLong(collection, 'bytes');
  }
  const entries: Entry[] = [];
  // Most query strings hold no `%`, `+` or control character: then no part needs decoding or
  // checking, and one scan here replaces a search per part.
  let plain = true;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 37 || c === 43 || c < 32 || c === 127 || (c >= 0xd800 && c <= 0xdfff)) {
      plain = false;
      break;
    }
  }
  const rawHasControl = !plain && CONTROL.test(text);
  const rawHasLoneSurrogate = !plain && LONE_SURROGATE.test(text);
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('&', start);
    if (end < 0) end = text.length;
    if (end > start) {
      if (entries.length === collection.maxParameters) throw tooLong(collection, 'parameters');
      const eq = text.indexOf('=', start);
      const hasValue = eq >= 0 && eq < end;
      const rawName = text.slice(start, hasValue ? eq : end);
      const rawValue = hasValue ? text.slice(eq + 1, end) : '';
      if (plain) {
        entries.push({ name: rawName, value: rawValue });
        start = end + 1;
        continue;
      }
      const name = decode(rawName, true);
      const value = name === undefined ? undefined : decode(rawValue, name !== 'sort');
      if (
        name === undefined ||
        value === undefined ||
        ((rawHasControl || rawName.includes('%')) && CONTROL.test(name)) ||
        ((rawHasControl || rawValue.includes('%')) && CONTROL.test(value)) ||
        (rawHasLoneSurrogate && (LONE_SURROGATE.test(name) || LONE_SURROGATE.test(value)))
      ) {
        issues.push({
          parameter: rawName,
          code: 'invalid_value',
          params: { parameter: rawName, expected: 'valid percent-encoded UTF-8 without control characters' },
        });
      } else {
        entries.push({ name, value });
      }
    }
    start = end + 1;
  }
  return entries;
}

// Locations are built only when a problem is reported, not for every parameter.
function issue(at: Location | Entry, code: string, params: MessageParams): FieldIssue {
  if ('name' in at) {
    return at.pointer !== undefined
      ? { pointer: at.pointer, code, params: memberParams(params, at.member ?? at.name) }
      : { parameter: at.name, code, params };
  }
  return { ...at, code, params };
}

/**
 * The params of a problem in a search body: where a query string's message names its parameter
 * (`parameter`, `parameters`), the body's names the field (`member`, `members`), so the client
 * reads `Field "filter.status" …` and not `Query parameter "status" …`.
 */
function memberParams(params: MessageParams, member: string): MessageParams {
  const { parameter, parameters, ...rest } = params;
  return {
    ...rest,
    ...(parameter !== undefined ? { member } : {}),
    ...(parameters !== undefined ? { members: parameters } : {}),
  };
}

function countCodePoints(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0xdc00 || unit > 0xdfff) count++;
  }
  return count;
}

interface FilterSlot {
  readonly field: CompiledField;
  readonly op: Operator;
  values: Scalar[];
  readonly fromRepeats: boolean;
  readonly at: Entry;
}

const RESERVED_SET: ReadonlySet<string> = new Set(RESERVED_PARAMETERS);
type Reserved = 'sort' | 'q' | 'limit' | 'offset' | 'page' | 'size' | 'cursor' | 'fields';

/** The members a search body may have on this collection (the `allowed` list of `unknown_parameter`). */
function acceptedMembers(collection: Collection): string[] {
  return ['filter', ...acceptedNames(collection).slice(collection.filterable.length)];
}

/** The parameter names a collection accepts (for the `allowed` list of `unknown_parameter`). */
function acceptedNames(collection: Collection): string[] {
  const names: string[] = [...collection.filterable];
  if (collection.searchable.length > 0) names.push('q');
  if (collection.sortable.length > 0) names.push('sort');
  const modes = new Set(collection.pagination);
  if (modes.has('offset') || modes.has('cursor')) names.push('limit');
  if (modes.has('offset')) names.push('offset');
  if (modes.has('page')) names.push('page', 'size');
  if (modes.has('cursor')) names.push('cursor');
  names.push('fields');
  return names;
}

function isReservedUsable(collection: Collection, name: Reserved): boolean {
  switch (name) {
    case 'q':
      return collection.searchable.length > 0;
    case 'sort':
      return collection.sortable.length > 0;
    case 'limit':
      return collection.pagination.includes('offset') || collection.pagination.includes('cursor');
    case 'offset':
      return collection.pagination.includes('offset');
    case 'page':
    case 'size':
      return collection.pagination.includes('page');
    case 'cursor':
      return collection.pagination.includes('cursor');
    case 'fields':
      return true;
  }
}

/** A canonical non-negative decimal integer (no sign, no leading zero), or `undefined`. */
function readCount(raw: string): number | undefined {
  const length = raw.length;
  if (length === 0 || (length > 1 && raw.charCodeAt(0) === 48)) return undefined;
  let value = 0;
  for (let i = 0; i < length; i++) {
    const digit = raw.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return undefined;
    value = value * 10 + digit;
  }
  // Past 2^53 the exact value no longer matters: it is over every limit.
  return length > 15 ? Number.POSITIVE_INFINITY : value;
}

/** Validates decoded entries against the collection; throws one 400 listing every problem. */
function validate(
  collection: Collection,
  entries: readonly Entry[],
  options: ParseOptions,
  issues: FieldIssue[],
): CollectionQuery {
  // A fixed shape keeps the per-parameter stores monomorphic.
  const reserved: Record<Reserved, Entry | undefined> = {
    sort: undefined,
    q: undefined,
    limit: undefined,
    offset: undefined,
    page: undefined,
    size: undefined,
    cursor: undefined,
    fields: undefined,
  };
  const seen = new Set<string>();
  let reportedDuplicate: Set<string> | undefined;
  const slots = new Map<string, FilterSlot>();
  let extra: Record<string, string[]> | undefined;

  const duplicate = (entry: Entry) => {
    reportedDuplicate ??= new Set();
    if (!reportedDuplicate.has(entry.name)) {
      reportedDuplicate.add(entry.name);
      issues.push(issue(entry, 'duplicate_parameter', { parameter: entry.name }));
    }
  };
  const unknown = (entry: Entry) => {
    if (collection.unknownParameters === 'passthrough') {
      extra ??= Object.create(null) as Record<string, string[]>;
      const list = extra[entry.name];
      if (list) list.push(entry.value);
      else extra[entry.name] = [entry.value];
      return;
    }
    const allowed =
      entry.member === undefined
        ? acceptedNames(collection)
        : entry.member.startsWith('filter.')
          ? collection.filterable
          : acceptedMembers(collection);
    issues.push(issue(entry, 'unknown_parameter', { parameter: entry.name, allowed }));
  };

  for (const entry of entries) {
    const { name } = entry;
    if (RESERVED_SET.has(name)) {
      if (!isReservedUsable(collection, name as Reserved)) unknown(entry);
      else if (seen.has(name)) duplicate(entry);
      else reserved[name as Reserved] = entry;
      seen.add(name);
      continue;
    }
    const bracket = name.indexOf('[');
    let fieldName = name;
    let op = 'eq';
    if (bracket >= 0) {
      if (bracket === 0 || name.charCodeAt(name.length - 1) !== 93 /* ] */) {
        unknown(entry);
        continue;
      }
      fieldName = name.slice(0, bracket);
      op = name.slice(bracket + 1, -1);
    }
    const field = collection.fields.get(fieldName);
    // A hidden field (`select: false`) answers like a field that does not exist, so error
    // messages never confirm that it is there.
    if (field === undefined || (field.operators.size === 0 && !field.selectable)) {
      unknown(entry);
      continue;
    }
    if (field.operators.size === 0) {
      issues.push(issue(entry, 'field_not_filterable', { field: fieldName, allowed: collection.filterable }));
      continue;
    }
    if (op.includes('[') || op.includes(']')) {
      // `name[x][y]`, `name[a]b]`: not an operator called `x][y`, but more than one bracket pair.
      issues.push(
        issue(entry, 'invalid_value', {
          parameter: name,
          expected: `a filter with one operator, as ${fieldName}[op] (operators: ${[...field.operators].join(', ')})`,
        }),
      );
      continue;
    }
    if (!field.operators.has(op as Operator)) {
      issues.push(
        issue(entry, 'operator_not_allowed', {
          operator: op,
          field: fieldName,
          allowed: [...field.operators],
        }),
      );
      continue;
    }
    // `status[eq]` is `status`: one name for duplicate detection.
    const key = op === 'eq' ? fieldName : name;
    const repeat = seen.has(key);
    seen.add(key);
    if (repeat && !(op === 'eq' && field.repeatable)) {
      duplicate(entry);
      continue;
    }
    readFilterValue(collection, field, op as Operator, entry, key, repeat, slots, issues);
  }

  const filters = finishFilters(collection, slots, issues);
  const search = readSearch(collection, reserved.q, issues);
  const sort = readSort(collection, reserved.sort, issues);
  const pagination = readPagination(collection, reserved, issues);
  const fields = readFields(collection, reserved.fields, issues);
  const scope = readScope(collection, options.scope);

  // Keyset pagination cannot step past NULL sort keys, so a sort over a nullable field is never
  // paged by cursor: buildPage offers no next_cursor for it, and asking for cursor mode is a 400.
  if (pagination?.mode === 'cursor' && sort.some((key) => collection.fields.get(key.field)!.nullable)) {
    issues.push(
      issue(reserved.sort ?? reserved.cursor ?? { parameter: 'sort' }, 'invalid_sort', {
        reason: 'cursor pagination needs sort fields that are never null; use limit and offset',
      }),
    );
  }

  let finalPagination = pagination;
  if (issues.length === 0 && pagination?.mode === 'cursor' && pagination.cursor !== undefined) {
    const after = decodeCursor(collection, { sort, filters, scope, search }, pagination.cursor);
    if (after === undefined) {
      issues.push(issue(reserved.cursor ?? { parameter: 'cursor' }, 'invalid_cursor', {}));
    } else {
      finalPagination = Object.freeze({ ...pagination, after });
    }
  }
  if (issues.length > 0 || finalPagination === undefined) throw toError(issues);

  const query = {
    filters,
    scope,
    search,
    sort,
    pagination: finalPagination,
    fields,
    count: options.count === true || collection.count === 'always',
    extra: extra ? freezeLists(extra) : NO_EXTRA,
  };
  return Object.freeze(new ParsedQuery(collection, query)) as CollectionQuery;
}

/**
 * The query of a single member (`GET /tasks/{id}`): only `fields`, by the collection's rules.
 *
 * @example
 * ```ts
 * const query: MemberQuery = parseMemberQuery(tasks, 'fields=title');
 * query.fields; // ['id', 'title']
 * ```
 */
export interface MemberQuery<F extends string = string> {
  /** Selected fields (always including the id), or `undefined` for all selectable fields. */
  readonly fields: readonly F[] | undefined;
  /** Unknown parameters kept by `unknownParameters: 'passthrough'` (null-prototype object). */
  readonly extra: Readonly<Record<string, readonly string[]>>;
}

/**
 * Parses the raw query string of a request for one member of `collection`. `fields` selects
 * members as on the collection (`field_not_selectable`, `duplicate_parameter`); with
 * `allowFields: false` (a write, whose answer is the whole resource) it is unknown too. Any other
 * parameter is 400 `unknown_parameter`, as on the collection, unless the collection keeps unknown
 * parameters (`unknownParameters: 'passthrough'`). Throws one `HttpError` listing every problem.
 *
 * @example
 * ```ts
 * parseMemberQuery(tasks, 'fields=title,status').fields; // ['id', 'title', 'status']
 * parseMemberQuery(tasks, 'sort=title'); // throws 400 unknown_parameter (allowed: fields)
 * ```
 */
export function parseMemberQuery<F extends string>(
  collection: Collection<F>,
  rawQuery: string,
  options: { readonly allowFields?: boolean } = {},
): MemberQuery<F> {
  const c = collection as Collection;
  const allowFields = options.allowFields !== false;
  const issues: FieldIssue[] = [];
  const entries = rawQuery === '' || rawQuery === '?' ? [] : readQueryString(c, rawQuery, issues);
  let fieldsEntry: Entry | undefined;
  let extra: Record<string, string[]> | undefined;
  let duplicateReported = false;
  for (const entry of entries) {
    if (allowFields && entry.name === 'fields') {
      if (fieldsEntry === undefined) fieldsEntry = entry;
      else if (!duplicateReported) {
        duplicateReported = true;
        issues.push(issue(entry, 'duplicate_parameter', { parameter: 'fields' }));
      }
    } else if (c.unknownParameters === 'passthrough') {
      extra ??= Object.create(null) as Record<string, string[]>;
      const list = extra[entry.name];
      if (list) list.push(entry.value);
      else extra[entry.name] = [entry.value];
    } else {
      issues.push(
        issue(entry, 'unknown_parameter', { parameter: entry.name, allowed: allowFields ? ['fields'] : [] }),
      );
    }
  }
  const fields = readFields(c, fieldsEntry, issues);
  if (issues.length > 0) throw toError(issues);
  return Object.freeze({
    fields: fields as readonly F[] | undefined,
    extra: extra ? freezeLists(extra) : NO_EXTRA,
  });
}

function freezeLists(record: Record<string, string[]>): Readonly<Record<string, readonly string[]>> {
  for (const list of Object.values(record)) Object.freeze(list);
  return Object.freeze(record);
}

const NO_EXTRA: Readonly<Record<string, readonly string[]>> = Object.freeze(Object.create(null));
const NO_FILTERS: readonly Filter[] = Object.freeze([]);

/**
 * The query object. `collection` is a prototype getter over a private field, so it is not an
 * own enumerable property: equality checks, spreads and `JSON.stringify` see only the query.
 */
class ParsedQuery {
  readonly #collection: Collection;
  readonly filters: readonly Filter[];
  readonly scope: readonly Filter[];
  readonly search: string | undefined;
  readonly sort: readonly SortKey[];
  readonly pagination: Pagination;
  readonly fields: readonly string[] | undefined;
  readonly count: boolean;
  readonly extra: Readonly<Record<string, readonly string[]>>;

  constructor(collection: Collection, parts: Omit<CollectionQuery, 'collection'>) {
    this.#collection = collection;
    this.filters = parts.filters;
    this.scope = parts.scope;
    this.search = parts.search;
    this.sort = parts.sort;
    this.pagination = parts.pagination;
    this.fields = parts.fields;
    this.count = parts.count;
    this.extra = parts.extra;
  }

  get collection(): Collection {
    return this.#collection;
  }
}

function toError(issues: readonly FieldIssue[]): HttpError {
  if (issues.length === 1) {
    const only = issues[0]!;
    return new HttpError(only.code, { ...(only.params ? { params: only.params } : {}), errors: issues });
  }
  return new HttpError('validation_failed', { params: { count: issues.length }, errors: issues });
}

function readFilterValue(
  collection: Collection,
  field: CompiledField,
  op: Operator,
  entry: Entry,
  key: string,
  repeat: boolean,
  slots: Map<string, FilterSlot>,
  issues: FieldIssue[],
): void {
  const invalid = (expected: string, value = entry.value) =>
    issues.push(issue(entry, 'invalid_value', { parameter: entry.name, expected, value }));
  if (op === 'in') {
    const items = entry.value.split(',');
    // A body sends the list as an array, which the body reader joined with commas.
    const list = entry.pointer === undefined ? 'comma-separated ' : '';
    if (items.length > collection.maxInValues) {
      invalid(`at most ${collection.maxInValues} ${list}values`);
      return;
    }
    const values: Scalar[] = [];
    for (const item of items) {
      const parsed = field.parse(item);
      if (parsed === undefined) {
        invalid(`a ${list}list of values, each ${field.expected}`, item);
        return;
      }
      values.push(parsed);
    }
    slots.set(key, { field, op: 'in', values, fromRepeats: false, at: entry });
    return;
  }
  const parsed = field.parse(entry.value);
  if (parsed === undefined) {
    invalid(field.expected);
    return;
  }
  const slot = slots.get(key);
  if (repeat && slot) slot.values.push(parsed);
  else slots.set(key, { field, op, values: [parsed], fromRepeats: field.repeatable, at: entry });
}

function finishFilters(
  collection: Collection,
  slots: ReadonlyMap<string, FilterSlot>,
  issues: FieldIssue[],
): readonly Filter[] {
  const filters: Filter[] = [];
  for (const slot of slots.values()) {
    if (slot.op === 'eq' && slot.values.length > 1) {
      if (slot.values.length > collection.maxInValues) {
        issues.push(
          issue(slot.at, 'invalid_value', {
            parameter: slot.field.name,
            expected: `at most ${collection.maxInValues} repeated values`,
          }),
        );
        continue;
      }
      if (slots.has(`${slot.field.name}[in]`)) {
        issues.push(
          issue({ parameter: `${slot.field.name}[in]` }, 'duplicate_parameter', {
            parameter: `${slot.field.name}[in]`,
          }),
        );
        continue;
      }
      filters.push(
        Object.freeze({ field: slot.field.name, op: 'in', value: Object.freeze([...slot.values]) }),
      );
    } else if (slot.op === 'in') {
      filters.push(Object.freeze({ field: slot.field.name, op: 'in', value: Object.freeze(slot.values) }));
    } else {
      filters.push(Object.freeze({ field: slot.field.name, op: slot.op, value: slot.values[0]! }));
    }
  }
  if (filters.length === 0) return NO_FILTERS;
  // Canonical order makes the cursor binding and links independent of parameter order.
  if (filters.length > 1)
    filters.sort(
      (a, b) =>
        collection.fields.get(a.field)!.index - collection.fields.get(b.field)!.index ||
        OPERATORS.indexOf(a.op) - OPERATORS.indexOf(b.op),
    );
  return Object.freeze(filters);
}

function readSearch(
  collection: Collection,
  entry: Entry | undefined,
  issues: FieldIssue[],
): string | undefined {
  if (entry === undefined) return undefined;
  const text = entry.value.trim().normalize('NFC');
  const length = countCodePoints(text);
  if (length < collection.searchMinLength) {
    issues.push(issue(entry, 'search_too_short', { min: collection.searchMinLength }));
    return undefined;
  }
  if (length > collection.searchMaxLength) {
    issues.push(issue(entry, 'search_too_long', { max: collection.searchMaxLength }));
    return undefined;
  }
  return text;
}

function readSort(
  collection: Collection,
  entry: Entry | undefined,
  issues: FieldIssue[],
): readonly SortKey[] {
  const keys: SortKey[] = [];
  if (entry === undefined) keys.push(...collection.defaultSort);
  else {
    const sortable = collection.sortableSet;
    const tokens = entry.value.split(',');
    if (entry.value === '') {
      issues.push(issue(entry, 'invalid_sort', { sort: '', reason: 'it is empty' }));
    } else if (tokens.length > collection.maxSortKeys) {
      issues.push(
        issue(entry, 'invalid_sort', {
          sort: entry.value,
          reason: `at most ${collection.maxSortKeys} keys are allowed`,
        }),
      );
    } else {
      for (const token of tokens) {
        if (token === '') {
          issues.push(issue(entry, 'invalid_sort', { sort: entry.value, reason: 'a key is empty' }));
          continue;
        }
        const read = readSortToken(token, sortable, collection.sortable);
        if (!read.ok) issues.push(issue(entry, read.code, read.params));
        else if (keys.some((k) => k.field === read.key.field)) {
          issues.push(
            issue(entry, 'invalid_sort', {
              sort: entry.value,
              reason: `field "${read.key.field}" appears more than once`,
            }),
          );
        } else keys.push(read.key);
      }
    }
  }
  if (!keys.some((k) => k.field === collection.id)) {
    keys.push(collection.tieBreaker);
  }
  return Object.freeze(keys);
}

function readPagination(
  collection: Collection,
  reserved: Readonly<Record<Reserved, Entry | undefined>>,
  issues: FieldIssue[],
): Pagination | undefined {
  const { limit, offset, page, size, cursor } = reserved;
  const modes: PaginationMode[] = [];
  if (offset) modes.push('offset');
  if (page || size) modes.push('page');
  if (cursor) modes.push('cursor');
  if (modes.length > 1 || (modes[0] === 'page' && limit)) {
    const names = (['limit', 'offset', 'page', 'size', 'cursor'] as const).filter((n) => reserved[n]);
    issues.push(issue(reserved[names[names.length - 1]!]!, 'conflicting_pagination', { parameters: names }));
    return undefined;
  }
  let mode = modes[0];
  if (mode === undefined) {
    const preferred = collection.pagination[0]!;
    mode =
      preferred !== 'page' || !limit
        ? preferred
        : collection.pagination.includes('offset')
          ? 'offset'
          : 'cursor';
  }
  const ok = issues.length;
  const count = (entry: Entry | undefined, min: number, max: number, fallback: number, clamp: boolean) => {
    if (entry === undefined) return fallback;
    const value = readCount(entry.value);
    const parameter = entry.name;
    if (value === undefined || value < min) {
      issues.push(
        issue(entry, 'invalid_pagination', {
          parameter,
          expected: `an integer from ${min} to ${max}`,
        }),
      );
      return fallback;
    }
    if (value > max) {
      if (clamp) return max;
      issues.push(issue(entry, 'limit_too_large', { parameter, max }));
      return fallback;
    }
    return value;
  };
  const { maxLimit, maxOffset, clampLimit, defaultLimit } = collection;
  if (mode === 'page') {
    const pageSize = count(size, 1, maxLimit, defaultLimit, clampLimit);
    const maxPage = Math.floor(maxOffset / pageSize) + 1;
    const pageNumber = count(page, 1, maxPage, 1, false);
    if (issues.length > ok) return undefined;
    return Object.freeze({
      mode,
      page: pageNumber,
      size: pageSize,
      limit: pageSize,
      offset: (pageNumber - 1) * pageSize,
    });
  }
  const pageLimit = count(limit, 1, maxLimit, defaultLimit, clampLimit);
  if (mode === 'offset') {
    const skip = count(offset, 0, maxOffset, 0, false);
    if (issues.length > ok) return undefined;
    return Object.freeze({ mode, limit: pageLimit, offset: skip });
  }
  if (cursor !== undefined && cursor.value === '') {
    issues.push(issue(cursor, 'invalid_cursor', {}));
  }
  if (issues.length > ok) return undefined;
  return Object.freeze({
    mode,
    limit: pageLimit,
    cursor: cursor?.value,
    after: undefined,
  });
}

function readFields(
  collection: Collection,
  entry: Entry | undefined,
  issues: FieldIssue[],
): readonly string[] | undefined {
  if (entry === undefined) return undefined;
  const expected = `a ${entry.pointer === undefined ? 'comma-separated ' : ''}list of distinct field names`;
  const items = entry.value.split(',');
  if (entry.value === '' || items.some((item, i) => item === '' || items.indexOf(item) !== i)) {
    issues.push(issue(entry, 'invalid_value', { parameter: entry.name, expected, value: entry.value }));
    return undefined;
  }
  const before = issues.length;
  for (const item of items) {
    if (!collection.selectableSet.has(item)) {
      issues.push(issue(entry, 'field_not_selectable', { field: item, allowed: collection.selectable }));
    }
  }
  if (issues.length > before) return undefined;
  if (!items.includes(collection.id)) items.unshift(collection.id);
  return Object.freeze(items);
}

function readScope(collection: Collection, scope: ParseOptions['scope']): readonly Filter[] {
  if (scope === undefined) return NO_FILTERS;
  const filters: Filter[] = [];
  for (const [name, raw] of Object.entries(scope)) {
    const field = collection.fields.get(name);
    if (field === undefined) throw new TypeError(`parseQuery: scope field "${name}" is not declared`);
    const text = raw instanceof Date ? raw.toISOString() : String(raw);
    const value =
      typeof raw === 'string' ? field.parse(raw) : (normalizeStored(field.type, raw) ?? undefined);
    if (value === undefined || field.parse(String(value)) === undefined) {
      throw new HttpError('not_found', { cause: `scope ${name}=${text} is not a valid ${field.type}` });
    }
    filters.push(Object.freeze({ field: name, op: 'eq', value }));
  }
  filters.sort((a, b) => collection.fields.get(a.field)!.index - collection.fields.get(b.field)!.index);
  return Object.freeze(filters);
}

/**
 * Parses and validates a raw query string (`status=open&sort=-created_at&limit=10`, with or
 * without `?`) against a collection. It reads the string itself, so the result is the same on
 * every framework and `__proto__`/`constructor` names are plain unknown parameters. Returns a
 * frozen query, or throws one 400 {@link HttpError} listing every problem (`errors[]`): the
 * single problem's code when there is one, `validation_failed` when there are several. A query
 * string over `maxQueryLength` bytes or `maxParameters` parameters is 400 `query_too_long`, and so
 * is a valid query whose page links would be: its canonical query string ({@link toQueryString},
 * with the largest offset or page number a link may carry) over `maxQueryLength` bytes.
 *
 * @example
 * ```ts
 * const query = parseQuery(tasks, 'status=open&created_at[gte]=2024-01-01T00:00:00Z&sort=-created_at&limit=10');
 * query.filters; // [{ field: 'status', op: 'eq', value: 'open' }, { field: 'created_at', op: 'gte', value: '2024-01-01T00:00:00.000Z' }]
 * ```
 */
export function parseQuery<F extends string>(
  collection: Collection<F>,
  rawQueryString: string,
  options: ParseOptions = {},
): CollectionQuery<F> {
  const issues: FieldIssue[] = [];
  const entries = readQueryString(collection as Collection, rawQueryString, issues);
  const query = validate(collection as Collection, entries, options, issues);
  return assertLinkLength(query, false) as unknown as CollectionQuery<F>;
}

const BODY_MEMBERS = ['filter', 'q', 'sort', 'limit', 'offset', 'page', 'size', 'cursor', 'fields'];

function bodyText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

function bodyList(value: unknown): string | undefined {
  if (!Array.isArray(value)) return bodyText(value);
  const items = value.map(bodyText);
  return items.every((i) => i !== undefined && !i.includes(',')) ? items.join(',') : undefined;
}

/**
 * Parses the JSON body of `POST /<collection>/search` by the same rules as {@link parseQuery}:
 * `{ "filter": { "status": "open", "tags": ["a", "b"], "priority": { "gte": 2, "in": [1, 2] } },
 * "q": "text", "sort": "-created_at,name" | ["-created_at", "name"], "limit": 20, "offset": 0,
 * "page": 1, "size": 20, "cursor": "...", "fields": ["id", "name"] | "id,name" }`. Problems point
 * into the body (`pointer: "#/filter/status"`). The body meets the bounds of a query string: more
 * than `maxParameters` values, or a canonical query string ({@link toQueryString}, with the largest
 * offset or page number a page link may carry) over `maxQueryLength` bytes, is 400 `query_too_long`
 * as on {@link parseQuery}, so the page links of a search are as bounded as those of a `GET`.
 *
 * @example
 * ```ts
 * const query = parseSearchBody(tasks, { filter: { status: ['open', 'blocked'] }, sort: ['-created_at'], limit: 50 });
 * ```
 */
export function parseSearchBody<F extends string>(
  collection: Collection<F>,
  body: unknown,
  options: ParseOptions = {},
): CollectionQuery<F> {
  const c = collection as Collection;
  const issues: FieldIssue[] = [];
  const entries: Entry[] = [];
  // `member` is the field as messages name it: `limit`, `filter.status`, `filter.priority.gte`.
  const bad = (pointer: string, member: string, expected: string) =>
    issues.push({ pointer, code: 'invalid_value', params: { member, expected } });
  const add = (name: string, value: unknown, pointer: string, member: string, list = false) => {
    if (entries.length === c.maxParameters) throw tooLong(c, 'parameters');
    const text = list ? bodyList(value) : bodyText(value);
    if (text === undefined) {
      bad(pointer, member, list ? 'a string, number or array of them' : 'a string, number or boolean');
    } else if (CONTROL.test(text) || LONE_SURROGATE.test(text)) {
      bad(pointer, member, 'text without control characters or unpaired surrogates');
    } else entries.push({ name, value: text, pointer, member });
  };
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    // No member: the message speaks of the request body itself.
    throw toError([{ pointer: '#', code: 'invalid_value', params: { expected: 'a JSON object' } }]);
  }
  for (const [member, value] of Object.entries(body)) {
    const pointer = jsonPointer([member]);
    if (!BODY_MEMBERS.includes(member)) {
      if (c.unknownParameters === 'strict')
        issues.push({
          pointer,
          code: 'unknown_parameter',
          params: { member, allowed: acceptedMembers(c) },
        });
      continue;
    }
    if (member !== 'filter') {
      add(member, value, pointer, member, member === 'sort' || member === 'fields');
      continue;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      bad(pointer, 'filter', 'an object of field filters');
      continue;
    }
    for (const [field, condition] of Object.entries(value)) {
      const at = jsonPointer([member, field]);
      const named = `filter.${field}`;
      // Only declared names reach the shared validator, so a key like "sort" or "a[ne]" cannot
      // smuggle another parameter in through the filter object.
      if (!c.fields.has(field)) {
        issues.push({
          pointer: at,
          code: 'unknown_parameter',
          params: { member: named, allowed: c.filterable },
        });
        continue;
      }
      if (Array.isArray(condition)) {
        // Each value points at its own item; the message names the field.
        for (let i = 0; i < condition.length; i++)
          add(field, condition[i], jsonPointer([member, field, i]), named);
      } else if (typeof condition === 'object' && condition !== null) {
        for (const [op, operand] of Object.entries(condition)) {
          add(`${field}[${op}]`, operand, jsonPointer([member, field, op]), `${named}.${op}`, op === 'in');
        }
      } else add(field, condition, at, named);
    }
  }
  return assertLinkLength(validate(c, entries, options, issues), true) as unknown as CollectionQuery<F>;
}
