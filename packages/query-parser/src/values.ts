/**
 * Typed values: parsing a query-string value for a field type, normalizing a stored row value,
 * and the single ordering every part of the package uses (memory, SQL and cursors agree on it).
 */

/**
 * The value types a field can declare.
 *
 * @example
 * ```ts
 * const type: FieldType = 'date-time';
 * ```
 */
export type FieldType = 'string' | 'int' | 'number' | 'boolean' | 'date' | 'date-time' | 'enum' | 'uuid';

/**
 * A parsed filter value: numbers for `int`/`number`, booleans for `boolean`, strings for the
 * rest (a `date-time` is normalized to `toISOString()` form, a `uuid` to lower case).
 *
 * @example
 * ```ts
 * const value: Scalar = '2024-05-01T10:00:00.000Z';
 * ```
 */
export type Scalar = string | number | boolean;

const INT = /^-?(?:0|[1-9][0-9]*)$/;
const NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;
const DATE = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;
const DATE_TIME =
  /^([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?(?:[Zz]|([+-])([0-9]{2}):([0-9]{2}))$/;
const CANONICAL_DATE_TIME = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

function validDate(y: string, m: string, d: string): boolean {
  const month = Number(m);
  const day = Number(d);
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(Number(y), month);
}

/** Parses one value of `type`; `undefined` when it is not valid. */
export function parseScalar(
  type: FieldType,
  raw: string,
  enumValues: ReadonlySet<string> | undefined,
): Scalar | undefined {
  switch (type) {
    case 'string':
      return raw.length > 0 ? raw : undefined;
    case 'int': {
      if (!INT.test(raw)) return undefined;
      const n = Number(raw);
      return Number.isSafeInteger(n) ? n + 0 : undefined;
    }
    case 'number': {
      if (!NUMBER.test(raw)) return undefined;
      const n = Number(raw);
      // `+ 0` folds -0 into 0 so a parsed query equals its canonical re-parse.
      return Number.isFinite(n) ? n + 0 : undefined;
    }
    case 'boolean':
      return raw === 'true' ? true : raw === 'false' ? false : undefined;
    case 'date': {
      const m = DATE.exec(raw);
      return m && validDate(m[1]!, m[2]!, m[3]!) ? raw : undefined;
    }
    case 'date-time': {
      const m = DATE_TIME.exec(raw);
      if (!m || !validDate(m[1]!, m[2]!, m[3]!)) return undefined;
      if (Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6]) > 59) return undefined;
      if (m[8] !== undefined && (Number(m[9]) > 23 || Number(m[10]) > 59)) return undefined;
      const time = Date.parse(raw.toUpperCase());
      return Number.isFinite(time) ? new Date(time).toISOString() : undefined;
    }
    case 'enum':
      return enumValues?.has(raw) ? raw : undefined;
    case 'uuid':
      return UUID.test(raw) ? raw.toLowerCase() : undefined;
  }
}

/**
 * Human description of what a value of `type` must look like (the `expected` of `invalid_value`).
 */
export function expectedFor(type: FieldType, enumValues: readonly string[] | undefined): string {
  switch (type) {
    case 'string':
      return 'a non-empty string';
    case 'int':
      return 'an integer';
    case 'number':
      return 'a number';
    case 'boolean':
      return 'true or false';
    case 'date':
      return 'an RFC 3339 date (YYYY-MM-DD)';
    case 'date-time':
      return 'an RFC 3339 date-time';
    case 'enum':
      return `one of ${(enumValues ?? []).join(', ')}`;
    case 'uuid':
      return 'a UUID';
  }
}

/**
 * A stored value (a row cell: `Date`, number, numeric string from a driver, 0/1 from SQLite)
 * in the same form a parsed query value has, so cursors and comparisons see one representation.
 */
export function normalizeStored(type: FieldType, value: unknown): Scalar | null {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'int':
    case 'number':
      return typeof value === 'number' ? value : Number(value);
    case 'boolean':
      return typeof value === 'boolean' ? value : value === 1 || value === '1' || value === 'true';
    case 'date':
      return value instanceof Date ? value.toISOString().slice(0, 10) : String(value);
    case 'date-time': {
      if (value instanceof Date) return value.toISOString();
      const text = String(value);
      if (CANONICAL_DATE_TIME.test(text)) return text;
      const time = Date.parse(text.toUpperCase());
      return Number.isFinite(time) ? new Date(time).toISOString() : text;
    }
    case 'uuid':
      return String(value).toLowerCase();
    default:
      return String(value);
  }
}

/**
 * Compares strings by Unicode code point (the order of SQLite's BINARY and PostgreSQL's "C"
 * collation), not by UTF-16 code unit as `<` does.
 */
function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    // Below the surrogates, code-unit order is code-point order.
    if (x !== y) return x < 0xd800 && y < 0xd800 ? x - y : rank(x) - rank(y);
  }
  return a.length - b.length;
}

// Surrogates encode code points above U+FFFF, so they must sort after U+E000–U+FFFF.
function rank(unit: number): number {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000;
  if (unit >= 0xe000) return unit - 0x800;
  return unit;
}

/** Compares two normalized values of one type; `null` sorts last (as `NULLS LAST` does). */
export function compareScalars(type: FieldType, a: Scalar | null, b: Scalar | null): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
  if (type === 'date-time') {
    // Normalized values are all `toISOString()` output, which orders as text (years 0000–9999);
    // it is ASCII, so the engine's own code-unit comparison is code-point order.
    const x = a as string;
    const y = b as string;
    if (x.length === 24 && y.length === 24) return x < y ? -1 : x > y ? 1 : 0;
    return Date.parse(x) - Date.parse(y);
  }
  // Normalized UUIDs (lower-case hex) and dates (YYYY-MM-DD) are ASCII too: a uuid tie-breaker is
  // the most frequent comparison of a sort, and its values share long prefixes.
  if ((type === 'uuid' || type === 'date') && typeof a === 'string' && typeof b === 'string') {
    return a < b ? -1 : a > b ? 1 : 0;
  }
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  return compareCodePoints(String(a), String(b));
}
