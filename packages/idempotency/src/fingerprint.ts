import { createHash, hash } from 'node:crypto';

type Path = readonly string[];

/**
 * Body fields left out of the fingerprint, compiled once. Build it with {@link compileExclusions}.
 *
 * @example
 * ```ts
 * const exclusions: Exclusions = compileExclusions(['client_time']);
 * ```
 */
export interface Exclusions {
  readonly paths: readonly (readonly string[])[];
}

/**
 * Compiles dotted field paths (`'meta.sent_at'`) into the form {@link canonicalJson} uses, so the
 * per-request work is a walk, not string parsing.
 *
 * @example
 * ```ts
 * const exclusions = compileExclusions(['client_time', 'meta.trace_id']);
 * ```
 */
export function compileExclusions(fields: readonly string[]): Exclusions {
  for (const field of fields) {
    if (field === '' || field.split('.').includes('')) {
      throw new TypeError(`excludeFields: "${field}" is not a dotted field path`);
    }
  }
  return { paths: fields.map((field) => field.split('.')) };
}

const NO_EXCLUSIONS: Exclusions = { paths: [] };

function childExclusions(paths: readonly Path[], key: string): { drop: boolean; rest: readonly Path[] } {
  let drop = false;
  const rest: Path[] = [];
  for (const path of paths) {
    if (path[0] !== key) continue;
    if (path.length === 1) drop = true;
    else rest.push(path.slice(1));
  }
  return { drop, rest };
}

type Task = string | { readonly value: unknown; readonly paths: readonly Path[] };

// Iterative, not recursive: a client controls the body's depth, and a body nested a few thousand
// levels deep (4 KB of brackets) would otherwise overflow the stack and turn into a 500.
function write(root: unknown, rootPaths: readonly Path[]): string {
  const out: string[] = [];
  const stack: Task[] = [{ value: root, paths: rootPaths }];
  while (stack.length > 0) {
    const task = stack.pop()!;
    if (typeof task === 'string') {
      out.push(task);
      continue;
    }
    let { value } = task;
    if (
      value !== null &&
      typeof value === 'object' &&
      typeof (value as { toJSON?: unknown }).toJSON === 'function'
    ) {
      value = (value as { toJSON: () => unknown }).toJSON();
    }
    const next: Task[] = [];
    if (Array.isArray(value)) {
      next.push('[');
      value.forEach((item, index) => {
        if (index > 0) next.push(',');
        next.push(
          item === undefined || typeof item === 'function'
            ? 'null'
            : { value: item, paths: NO_EXCLUSIONS.paths },
        );
      });
      next.push(']');
    } else if (value !== null && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      const paths = task.paths;
      next.push('{');
      let first = true;
      for (const key of Object.keys(record).sort()) {
        const item = record[key];
        if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
        const { drop, rest } =
          paths.length === 0 ? { drop: false, rest: paths } : childExclusions(paths, key);
        if (drop) continue;
        next.push(`${first ? '' : ','}${JSON.stringify(key)}:`, { value: item, paths: rest });
        first = false;
      }
      next.push('}');
    } else {
      out.push(typeof value === 'bigint' ? value.toString() : (JSON.stringify(value) ?? 'null'));
      continue;
    }
    for (let i = next.length - 1; i >= 0; i--) stack.push(next[i]!);
  }
  return out.join('');
}

// Below this depth the writer recurses (no task objects, no stack array); deeper subtrees, which
// only a hostile body has, go to the iterative writer above.
const RECURSION_LIMIT = 64;

function fast(input: unknown, paths: readonly Path[], depth: number): string {
  let value = input;
  if (value === null || typeof value !== 'object') {
    return typeof value === 'bigint' ? value.toString() : (JSON.stringify(value) ?? 'null');
  }
  if (depth >= RECURSION_LIMIT) return write(value, paths);
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    value = (value as { toJSON: () => unknown }).toJSON();
    if (value === null || typeof value !== 'object') return fast(value, paths, depth);
  }
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i += 1) {
      const item: unknown = value[i];
      if (i > 0) out += ',';
      out +=
        item === undefined || typeof item === 'function'
          ? 'null'
          : fast(item, NO_EXCLUSIONS.paths, depth + 1);
    }
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  let out = '{';
  for (const key of Object.keys(record).sort()) {
    const item = record[key];
    if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
    let rest = paths;
    if (paths.length > 0) {
      const child = childExclusions(paths, key);
      if (child.drop) continue;
      rest = child.rest;
    }
    out += `${out.length > 1 ? ',' : ''}${JSON.stringify(key)}:${fast(item, rest, depth + 1)}`;
  }
  return `${out}}`;
}

/**
 * JSON with object keys sorted at every level, so two bodies that differ only in key order are
 * equal. Excluded fields are dropped; `undefined` members are skipped as `JSON.stringify` does.
 * Any nesting depth is handled (deep bodies do not overflow the stack).
 *
 * @example
 * ```ts
 * canonicalJson({ b: 1, a: { d: 2, c: 3 } }); // '{"a":{"c":3,"d":2},"b":1}'
 * canonicalJson({ a: 1, at: 'x' }, compileExclusions(['at'])); // '{"a":1}'
 * ```
 */
export function canonicalJson(value: unknown, exclusions: Exclusions = NO_EXCLUSIONS): string {
  return fast(value, exclusions.paths, 0);
}

/**
 * The bytes a body is hashed as: raw bytes and strings as they are, an absent body as nothing, a
 * parsed (JSON) value in its canonical form.
 *
 * @example
 * ```ts
 * canonicalBody({ b: 1, a: 2 }); // '{"a":2,"b":1}'
 * canonicalBody(undefined); // ''
 * ```
 */
export function canonicalBody(body: unknown, exclusions: Exclusions = NO_EXCLUSIONS): string | Uint8Array {
  if (body === undefined || body === null) return '';
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  return canonicalJson(body, exclusions);
}

/**
 * What makes two requests "the same request" for one idempotency key: the method, the path, the
 * query string and the canonical body. Returns a hex SHA-256 over those parts.
 *
 * @example
 * ```ts
 * fingerprintRequest({ method: 'POST', path: '/orders', query: '', body: { qty: 1 } });
 * ```
 */
export function fingerprintRequest(
  request: {
    readonly method: string;
    readonly path: string;
    readonly query?: string;
    readonly body?: unknown;
  },
  exclusions: Exclusions = NO_EXCLUSIONS,
): string {
  // One hash over length-prefixed parts: unambiguous without hashing the body separately first.
  const method = request.method.toUpperCase();
  const query = request.query ?? '';
  const head = `${method}\n${request.path.length}:${request.path}\n${query.length}:${query}\n`;
  const body = canonicalBody(request.body, exclusions);
  if (typeof body === 'string') return hash('sha256', head + body, 'hex');
  return createHash('sha256').update(head).update(body).digest('hex');
}
