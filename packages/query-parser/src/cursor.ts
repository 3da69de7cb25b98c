import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { type Collection, cursorKeyOf, type Operator, type SortKey } from './collection.js';
import type { Scalar } from './values.js';

/** The parts of a query a cursor is bound to. */
export interface CursorBinding {
  readonly sort: readonly SortKey[];
  readonly filters: readonly { readonly field: string; readonly op: Operator; readonly value: unknown }[];
  readonly scope: readonly { readonly field: string; readonly op: Operator; readonly value: unknown }[];
  readonly search: string | undefined;
}

// Far above any real cursor (3 keys of at most a few hundred bytes); bounds work on garbage.
const MAX_CURSOR_LENGTH = 2048;

/**
 * Remembers up to `max` results of a pure function of a string, for keys of at most
 * `maxKeyLength` characters (keys come from clients, so both bounds hold whatever they send).
 * When full it starts over: a page's binding and last-row cursor repeat across requests, so a
 * small table holds the working set.
 */
export function boundedMemo(
  compute: (key: string) => string,
  max = 256,
  maxKeyLength = 1024,
): (key: string) => string {
  let table = new Map<string, string>();
  return (key) => {
    if (key.length > maxKeyLength) return compute(key);
    let value = table.get(key);
    if (value === undefined) {
      value = compute(key);
      if (table.size >= max) table = new Map();
      table.set(key, value);
    }
    return value;
  };
}

const hashBinding = boundedMemo((text) => createHash('sha256').update(text).digest('base64url').slice(0, 22));

function bindingHash(binding: CursorBinding): string {
  const text = JSON.stringify([
    binding.sort.map((k) => [k.field, k.direction]),
    binding.filters.map((f) => [f.field, f.op, f.value]),
    binding.scope.map((f) => [f.field, f.op, f.value]),
    binding.search ?? null,
  ]);
  return hashBinding(text);
}

// One signer per key (a collection's cursor key), each remembering its recent signatures.
const signers = new WeakMap<Uint8Array, (payload: string) => string>();

function sign(key: Uint8Array, payload: string): string {
  let signer = signers.get(key);
  if (signer === undefined) {
    signer = boundedMemo((text) => createHmac('sha256', key).update(text).digest('base64url'));
    signers.set(key, signer);
  }
  return signer(payload);
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Encodes the sort-key values of the last row of a page as an opaque, signed cursor bound to the
 * query's sort, filters, scope and search.
 */
export function encodeCursor(
  collection: Collection,
  binding: CursorBinding,
  values: readonly Scalar[],
): string {
  const payload = Buffer.from(JSON.stringify({ v: values, h: bindingHash(binding) })).toString('base64url');
  return `${payload}.${sign(cursorKeyOf(collection), payload)}`;
}

function valueFits(collection: Collection, field: string, value: unknown): boolean {
  const type = collection.fields.get(field)?.type;
  switch (type) {
    case 'int':
      return Number.isSafeInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    default:
      return typeof value === 'string';
  }
}

/**
 * Verifies a cursor (signature in constant time, then its binding and value types) and returns
 * the sort-key values it carries, or `undefined` when it is tampered, truncated or foreign.
 */
export function decodeCursor(
  collection: Collection,
  binding: CursorBinding,
  cursor: string,
): readonly Scalar[] | undefined {
  if (cursor.length > MAX_CURSOR_LENGTH) return undefined;
  const dot = cursor.indexOf('.');
  if (dot <= 0) return undefined;
  const payload = cursor.slice(0, dot);
  if (!sameText(cursor.slice(dot + 1), sign(cursorKeyOf(collection), payload))) return undefined;
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof decoded !== 'object' || decoded === null) return undefined;
  const { v, h } = decoded as { v?: unknown; h?: unknown };
  if (typeof h !== 'string' || !sameText(h, bindingHash(binding))) return undefined;
  if (!Array.isArray(v) || v.length !== binding.sort.length) return undefined;
  for (let i = 0; i < v.length; i++) {
    if (!valueFits(collection, binding.sort[i]!.field, v[i])) return undefined;
  }
  return Object.freeze(v as Scalar[]);
}
