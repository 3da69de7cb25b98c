/**
 * One behaviour table for @plumbline/query-parser, run against the core and the Express 5,
 * Express 4, Fastify 5 and Hono adapters: same request in, same status, headers and body out.
 * Framework-forced differences (Fastify's body parser and its 415/413, Hono's lack of one) must
 * come out as the same problems.
 */
import { coreOutcome, describeAdapters, frameworkRunners, type HttpRequestSpec } from '@plumbline/test-utils';
import { expect } from 'vitest';
import {
  applyToArray,
  buildPage,
  countInArray,
  parseCollectionRequest,
  parseSearchText,
} from '../src/index.js';
import { collectionApps } from './apps.js';
import { tasks } from './fixtures.js';

const rows = Array.from({ length: 12 }, (_, i) => ({
  id: i + 1,
  name: `task ${String(i + 1).padStart(2, '0')}`,
  status: i % 2 === 0 ? 'active' : 'done',
  priority: i % 4,
  created_at: new Date(Date.UTC(2024, 0, 1, i)).toISOString(),
  project_id: (i % 3) + 1,
  password_hash: 'never-sent',
}));

interface Case {
  readonly name: string;
  readonly request: HttpRequestSpec;
  readonly status: number;
  /** For 200: the page the core builds for this request (ids, page, links). */
  readonly ids?: readonly number[];
  readonly page?: Record<string, unknown>;
  readonly links?: Record<string, string>;
  /** For errors: the code; the body must equal the core's problem for the same input. */
  readonly code?: string;
  /** Core input, when the core alone can answer the case (no HTTP-only behaviour). */
  readonly core?: {
    readonly method: string;
    readonly query: string;
    readonly body?: string;
    readonly scope?: Record<string, unknown>;
  };
  readonly headers?: Readonly<Record<string, string | undefined>>;
}

const get = (path: string, headers: Record<string, string> = {}): HttpRequestSpec => ({ path, headers });
const post = (body: string, type?: string): HttpRequestSpec => ({
  method: 'POST',
  path: '/tasks/search',
  headers: type === undefined ? {} : { 'Content-Type': type },
  body,
});
const queryCase = (name: string, query: string, status: number, code: string): Case => ({
  name,
  request: get(`/tasks?${query}`),
  status,
  code,
  core: { method: 'GET', query },
});

const SEARCH = '{"filter":{"status":"done","id":{"in":[2,4,10,12]}},"sort":["-id"],"limit":2}';
// Its links would carry `name=<maxQueryLength x>`; and 101 values, one over maxParameters.
const LONG_SEARCH = JSON.stringify({ filter: { name: 'x'.repeat(tasks.maxQueryLength) } });
const MANY_VALUES = JSON.stringify({ filter: { tag: Array.from({ length: 101 }, (_, i) => `t${i}`) } });
const cases: Case[] = [
  {
    name: 'filters, sort and offset pagination',
    request: get('/tasks?status=active&sort=name:desc&limit=2&offset=2'),
    core: { method: 'GET', query: 'status=active&sort=name:desc&limit=2&offset=2' },
    status: 200,
    ids: [7, 5],
    page: { limit: 2, offset: 2, has_more: true, next_cursor: expect.any(String) },
    links: {
      self: '/tasks?status=active&sort=-name&limit=2&offset=2',
      first: '/tasks?status=active&sort=-name&limit=2&offset=0',
      prev: '/tasks?status=active&sort=-name&limit=2&offset=0',
      next: '/tasks?status=active&sort=-name&limit=2&offset=4',
    },
    headers: { vary: 'Prefer', 'preference-applied': undefined },
  },
  {
    name: 'page and size with a total (Prefer: count=exact)',
    request: get('/tasks?priority[gte]=2&sort=id&page=2&size=2', { Prefer: 'count=exact' }),
    core: { method: 'GET', query: 'priority[gte]=2&sort=id&page=2&size=2' },
    status: 200,
    ids: [7, 8],
    page: { page: 2, size: 2, has_more: true, total: 6, next_cursor: expect.any(String) },
    links: {
      self: '/tasks?priority[gte]=2&sort=id&page=2&size=2',
      first: '/tasks?priority[gte]=2&sort=id&page=1&size=2',
      prev: '/tasks?priority[gte]=2&sort=id&page=1&size=2',
      next: '/tasks?priority[gte]=2&sort=id&page=3&size=2',
      last: '/tasks?priority[gte]=2&sort=id&page=3&size=2',
    },
    headers: { 'preference-applied': 'count=exact' },
  },
  {
    name: 'parent-scoped collection, scope never in links',
    request: get('/projects/2/tasks?sort=-id&fields=name'),
    core: { method: 'GET', query: 'sort=-id&fields=name', scope: { project_id: '2' } },
    status: 200,
    ids: [11, 8, 5, 2],
    page: { limit: 20, offset: 0, has_more: false },
    links: {
      self: '/projects/2/tasks?sort=-id&limit=20&offset=0&fields=id,name',
      first: '/projects/2/tasks?sort=-id&limit=20&offset=0&fields=id,name',
    },
  },
  {
    name: 'search with + as a space',
    request: get('/tasks?q=TASK+1&sort=id'),
    core: { method: 'GET', query: 'q=TASK+1&sort=id' },
    status: 200,
    ids: [10, 11, 12],
    page: { limit: 20, offset: 0, has_more: false },
    links: {
      self: '/tasks?q=TASK%201&sort=id&limit=20&offset=0',
      first: '/tasks?q=TASK%201&sort=id&limit=20&offset=0',
    },
  },
  {
    name: 'POST /tasks/search takes the query as a JSON body',
    request: post(SEARCH, 'application/json'),
    core: { method: 'POST', query: '', body: SEARCH },
    status: 200,
    ids: [12, 10],
    page: { limit: 2, offset: 0, has_more: true, next_cursor: expect.any(String) },
    links: {
      self: '/tasks?id[in]=2,4,10,12&status=done&sort=-id&limit=2&offset=0',
      first: '/tasks?id[in]=2,4,10,12&status=done&sort=-id&limit=2&offset=0',
      next: '/tasks?id[in]=2,4,10,12&status=done&sort=-id&limit=2&offset=2',
    },
  },
  {
    name: 'POST search with a +json type and a charset',
    request: post('{"sort":"id","limit":1}', 'application/vnd.api+json; charset=utf-8'),
    core: { method: 'POST', query: '', body: '{"sort":"id","limit":1}' },
    status: 200,
    ids: [1],
    page: { limit: 1, offset: 0, has_more: true, next_cursor: expect.any(String) },
    links: {
      self: '/tasks?sort=id&limit=1&offset=0',
      first: '/tasks?sort=id&limit=1&offset=0',
      next: '/tasks?sort=id&limit=1&offset=1',
    },
  },
  ...(['text/plain', 'application/x-www-form-urlencoded', 'application/xml'] as const).map((type) => ({
    name: `POST search as ${type} → 415 with Accept-Post`,
    request: post('status=done', type),
    status: 415,
    code: 'unsupported_media_type',
    headers: { 'accept-post': 'application/json' },
  })),
  {
    name: 'POST search without a Content-Type → 415',
    request: post('{}'),
    status: 415,
    code: 'unsupported_media_type',
    headers: { 'accept-post': 'application/json' },
  },
  {
    name: 'POST search with broken JSON → 400 malformed_json',
    request: post('{"filter":', 'application/json'),
    status: 400,
    code: 'malformed_json',
  },
  {
    name: 'POST search with an invalid filter value → 400 invalid_value, pointer',
    request: post('{"filter":{"status":"nope"}}', 'application/json'),
    core: { method: 'POST', query: '', body: '{"filter":{"status":"nope"}}' },
    status: 400,
    code: 'invalid_value',
  },
  {
    name: 'POST search with a JSON array → 400 invalid_value',
    request: post('[1]', 'application/json'),
    core: { method: 'POST', query: '', body: '[1]' },
    status: 400,
    code: 'invalid_value',
  },
  {
    name: 'POST search with a __proto__ member is just an unknown member',
    request: post('{"__proto__":{"admin":true},"limit":1}', 'application/json'),
    core: { method: 'POST', query: '', body: '{"__proto__":{"admin":true},"limit":1}' },
    status: 400,
    code: 'unknown_parameter',
  },
  {
    name: 'POST search over 1 MiB → 413 payload_too_large',
    request: post(`{"q":"${'a'.repeat(1024 * 1024)}"}`, 'application/json'),
    status: 413,
    code: 'payload_too_large',
  },
  {
    name: 'POST search whose page links would be over maxQueryLength → 400 query_too_long',
    request: post(LONG_SEARCH, 'application/json'),
    core: { method: 'POST', query: '', body: LONG_SEARCH },
    status: 400,
    code: 'query_too_long',
  },
  {
    name: 'POST search with more values than maxParameters → 400 query_too_long',
    request: post(MANY_VALUES, 'application/json'),
    core: { method: 'POST', query: '', body: MANY_VALUES },
    status: 400,
    code: 'query_too_long',
  },
  {
    name: 'a parent id that cannot exist → 404 not_found',
    request: get('/projects/abc/tasks'),
    core: { method: 'GET', query: '', scope: { project_id: 'abc' } },
    status: 404,
    code: 'not_found',
  },
  queryCase('__proto__[x] is an unknown parameter', '__proto__[x]=1', 400, 'unknown_parameter'),
  queryCase('constructor[prototype][x] is unknown', 'constructor[prototype][x]=1', 400, 'unknown_parameter'),
  queryCase('credentials in the query are unknown parameters', 'access_token=abc', 400, 'unknown_parameter'),
  queryCase('a repeated limit', 'limit=1&limit=2', 400, 'duplicate_parameter'),
  queryCase('a hidden field is unknown', 'password_hash=x', 400, 'unknown_parameter'),
  queryCase('sorting by a hidden field', 'sort=password_hash', 400, 'sort_field_not_allowed'),
  queryCase('a Mongo-style operator', 'status[$ne]=done', 400, 'operator_not_allowed'),
  queryCase('limit in exponent form', 'limit=1e3', 400, 'invalid_pagination'),
  queryCase('limit over the maximum', 'limit=101', 400, 'limit_too_large'),
  queryCase('page and offset together', 'page=2&offset=4', 400, 'conflicting_pagination'),
  queryCase('a tampered cursor', 'cursor=eyJ2IjpbXX0.AAAA&limit=2', 400, 'invalid_cursor'),
  queryCase('invalid UTF-8 in a value', 'name=%FF', 400, 'invalid_value'),
  queryCase('a query over 2 KiB', `q=${'x'.repeat(2047)}`, 400, 'query_too_long'),
  queryCase(
    'a query string over maxQueryLength once written canonically (+ is %20 in links)',
    `name=${'+'.repeat(Math.ceil(tasks.maxQueryLength / 3))}`,
    400,
    'query_too_long',
  ),
  queryCase('several problems at once', 'sort=nope&limit=0&colour=red', 400, 'validation_failed'),
  {
    name: 'getCollectionQuery for another collection is a wiring bug → 500',
    request: get('/wrong'),
    status: 500,
    code: 'internal_error',
  },
  {
    name: 'getCollectionQuery without the middleware → 500',
    request: get('/none'),
    status: 500,
    code: 'internal_error',
  },
  {
    name: 'sendPage keeps Link and Vary set earlier; no Preference-Applied without a total',
    request: get('/linked', { Prefer: 'count=exact' }),
    status: 200,
    ids: [],
    page: { limit: 20, offset: 0, has_more: false },
    links: {
      self: '/linked?sort=-created_at&limit=20&offset=0',
      first: '/linked?sort=-created_at&limit=20&offset=0',
    },
    headers: {
      link: '</docs/v1>; rel="deprecation", </linked?sort=-created_at&limit=20&offset=0>; rel="self", </linked?sort=-created_at&limit=20&offset=0>; rel="first"',
      vary: 'Accept, Prefer',
      'preference-applied': undefined,
    },
  },
];

// What the core answers for the case's input, as the error handler would render it (minus the
// request-dependent `instance` and `request_id`).
function coreAnswer(c: Case) {
  return coreOutcome(() => {
    const core = c.core!;
    const query = parseCollectionRequest(tasks, {
      method: core.method,
      query: core.query,
      prefer: c.request.headers?.['Prefer'] as string | undefined,
      body: core.body === undefined ? undefined : parseSearchText(core.body),
      scope: core.scope,
    });
    const total = query.count ? countInArray(query, rows) : undefined;
    const baseUrl = core.scope ? (c.request.path ?? '').split('?')[0]! : '/tasks';
    return buildPage(query, applyToArray(query, rows), { baseUrl, total }).body;
  });
}

describeAdapters(
  'collection queries on the core, Express 5, Express 4, Fastify 5 and Hono',
  cases,
  {
    core: async (c) =>
      c.core === undefined ? { status: c.status, headers: {}, body: undefined } : coreAnswer(c),
    ...frameworkRunners<Case>(collectionApps(tasks, rows), (c) => c.request),
  },
  async (outcome, c, adapter) => {
    expect(outcome.status).toBe(c.status);
    if (adapter === 'core' && c.core === undefined) return;
    if (c.status === 200) {
      const body = outcome.body as { data: Record<string, unknown>[]; page: unknown; links: unknown };
      expect(body.data.map((r) => r['id'])).toEqual(c.ids);
      expect(body.data.every((r) => !('password_hash' in r))).toBe(true);
      expect(body.page).toEqual(c.page);
      expect(body.links).toEqual(c.links);
      if (adapter === 'core') return;
      expect(outcome.headers['content-type']).toBe('application/json; charset=utf-8');
      const link = Object.entries(c.links ?? {})
        .map(([rel, url]) => `<${url}>; rel="${rel}"`)
        .join(', ');
      expect(outcome.headers['link']).toBe(c.headers?.['link'] ?? link);
      expect(outcome.headers['vary']).toBe(c.headers?.['vary'] ?? 'Prefer');
    } else {
      const body = outcome.body as Record<string, unknown>;
      expect(body['error_code']).toBe(c.code);
      if (c.core !== undefined && adapter !== 'core') {
        const core = (await coreAnswer(c)).body as Record<string, unknown>;
        const { instance: _i, request_id: _r, ...rest } = body;
        expect(rest).toEqual(core);
        expect(body['instance']).toBe((c.request.path ?? '').split('?')[0]);
      }
      if (adapter !== 'core')
        expect(outcome.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      if (c.status >= 500) expect(JSON.stringify(body)).not.toMatch(/getCollectionQuery|at .*\.ts/);
    }
    if (adapter === 'core') return;
    for (const [name, value] of Object.entries(c.headers ?? {})) {
      if (name !== 'link' && name !== 'vary') expect(outcome.headers[name]).toBe(value);
    }
  },
);
