/**
 * Conditional requests (RFC 9110 section 13): entity-tag lists, HTTP-dates, and the evaluation of
 * If-Match, If-None-Match, If-Modified-Since and If-Unmodified-Since in the order of section 13.2.2.
 * Plain values in and out; the adapters' `conditional()` middleware reads the headers and answers.
 */
import { HttpError } from '@plumbline/errors';

/**
 * One entity-tag (RFC 9110 section 8.8.3): `opaque` is the quoted string, quotes included.
 *
 * @example
 * ```ts
 * const tag: EntityTag = { weak: true, opaque: '"v7"' }; // W/"v7"
 * ```
 */
export interface EntityTag {
  /** Whether the tag had the `W/` prefix. */
  readonly weak: boolean;
  /** The quoted opaque tag, quotes included. */
  readonly opaque: string;
}

/**
 * An If-Match or If-None-Match field value: `*` (any current representation) or a list of
 * entity-tags. Members that are not entity-tags are left out: they can match no representation.
 *
 * @example
 * ```ts
 * const list: EntityTagList = { any: false, tags: [{ weak: false, opaque: '"a"' }] };
 * ```
 */
export interface EntityTagList {
  /** The field was `*`. */
  readonly any: boolean;
  /** The entity-tags listed, in order. */
  readonly tags: readonly EntityTag[];
}

const isEtagChar = (code: number) => code === 0x21 || (code >= 0x23 && code <= 0x7e) || code >= 0x80;
const isOws = (char: string | undefined) => char === ' ' || char === '\t';

/**
 * Parses an If-Match / If-None-Match value (RFC 9110 sections 13.1.1, 13.1.2 and 5.6.1):
 * `*` alone, or a comma-separated list of `"opaque"` / `W/"opaque"` with optional whitespace and
 * empty members. A member that is not an entity-tag (unquoted, lower-case `w/`, a stray `*`) is
 * skipped up to the next comma; it matches nothing. Commas inside a quoted tag belong to the tag.
 * Never throws.
 *
 * @example
 * ```ts
 * parseEntityTags('"a", W/"b",,"c,d"');
 * // { any: false, tags: [{ weak: false, opaque: '"a"' }, { weak: true, opaque: '"b"' }, { weak: false, opaque: '"c,d"' }] }
 * parseEntityTags(' * '); // { any: true, tags: [] }
 * ```
 */
export function parseEntityTags(value: string): EntityTagList {
  if (value.trim() === '*') return { any: true, tags: [] };
  const tags: EntityTag[] = [];
  let i = 0;
  const n = value.length;
  while (i < n) {
    while (i < n && (isOws(value[i]) || value[i] === ',')) i += 1;
    if (i >= n) break;
    const weak = value.startsWith('W/', i);
    const start = weak ? i + 2 : i;
    let end = -1;
    if (value[start] === '"') {
      let j = start + 1;
      while (j < n && isEtagChar(value.charCodeAt(j))) j += 1;
      if (value[j] === '"') end = j + 1;
    }
    let k = end;
    if (end > 0) while (k < n && isOws(value[k])) k += 1;
    if (end > 0 && (k >= n || value[k] === ',')) {
      tags.push({ weak, opaque: value.slice(start, end) });
      i = k;
    } else {
      // Not an entity-tag: skip to the next comma.
      const comma = value.indexOf(',', i);
      i = comma < 0 ? n : comma;
    }
  }
  return { any: false, tags };
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const LONG_DAY = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MONTH = `(${MONTHS.join('|')})`;
const TIME = '(\\d\\d):(\\d\\d):(\\d\\d)';
const IMF_FIXDATE = new RegExp(`^${DAY}, (\\d\\d) ${MONTH} (\\d{4}) ${TIME} GMT$`);
const RFC850 = new RegExp(`^${LONG_DAY}, (\\d\\d)-${MONTH}-(\\d\\d) ${TIME} GMT$`);
const ASCTIME = new RegExp(`^${DAY} ${MONTH} ([ \\d]\\d) ${TIME} (\\d{4})$`);

function utc(year: number, month: string, day: number, h: number, m: number, s: number): number | undefined {
  const index = MONTHS.indexOf(month);
  if (h > 23 || m > 59 || s > 60 || day < 1) return undefined;
  const time = Date.UTC(year, index, day, h, m, Math.min(s, 59));
  // Date.UTC rolls 31 Feb over into March: such a date is not valid.
  return new Date(time).getUTCDate() === day ? time : undefined;
}

/**
 * Parses an HTTP-date (RFC 9110 section 5.6.7) in any of its three formats (IMF-fixdate, the
 * obsolete RFC 850 and asctime forms) to milliseconds since the epoch; anything else, including a
 * list of dates, is `undefined`. A two-digit RFC 850 year more than 50 years ahead is read as the
 * most recent past year with those digits.
 *
 * @example
 * ```ts
 * parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT'); // 784111777000
 * parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT'); // 784111777000
 * parseHttpDate('Sun Nov  6 08:49:37 1994'); // 784111777000
 * parseHttpDate('yesterday'); // undefined
 * ```
 */
export function parseHttpDate(value: string, now: number = Date.now()): number | undefined {
  const text = value.trim();
  let match = IMF_FIXDATE.exec(text);
  if (match) {
    const [, d, mon, y, h, m, s] = match as unknown as string[];
    return utc(Number(y), mon!, Number(d), Number(h), Number(m), Number(s));
  }
  match = RFC850.exec(text);
  if (match) {
    const [, d, mon, yy, h, m, s] = match as unknown as string[];
    const thisYear = new Date(now).getUTCFullYear();
    let year = Math.floor(thisYear / 100) * 100 + Number(yy);
    if (year > thisYear + 50) year -= 100;
    return utc(year, mon!, Number(d), Number(h), Number(m), Number(s));
  }
  match = ASCTIME.exec(text);
  if (match) {
    const [, mon, d, h, m, s, y] = match as unknown as string[];
    return utc(Number(y), mon!, Number(d!.trim()), Number(h), Number(m), Number(s));
  }
  return undefined;
}

/**
 * What the server holds for the target resource: its current strong `etag` (a full field value
 * such as `"v7"`) and `lastModified`. `undefined` in place of validators means the resource has no
 * current representation.
 *
 * @example
 * ```ts
 * const validators: Validators = { etag: '"v7"', lastModified: new Date('2026-01-02T03:04:05Z') };
 * ```
 */
export interface Validators {
  /** The current strong entity tag, as a field value (`"v7"`). */
  readonly etag?: string | undefined;
  /** When the resource last changed (a `Date` or epoch milliseconds). */
  readonly lastModified?: Date | number | undefined;
}

/**
 * Input of {@link evaluatePreconditions}: the method, the four request fields as received, and the
 * current validators (`undefined`: no current representation).
 *
 * @example
 * ```ts
 * const input: PreconditionInput = { method: 'PUT', ifMatch: '"v7"', current: { etag: '"v7"' } };
 * ```
 */
export interface PreconditionInput {
  /** The request method. */
  readonly method: string;
  /** The `If-Match` field value, if sent. */
  readonly ifMatch?: string | undefined;
  /** The `If-None-Match` field value, if sent. */
  readonly ifNoneMatch?: string | undefined;
  /** The `If-Modified-Since` field value, if sent. */
  readonly ifModifiedSince?: string | undefined;
  /** The `If-Unmodified-Since` field value, if sent. */
  readonly ifUnmodifiedSince?: string | undefined;
  /** The current validators; `undefined` when the resource has no current representation. */
  readonly current: Validators | undefined;
  /** Answer 428 to an unsafe request on an existing resource without If-Match or If-Unmodified-Since. */
  readonly requirePrecondition?: boolean | undefined;
}

/**
 * The outcome: proceed (`conditional` says whether any precondition was evaluated), 304 with the
 * validator headers, or a 412 `precondition_failed` / 428 `precondition_required` error.
 *
 * @example
 * ```ts
 * const result: PreconditionResult = { outcome: 'proceed', conditional: true };
 * ```
 */
export type PreconditionResult =
  | { readonly outcome: 'proceed'; readonly conditional: boolean }
  | {
      readonly outcome: 'not-modified';
      readonly status: 304;
      readonly headers: Readonly<Record<string, string>>;
    }
  | { readonly outcome: 'failed'; readonly status: 412 | 428; readonly error: HttpError };

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);

function strongMatch(list: EntityTagList, current: Validators | undefined): boolean {
  if (current === undefined) return false;
  if (list.any) return true;
  const tag = current.etag === undefined ? undefined : parseEntityTags(current.etag).tags[0];
  if (tag === undefined || tag.weak) return false;
  return list.tags.some((t) => !t.weak && t.opaque === tag.opaque);
}

function weakMatch(list: EntityTagList, current: Validators | undefined): boolean {
  if (current === undefined) return false;
  if (list.any) return true;
  const tag = current.etag === undefined ? undefined : parseEntityTags(current.etag).tags[0];
  return tag !== undefined && list.tags.some((t) => t.opaque === tag.opaque);
}

/** Last-Modified in whole seconds (HTTP-dates have no finer resolution), or undefined. */
function modifiedSeconds(current: Validators | undefined): number | undefined {
  const value = current?.lastModified;
  if (value === undefined) return undefined;
  const ms = typeof value === 'number' ? value : value.getTime();
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : undefined;
}

function failed(header: string): PreconditionResult {
  return {
    outcome: 'failed',
    status: 412,
    error: new HttpError('precondition_failed', { params: { header } }),
  };
}

function notModified(current: Validators | undefined): PreconditionResult {
  const headers: Record<string, string> = {};
  if (current?.etag !== undefined) headers['ETag'] = current.etag;
  const seconds = modifiedSeconds(current);
  if (seconds !== undefined) headers['Last-Modified'] = new Date(seconds * 1000).toUTCString();
  return { outcome: 'not-modified', status: 304, headers };
}

/**
 * Evaluates the preconditions of a request in the order of RFC 9110 section 13.2.2:
 * 1. If-Match (strong comparison; `*` needs a current representation) → 412 when false;
 * 2. else If-Unmodified-Since (ignored when not a valid HTTP-date or without Last-Modified) → 412;
 * 3. If-None-Match (weak comparison) → 304 for GET/HEAD, 412 otherwise, when false;
 * 4. else, for GET/HEAD, If-Modified-Since → 304 when not modified since.
 * With `requirePrecondition`, an unsafe method on an existing resource that carries neither
 * If-Match nor a valid If-Unmodified-Since is a 428 `precondition_required` (RFC 6585 section 3).
 * Call it only when the request would otherwise succeed: a 404 or 410 comes first (section 13.2.1).
 *
 * @example
 * ```ts
 * evaluatePreconditions({ method: 'PUT', ifMatch: '"wrong"', current: { etag: '"v7"' } });
 * // { outcome: 'failed', status: 412, error: HttpError precondition_failed }
 * evaluatePreconditions({ method: 'GET', ifNoneMatch: 'W/"v7"', current: { etag: '"v7"' } });
 * // { outcome: 'not-modified', status: 304, headers: { ETag: '"v7"' } }
 * ```
 */
export function evaluatePreconditions(input: PreconditionInput): PreconditionResult {
  const { current } = input;
  const method = input.method.toUpperCase();
  const read = method === 'GET' || method === 'HEAD';
  let conditional = false;
  // Whether a precondition guards against lost updates (what requirePrecondition asks for).
  let guarded = false;
  if (input.ifMatch !== undefined) {
    conditional = true;
    guarded = true;
    if (!strongMatch(parseEntityTags(input.ifMatch), current)) return failed('If-Match');
  } else if (input.ifUnmodifiedSince !== undefined) {
    const date = parseHttpDate(input.ifUnmodifiedSince);
    const modified = modifiedSeconds(current);
    if (date !== undefined && modified !== undefined) {
      conditional = true;
      guarded = true;
      if (modified > Math.floor(date / 1000)) return failed('If-Unmodified-Since');
    }
  }
  if (input.ifNoneMatch !== undefined) {
    if (weakMatch(parseEntityTags(input.ifNoneMatch), current)) {
      return read ? notModified(current) : failed('If-None-Match');
    }
    conditional = true;
  } else if (read && input.ifModifiedSince !== undefined) {
    const date = parseHttpDate(input.ifModifiedSince);
    const modified = modifiedSeconds(current);
    if (date !== undefined && modified !== undefined && modified <= Math.floor(date / 1000)) {
      return notModified(current);
    }
  }
  if (input.requirePrecondition && !guarded && !SAFE.has(method) && current !== undefined) {
    return {
      outcome: 'failed',
      status: 428,
      error: new HttpError('precondition_required', {
        params: { headers: 'If-Match or If-Unmodified-Since' },
      }),
    };
  }
  return { outcome: 'proceed', conditional };
}

/**
 * What a conditional request that may proceed found: whether a precondition was evaluated (a write
 * should then apply only to the version checked) and the validators it used. Each adapter's
 * `getPreconditions` returns it.
 * @example
 * ```ts
 * const state: PreconditionState = { conditional: true, current: { etag: '"v7"' } };
 * ```
 */
export interface PreconditionState {
  /** Whether a precondition was evaluated (and passed). */
  readonly conditional: boolean;
  /** The validators the preconditions were evaluated against. */
  readonly current: Validators | undefined;
}

/** What an adapter's `conditional()` does: fail, answer 304, or proceed; with the headers to set first. */
type PreconditionStep =
  | { readonly outcome: 'failed'; readonly error: HttpError }
  | { readonly outcome: 'not-modified'; readonly headers: Readonly<Record<string, string>> }
  | {
      readonly outcome: 'proceed';
      readonly headers: Readonly<Record<string, string>>;
      readonly state: PreconditionState;
    };

/**
 * The whole of an adapter's `conditional()` but reading and writing: evaluates the request's four
 * precondition headers (read through `header`, lower-case names) against `current`, and gives the
 * validator headers to set (a GET or HEAD that proceeds carries `ETag` and `Last-Modified`, so
 * `represent` keeps this ETag). Shared by the adapters; not part of the public API.
 */
export function checkPreconditions(
  method: string,
  header: (name: string) => string | undefined,
  current: Validators | undefined,
  requirePrecondition: boolean,
): PreconditionStep {
  const result = evaluatePreconditions({
    method,
    ifMatch: header('if-match'),
    ifNoneMatch: header('if-none-match'),
    ifModifiedSince: header('if-modified-since'),
    ifUnmodifiedSince: header('if-unmodified-since'),
    current,
    requirePrecondition,
  });
  if (result.outcome === 'failed') return result;
  if (result.outcome === 'not-modified') return result;
  const headers: Record<string, string> = {};
  if (current !== undefined && (method === 'GET' || method === 'HEAD')) {
    if (current.etag !== undefined) headers['ETag'] = current.etag;
    if (current.lastModified !== undefined)
      headers['Last-Modified'] = new Date(current.lastModified).toUTCString();
  }
  return { outcome: 'proceed', headers, state: { conditional: result.conditional, current } };
}

/**
 * Input of {@link isNotModified}: the request's method and its `If-None-Match` /
 * `If-Modified-Since` as received, the status the response would have, and the validators it
 * carries (`etag` and `lastModified` as field values).
 *
 * @example
 * ```ts
 * const input: NotModifiedInput = { method: 'GET', status: 200, ifNoneMatch: 'W/"v7"', etag: '"v7"' };
 * ```
 */
export interface NotModifiedInput {
  /** The request method. */
  readonly method: string;
  /** The status the response would have without the conditional request fields. */
  readonly status: number;
  /** The request's `If-None-Match` field value, if sent. */
  readonly ifNoneMatch?: string | undefined;
  /** The request's `If-Modified-Since` field value, if sent. */
  readonly ifModifiedSince?: string | undefined;
  /** The response's `ETag` field value, if it has one. */
  readonly etag?: string | undefined;
  /** The response's `Last-Modified` field value, if it has one. */
  readonly lastModified?: string | undefined;
}

/**
 * Whether a response about to be sent becomes a 304 (RFC 9110 sections 13.1.2, 13.1.3, 13.2.2 and
 * 15.4.5): only a GET or HEAD that would be answered 200; then If-None-Match is compared weakly
 * with the response's `ETag` (`*` matches), and only without If-None-Match is If-Modified-Since
 * compared with its `Last-Modified`. The request's `Cache-Control: no-cache` plays no part: it is a
 * directive for caches (RFC 9111 section 5.2.1.4), and fetch adds it to every request it revalidates.
 * What every adapter's `represent` asks before sending.
 *
 * @example
 * ```ts
 * isNotModified({ method: 'GET', status: 200, ifNoneMatch: 'W/"v7"', etag: '"v7"' }); // true
 * isNotModified({ method: 'POST', status: 200, ifNoneMatch: '*', etag: '"v7"' }); // false
 * ```
 */
export function isNotModified(input: NotModifiedInput): boolean {
  const method = input.method.toUpperCase();
  if (input.status !== 200 || (method !== 'GET' && method !== 'HEAD')) return false;
  if (input.ifNoneMatch === undefined && input.ifModifiedSince === undefined) return false;
  const lastModified = input.lastModified === undefined ? undefined : parseHttpDate(input.lastModified);
  return (
    evaluatePreconditions({
      method,
      ifNoneMatch: input.ifNoneMatch,
      ifModifiedSince: input.ifModifiedSince,
      current: { etag: input.etag, lastModified },
    }).outcome === 'not-modified'
  );
}

/** A field value as one string: several lines of a field (an array, as a record may hold them) joined with `, `. */
const fieldValue = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : Array.isArray(value) ? value.join(', ') : undefined;

/**
 * Whether a response a route is about to send becomes a 304, read from the headers themselves:
 * {@link isNotModified} with the request's `If-None-Match` and `If-Modified-Since` taken from
 * `requestHeaders` (lower-case names, as Node, Express and Fastify hold them; a field given as several
 * lines is joined with `, `) and the response's own `ETag` and `Last-Modified` read through
 * `responseHeader` (a value that is not a string counts as absent). Only a GET or HEAD answered 200
 * can become 304; `If-None-Match` (weak comparison, `*` matching any current representation) takes
 * precedence over `If-Modified-Since` (RFC 9110 section 13.2.2), and the request's
 * `Cache-Control: no-cache` plays no part. `responseHeader` is called once, and only for a request that
 * carries one of the two fields and a 200. What every adapter's `notModified` asks, for routes that send
 * their own body and validators rather than through `represent`.
 *
 * @example
 * ```ts
 * const etag = '"v7"';
 * isNotModifiedResponse('GET', 200, { 'if-none-match': 'W/"v7"' }, () => etag); // true
 * isNotModifiedResponse('GET', 404, { 'if-none-match': '*' }, () => etag); // false
 * ```
 */
export function isNotModifiedResponse(
  method: string,
  status: number,
  requestHeaders: Readonly<Record<string, string | readonly string[] | undefined>>,
  responseHeader: (name: 'etag' | 'last-modified') => unknown,
): boolean {
  if (status !== 200) return false;
  const ifNoneMatch = fieldValue(requestHeaders['if-none-match']);
  const ifModifiedSince = fieldValue(requestHeaders['if-modified-since']);
  if (ifNoneMatch === undefined && ifModifiedSince === undefined) return false;
  // Only one validator is compared: the ETag when If-None-Match is present, else Last-Modified.
  const byTag = ifNoneMatch !== undefined;
  const read = responseHeader(byTag ? 'etag' : 'last-modified');
  const validator = typeof read === 'string' ? read : undefined;
  return isNotModified({
    method,
    status,
    ifNoneMatch,
    ifModifiedSince,
    ...(byTag ? { etag: validator } : { lastModified: validator }),
  });
}
