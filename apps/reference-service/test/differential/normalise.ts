/**
 * Turns what one service answered into a form that can be compared across services: values that
 * differ per service or per moment (credentials, ids, request ids, dates, ETags, cursors, signing
 * keys) become named placeholders; header names are lower-cased and sorted (RFC 9110 5.1 and 5.3:
 * names are case-insensitive and the order of different names carries no meaning). Everything else
 * — status line, every header value, the body byte for byte — is compared as it came.
 */
import type { WireResponse, WireResult } from './wire.js';

/** A response ready for comparison. */
interface NormalResponse {
  readonly status: string;
  readonly headers: readonly (readonly [string, string])[];
  readonly body: string;
}

/** A connection's answers ready for comparison. */
export interface NormalResult {
  readonly end: WireResult['end'];
  readonly rest: number;
  readonly responses: readonly NormalResponse[];
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const ISO_TIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})/g;
const JWT = /eyJ[\w-]+\.eyJ[\w-]+\.[\w-]+/g;
const CURSOR = /cursor=[\w%-]+/g;
const XML_CURSOR = /<((?:next|prev)_cursor)>[^<]*</g;

/** Header values that are per moment or per service whatever the request. */
const VOLATILE_HEADERS: Readonly<Record<string, (value: string) => string>> = {
  date: () => '<date>',
  'last-modified': () => '<date>',
  'x-request-id': () => '<request-id>',
  // A sealed session cookie (a fresh IV and jti each time) lasts until its token's exp: both per moment.
  'set-cookie': (value) =>
    value
      .replace(/=[\w-]+\.\.[\w-]+\.[\w-]+\.[\w-]+;/, '=<sealed>;')
      .replace(/Max-Age=[1-9]\d*/, 'Max-Age=<seconds>'),
  etag: (value) => (value.startsWith('W/') ? 'W/"<etag>"' : '"<etag>"'),
};

/** JSON members whose values are per service (signing keys, opaque tokens). */
const VOLATILE_MEMBERS = new Set([
  'request_id',
  'refresh_token',
  'kid',
  'x',
  'y',
  'jti',
  'next_cursor',
  'prev_cursor',
]);

/** Replaces every per-service value in `text`: captured values by name, then generic shapes. */
function scrub(text: string, values: readonly (readonly [string, string])[]): string {
  let out = text;
  for (const [name, value] of values) if (value !== '') out = out.split(value).join(`{{${name}}}`);
  return out
    .replace(JWT, '<jwt>')
    .replace(UUID, '<uuid>')
    .replace(ISO_TIME, '<time>')
    .replace(CURSOR, 'cursor=<cursor>')
    .replace(XML_CURSOR, '<$1><cursor><');
}

function scrubJson(value: unknown, values: readonly (readonly [string, string])[]): unknown {
  if (typeof value === 'string') return scrub(value, values);
  if (Array.isArray(value)) return value.map((item) => scrubJson(item, values));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, member] of Object.entries(value))
      out[key] =
        VOLATILE_MEMBERS.has(key) && typeof member === 'string' ? `<${key}>` : scrubJson(member, values);
    return out;
  }
  return value;
}

/** Prometheus text: the series (names and labels) in order, without values. */
function metricSeries(text: string): string {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#') && !/^(process|nodejs)_/.test(line))
    .map((line) => line.replace(/ [^ ]+$/, ''))
    .join('\n');
}

function normalBody(
  response: WireResponse,
  values: readonly (readonly [string, string])[],
  mode?: 'metrics',
): string {
  const text = response.body.toString('utf8');
  if (mode === 'metrics') return metricSeries(text);
  const type = response.headers.find(([name]) => name.toLowerCase() === 'content-type')?.[1] ?? '';
  if (/json/i.test(type)) {
    try {
      // Key order is kept: the comparison is of what was sent, after the per-service values.
      return JSON.stringify(scrubJson(JSON.parse(text), values));
    } catch {
      return scrub(text, values);
    }
  }
  return scrub(text, values);
}

/**
 * What each rate-limit partition had left after the previous answer, per service: a `RateLimit`
 * header is compared as what this request used (`r` before minus `r` now), so one request that is
 * not counted shows as one difference rather than shifting every later answer.
 */
export type Budgets = Map<string, number>;

function rateLimit(value: string, policy: string | undefined, budgets: Budgets): string {
  const partition = /pk=(:[^:]*:)/.exec(policy ?? '')?.[1] ?? '';
  const quota = Number(/q=(\d+)/.exec(policy ?? '')?.[1]);
  const remaining = Number(/r=(\d+)/.exec(value)?.[1]);
  const before = budgets.get(partition);
  budgets.set(partition, remaining);
  // A window that started again since the previous answer (each service's starts at its own
  // moment) counts from the full quota.
  const used =
    before === undefined ? undefined : before >= remaining ? before - remaining : quota - remaining;
  return (
    value
      .replace(/r=\d+/, used === undefined ? 'r=<first>' : `used=${used}`)
      // Seconds until the window resets: depends on when each service started.
      .replace(/t=\d+/, 't=<t>')
  );
}

/**
 * The comparable form of `result`. `values` are this service's per-service values by name
 * (credentials, captured ids and ETags), longest first; `budgets` its rate-limit state.
 */
export function normalise(
  result: WireResult,
  values: readonly (readonly [string, string])[],
  budgets: Budgets,
  mode?: 'metrics',
): NormalResult {
  return {
    end: result.end,
    rest: result.rest,
    responses: result.responses.map((response) => {
      const policy = response.headers.find(([name]) => name.toLowerCase() === 'ratelimit-policy')?.[1];
      const headers = response.headers
        .map(([name, value]): [string, string] => {
          const lower = name.toLowerCase();
          if (lower === 'ratelimit') return [lower, rateLimit(value, policy, budgets)];
          const volatile = VOLATILE_HEADERS[lower];
          return [lower, volatile ? volatile(value) : scrub(value, values)];
        })
        // Stable sort: repeated lines of one name keep their order (RFC 9110 5.3).
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      const body = normalBody(response, values, mode);
      return {
        status: response.statusLine,
        // A metrics body's length changes with the values left out of the comparison.
        headers: mode === 'metrics' ? headers.filter(([name]) => name !== 'content-length') : headers,
        body,
      };
    }),
  };
}

/** `result` as HTTP-like text, for reading a difference. */
export function render(result: NormalResult): string {
  const parts = result.responses.map(
    (r) =>
      `${r.status}\n${r.headers.map(([n, v]) => `${n}: ${v.length > 300 ? `${v.slice(0, 300)}…(${v.length})` : v}`).join('\n')}\n\n${r.body.length > 1500 ? `${r.body.slice(0, 1500)}…(${r.body.length})` : r.body}`,
  );
  return `${parts.join('\n----\n')}\n[connection ${result.end}${result.rest ? `, ${result.rest} bytes left over` : ''}]`;
}
