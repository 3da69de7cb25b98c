/**
 * One behaviour table for @plumbline/contract, run in order against Express 5, Express 4, Fastify 5
 * and Hono: the fixture API (declared once in __fixtures__/api.ts) must give the same status,
 * headers and body on every framework, and the handlers must run the same number of times.
 */
import { type AdapterCase, describeAdapters, type Framework, frameworkRunners } from '@plumbline/test-utils';
import { expect } from 'vitest';
import { type Fixture, fixture, frameworkApps, READ_KEY, WRITE_KEY } from './__fixtures__/apps.js';

interface Case extends AdapterCase {
  readonly method?: string;
  readonly path: string;
  /** Request headers; a list is that many header lines. */
  readonly headers?: Record<string, string | readonly string[]>;
  readonly body?: unknown;
  readonly raw?: string;
  readonly status: number;
  /** Headers that must have exactly these values (lower-case names); `null`: absent. */
  readonly expectHeaders?: Record<string, string | null>;
  /** The body must contain these members (deep partial match). */
  readonly expectBody?: unknown;
  /** Handler runs of `create` after the case. */
  readonly creates?: number;
  /** Handler runs of `search` after the case. */
  readonly searches?: number;
  /** Response mismatches reported after the case. */
  readonly mismatches?: number;
  /** Keeps the answer's ETag under this name; a request header `${etagOf}<name>` sends it. */
  readonly recordEtag?: string;
}

const read = { 'x-api-key': READ_KEY };
const write = { 'x-api-key': WRITE_KEY };
const json = { ...write, 'content-type': 'application/json' };
const etagOfProject2 = '__etag__';
/** A header value naming an ETag kept by an earlier case's `recordEtag`. */
const etagOf = '__etag_of__:';

const CASES: readonly Case[] = [
  {
    name: 'list without credentials: 401 with a challenge',
    path: '/projects',
    status: 401,
    expectHeaders: { 'www-authenticate': 'Bearer realm="plumbline"' },
    expectBody: { error_code: 'unauthorized', status: 401 },
  },
  {
    name: 'list: a page with links',
    path: '/projects?limit=2',
    headers: read,
    status: 200,
    expectHeaders: {
      link: '</projects?sort=id&limit=2&offset=0>; rel="self", </projects?sort=id&limit=2&offset=0>; rel="first", </projects?sort=id&limit=2&offset=2>; rel="next"',
    },
    expectBody: {
      data: [
        { id: 1, name: 'alpha' },
        { id: 2, name: 'beta' },
      ],
      page: { limit: 2, offset: 0, has_more: true },
    },
  },
  {
    name: 'list: unknown sort field is a 400, not ignored',
    path: '/projects?sort=colour',
    headers: read,
    status: 400,
    expectBody: { error_code: 'sort_field_not_allowed' },
  },
  {
    name: 'list: unknown parameter',
    path: '/projects?colour=red',
    headers: read,
    status: 400,
    expectBody: { error_code: 'unknown_parameter' },
  },
  {
    name: 'list: filter and search',
    path: '/projects?q=alp&budget[lte]=150',
    headers: read,
    status: 200,
    expectBody: { data: [{ id: 1 }], page: { has_more: false } },
  },
  {
    name: 'list: Prefer count=exact gives the total, Preference-Applied and Vary: Prefer',
    path: '/projects?limit=1',
    headers: { ...read, prefer: 'count=exact' },
    status: 200,
    expectHeaders: { 'preference-applied': 'count=exact', vary: 'Accept, Accept-Language, Prefer' },
    expectBody: { page: { limit: 1, offset: 0, has_more: true, total: 3 } },
  },
  {
    name: 'read: 200 with ETag',
    path: '/projects/2',
    headers: read,
    status: 200,
    expectHeaders: {
      etag: etagOfProject2,
      'last-modified': 'Fri, 02 Jan 2026 00:00:00 GMT',
      'content-type': 'application/json; charset=utf-8',
      // The path takes a PATCH: every answer on it advertises the patch formats (RFC 5789 3.1).
      'accept-patch': 'application/merge-patch+json, application/json',
    },
    expectBody: { id: 2, name: 'beta', budget: 200 },
  },
  // Hono drops a HEAD answer's body before its length is known; Express and Fastify send the GET's.
  {
    name: 'read: HEAD is the GET answer without its body, with its Content-Length',
    method: 'HEAD',
    path: '/projects/2',
    headers: read,
    status: 200,
    expectHeaders: {
      etag: etagOfProject2,
      'content-length': '75',
      'content-type': 'application/json; charset=utf-8',
    },
    expectBody: '',
  },
  {
    name: 'read: If-None-Match gives 304',
    path: '/projects/2',
    headers: { ...read, 'if-none-match': etagOfProject2 },
    status: 304,
  },
  {
    name: 'read: XML',
    path: '/projects/2',
    headers: { ...read, accept: 'application/xml' },
    status: 200,
    expectHeaders: { 'content-type': 'application/xml; charset=utf-8' },
  },
  {
    name: 'read: 406 for an unsupported type',
    path: '/projects/2',
    headers: { ...read, accept: 'image/png' },
    status: 406,
    expectBody: { error_code: 'not_acceptable' },
  },
  {
    name: 'read: id that does not fit its schema is 404',
    path: '/projects/abc',
    headers: read,
    status: 404,
    expectBody: { error_code: 'not_found' },
  },
  {
    name: 'read: missing project is 404',
    path: '/projects/99',
    headers: read,
    status: 404,
    expectBody: { error_code: 'not_found' },
  },
  {
    name: 'read: a query parameter on a member is unknown',
    path: '/projects/2?x=1',
    headers: read,
    status: 400,
    expectBody: { error_code: 'unknown_parameter' },
  },
  // Paths match exactly: Express ignores case and a trailing slash, Fastify hands `/projects/` to
  // `/projects/:id` with an empty id. Parameters are decoded the same way everywhere.
  {
    name: 'exact paths: a trailing slash is another path',
    path: '/projects/',
    headers: read,
    status: 404,
    expectBody: { error_code: 'not_found' },
  },
  {
    name: 'exact paths: a trailing slash on a member',
    path: '/projects/2/',
    headers: read,
    status: 404,
    expectBody: { error_code: 'not_found' },
  },
  {
    name: 'exact paths: case matters',
    path: '/PROJECTS',
    headers: read,
    status: 404,
    expectBody: { error_code: 'not_found' },
  },
  {
    name: 'exact paths: another method on a path that is not exact is 404, not 405',
    method: 'PUT',
    path: '/projects/2/',
    headers: write,
    status: 404,
    // Not the member path: no Accept-Patch.
    expectHeaders: { 'accept-patch': null },
    expectBody: { error_code: 'not_found' },
  },
  {
    name: 'path parameters: percent-encoding is decoded',
    path: '/projects/%32',
    headers: read,
    status: 200,
    expectBody: { id: 2 },
  },
  {
    name: 'path parameters: an encoded slash stays in the parameter',
    path: '/projects/2%2F1',
    headers: read,
    status: 404,
    expectBody: { error_code: 'not_found' },
  },
  {
    name: 'path parameters: a percent-encoding that is not UTF-8 is 400',
    path: '/projects/%E0%A4%A',
    headers: read,
    status: 400,
    expectBody: { error_code: 'bad_request' },
  },
  // Fastify's router refuses a parameter over 100 characters with 414 unless the app raises maxParamLength.
  {
    name: 'path parameters: an id of any length reaches its schema',
    path: `/projects/${'1'.repeat(300)}`,
    headers: read,
    status: 404,
    expectBody: { error_code: 'not_found' },
  },
  {
    name: 'create: read-only key is 403',
    method: 'POST',
    path: '/projects',
    headers: { ...json, 'x-api-key': READ_KEY },
    body: { name: 'delta' },
    status: 403,
    expectBody: { error_code: 'insufficient_scope' },
    creates: 0,
  },
  {
    name: 'create: wrong media type is 415 with Accept-Post',
    method: 'POST',
    path: '/projects',
    headers: { ...write, 'content-type': 'text/plain' },
    raw: 'name=delta',
    status: 415,
    expectHeaders: { 'accept-post': 'application/json' },
    creates: 0,
  },
  {
    name: 'create: malformed JSON is 400',
    method: 'POST',
    path: '/projects',
    headers: json,
    raw: '{"name":',
    status: 400,
    expectBody: { error_code: 'malformed_json' },
    creates: 0,
  },
  {
    name: 'create: every invalid field listed with a pointer',
    method: 'POST',
    path: '/projects',
    headers: json,
    body: { name: '', budget: -1, colour: 'red' },
    status: 400,
    expectBody: {
      error_code: 'validation_failed',
      errors: [{ pointer: '#/name' }, { pointer: '#/budget' }, { pointer: '#/colour' }],
    },
    creates: 0,
  },
  // Request bodies are read as express.json reads them (strict JSON, 413, 415) on every framework.
  {
    name: 'create: no body is one invalid value at #',
    method: 'POST',
    path: '/projects',
    headers: json,
    status: 400,
    expectBody: { error_code: 'validation_failed', errors: [{ pointer: '#' }] },
    creates: 0,
  },
  {
    name: 'create: an empty body is no body',
    method: 'POST',
    path: '/projects',
    headers: json,
    raw: '',
    status: 400,
    expectBody: { error_code: 'validation_failed', errors: [{ pointer: '#' }] },
    creates: 0,
  },
  {
    name: 'create: JSON that is not an object or an array is malformed',
    method: 'POST',
    path: '/projects',
    headers: json,
    raw: '"delta"',
    status: 400,
    expectBody: { error_code: 'malformed_json' },
    creates: 0,
  },
  {
    name: 'create: a byte order mark is ignored',
    method: 'POST',
    path: '/projects',
    headers: json,
    raw: '\ufeff{"name":""}',
    status: 400,
    expectBody: { error_code: 'validation_failed', errors: [{ pointer: '#/name' }] },
    creates: 0,
  },
  {
    name: 'create: a __proto__ member is data for the schema, not a parse error',
    method: 'POST',
    path: '/projects',
    headers: json,
    raw: '{"name":"delta","__proto__":{"admin":true}}',
    status: 400,
    expectBody: { error_code: 'validation_failed', errors: [{ pointer: '#/__proto__' }] },
    creates: 0,
  },
  {
    name: 'create: a body over the limit is 413',
    method: 'POST',
    path: '/projects',
    headers: json,
    raw: JSON.stringify({ name: 'x'.repeat(1_100_000) }),
    status: 413,
    expectBody: { error_code: 'payload_too_large' },
    creates: 0,
  },
  {
    name: 'create: a charset other than UTF-8 is 415',
    method: 'POST',
    path: '/projects',
    headers: { ...write, 'content-type': 'application/json; charset=latin1' },
    raw: '{"name":"delta"}',
    status: 415,
    expectBody: { error_code: 'unsupported_media_type' },
    creates: 0,
  },
  {
    name: 'create: a content coding is 415',
    method: 'POST',
    path: '/projects',
    headers: { ...json, 'content-encoding': 'gzip' },
    raw: '{"name":"delta"}',
    status: 415,
    expectBody: { error_code: 'unsupported_media_type' },
    creates: 0,
  },
  // Node keeps the first of two Content-Type lines (Express, Fastify), the Fetch API joins them (Hono).
  {
    name: 'create: two Content-Type lines are 400',
    method: 'POST',
    path: '/projects',
    headers: { ...write, 'content-type': ['application/json', 'text/plain'] },
    raw: '{"name":"delta"}',
    status: 400,
    expectBody: { error_code: 'malformed_request', reason: 'content_type_repeated' },
    creates: 0,
  },
  {
    name: 'create: 201 with Location',
    method: 'POST',
    path: '/projects',
    headers: { ...json, 'idempotency-key': 'k-1' },
    body: { name: 'delta', budget: 5 },
    status: 201,
    expectHeaders: { location: '/projects/4' },
    expectBody: { id: 4, name: 'delta', budget: 5 },
    creates: 1,
  },
  {
    name: 'create: a retry with the same key is replayed, handler not run',
    method: 'POST',
    path: '/projects',
    headers: { ...json, 'idempotency-key': 'k-1' },
    body: { name: 'delta', budget: 5 },
    status: 201,
    expectHeaders: { location: '/projects/4', 'idempotent-replayed': 'true' },
    expectBody: { id: 4 },
    creates: 1,
  },
  {
    name: 'create: same key, other body is 422',
    method: 'POST',
    path: '/projects',
    headers: { ...json, 'idempotency-key': 'k-1' },
    body: { name: 'other' },
    status: 422,
    expectBody: { error_code: 'idempotency_key_reused' },
    creates: 1,
  },
  {
    name: 'create: an invalid body does not consume the key',
    method: 'POST',
    path: '/projects',
    headers: { ...json, 'idempotency-key': 'k-2' },
    body: { name: '' },
    status: 400,
    creates: 1,
  },
  {
    name: 'create: the same key then works',
    method: 'POST',
    path: '/projects',
    headers: { ...json, 'idempotency-key': 'k-2' },
    body: { name: 'epsilon' },
    status: 201,
    expectHeaders: { location: '/projects/5' },
    creates: 2,
  },
  {
    name: 'nested create: key required',
    method: 'POST',
    path: '/projects/1/tasks',
    headers: json,
    body: { title: 'third' },
    status: 400,
    expectBody: { error_code: 'idempotency_key_missing' },
  },
  {
    name: 'nested create: header schema',
    method: 'POST',
    path: '/projects/1/tasks',
    headers: { ...json, 'idempotency-key': 't-1', 'x-trace': 'NOT OK' },
    body: { title: 'third' },
    status: 400,
    expectBody: { error_code: 'validation_failed', errors: [{ header: 'x-trace' }] },
  },
  {
    name: 'nested create: 201 with the default filled',
    method: 'POST',
    path: '/projects/1/tasks',
    headers: { ...json, 'idempotency-key': 't-1' },
    body: { title: 'third' },
    status: 201,
    expectHeaders: { location: '/projects/1/tasks/6' },
    expectBody: { id: 6, project_id: 1, done: false },
  },
  {
    name: 'nested list: scoped to the parent',
    path: '/projects/1/tasks?done=false',
    headers: read,
    status: 200,
    expectBody: { data: [{ id: 1 }, { id: 6 }] },
  },
  { name: 'nested list: missing parent is 404', path: '/projects/77/tasks', headers: read, status: 404 },
  {
    name: 'before: a missing parent wins over the query check',
    path: '/projects/77/tasks?colour=red',
    headers: read,
    status: 404,
    expectBody: { error_code: 'not_found' },
  },
  {
    name: 'before: the query is checked once the parent exists',
    path: '/projects/1/tasks?colour=red',
    headers: read,
    status: 400,
    expectBody: { error_code: 'unknown_parameter' },
  },
  {
    name: 'before: the scopes come first (403 for a missing parent)',
    method: 'POST',
    path: '/projects/77/tasks',
    headers: { ...read, 'content-type': 'application/json', 'idempotency-key': 't-9' },
    body: { title: 'fourth' },
    status: 403,
    expectBody: { error_code: 'insufficient_scope' },
  },
  {
    name: 'before: a missing parent wins over 415',
    method: 'POST',
    path: '/projects/77/tasks',
    headers: { ...write, 'content-type': 'text/plain', 'idempotency-key': 't-9' },
    raw: 'fourth',
    status: 404,
    expectBody: { error_code: 'not_found' },
  },
  {
    name: 'before: a missing parent wins over a malformed body',
    method: 'POST',
    path: '/projects/77/tasks',
    headers: { ...json, 'idempotency-key': 't-9' },
    raw: '{"title":',
    status: 404,
    expectBody: { error_code: 'not_found' },
  },
  {
    name: 'before: a missing parent wins over an invalid body and a missing key',
    method: 'POST',
    path: '/projects/77/tasks',
    headers: json,
    body: { title: 'x' },
    status: 404,
    expectBody: { error_code: 'not_found' },
  },
  {
    name: 'before: an existing parent goes on to 415',
    method: 'POST',
    path: '/projects/1/tasks',
    headers: { ...write, 'content-type': 'text/plain', 'idempotency-key': 't-9' },
    raw: 'fourth',
    status: 415,
    expectBody: { error_code: 'unsupported_media_type' },
  },
  {
    name: 'patch: without If-Match is 428',
    method: 'PATCH',
    path: '/projects/2',
    headers: { ...write, 'content-type': 'application/merge-patch+json' },
    body: { name: 'beta 2' },
    status: 428,
    expectBody: { error_code: 'precondition_required' },
  },
  {
    name: 'patch: stale If-Match is 412',
    method: 'PATCH',
    path: '/projects/2',
    headers: { ...write, 'content-type': 'application/merge-patch+json', 'if-match': '"stale"' },
    body: { name: 'beta 2' },
    status: 412,
    expectBody: { error_code: 'precondition_failed' },
  },
  {
    name: 'patch: current If-Match is 200',
    method: 'PATCH',
    path: '/projects/2',
    headers: { ...write, 'content-type': 'application/merge-patch+json', 'if-match': etagOfProject2 },
    body: { name: 'beta 2' },
    status: 200,
    expectBody: { id: 2, name: 'beta 2' },
  },
  {
    name: 'patch: 415 lists Accept-Patch',
    method: 'PATCH',
    path: '/projects/2',
    headers: { ...write, 'content-type': 'application/xml' },
    raw: '<a/>',
    status: 415,
    expectHeaders: { 'accept-patch': 'application/merge-patch+json, application/json' },
  },
  { name: 'delete: 204', method: 'DELETE', path: '/projects/3', headers: write, status: 204 },
  { name: 'delete: again is 404', method: 'DELETE', path: '/projects/3', headers: write, status: 404 },
  // Fastify's default parsers would read (and refuse) it; no route without a body reads one.
  {
    name: 'delete: a body is not read',
    method: 'DELETE',
    path: '/projects/3',
    headers: json,
    raw: '{',
    status: 404,
    expectBody: { error_code: 'not_found' },
  },
  {
    name: 'other method: 405 with Allow',
    method: 'PUT',
    path: '/projects/2',
    headers: write,
    status: 405,
    expectHeaders: {
      allow: 'GET, PATCH, DELETE, HEAD, OPTIONS',
      'accept-patch': 'application/merge-patch+json, application/json',
    },
  },
  {
    name: 'OPTIONS: 204 with Allow',
    method: 'OPTIONS',
    path: '/projects',
    status: 204,
    // A collection takes no PATCH: no Accept-Patch.
    expectHeaders: { allow: 'GET, POST, HEAD, OPTIONS', 'accept-patch': null },
  },
  {
    name: 'OPTIONS on a path that takes a PATCH: 204 with Allow and Accept-Patch',
    method: 'OPTIONS',
    path: '/projects/2',
    status: 204,
    expectHeaders: {
      allow: 'GET, PATCH, DELETE, HEAD, OPTIONS',
      'accept-patch': 'application/merge-patch+json, application/json',
    },
  },
  {
    name: 'a refusal on a path that takes a PATCH (scope, 403) advertises Accept-Patch too',
    method: 'PATCH',
    path: '/projects/2',
    headers: { ...read, 'content-type': 'application/merge-patch+json' },
    body: { name: 'x' },
    status: 403,
    expectHeaders: { 'accept-patch': 'application/merge-patch+json, application/json' },
    expectBody: { error_code: 'insufficient_scope' },
  },
  // Fastify routes only the methods it knows: the mount makes every method Node parses routable.
  {
    name: 'a method the framework does not know: 405 with Allow',
    method: 'PROPFIND',
    path: '/projects',
    headers: read,
    status: 405,
    expectHeaders: { allow: 'GET, POST, HEAD, OPTIONS' },
    expectBody: { error_code: 'method_not_allowed' },
  },
  {
    name: 'query schema: default applied',
    path: '/stats',
    status: 200,
    expectBody: { projects: 4, average_budget: 76 },
  },
  {
    name: 'query schema: coerced and checked',
    path: '/stats?precision=9',
    status: 400,
    expectBody: { error_code: 'validation_failed', errors: [{ parameter: 'precision' }] },
  },
  {
    name: 'query schema: strict',
    path: '/stats?extra=1',
    status: 400,
    expectBody: { error_code: 'validation_failed' },
  },
  {
    name: 'validation messages: the problem detail in German',
    path: '/stats?precision=x',
    headers: { 'accept-language': 'de' },
    status: 400,
    expectHeaders: { 'content-language': 'de' },
  },
  {
    name: 'a reply that breaks its schema is a 500 without details',
    path: '/broken',
    status: 500,
    expectBody: { error_code: 'internal_error' },
    mismatches: 1,
  },
  {
    name: 'an undeclared status is a 500',
    path: '/undeclared',
    status: 500,
    expectBody: { error_code: 'internal_error' },
    mismatches: 2,
  },
  {
    name: 'context: the mount gives the handler what the app knows of the request',
    path: '/tenant',
    headers: { 'x-tenant': 'acme' },
    status: 200,
    expectBody: { tenant: 'acme' },
  },
  {
    name: 'context: made for every request (the default tenant)',
    path: '/tenant',
    status: 200,
    expectBody: { tenant: 'public' },
  },
  {
    name: 'context: the before step sees it too (403 before the query is checked)',
    path: '/tenant?colour=red',
    headers: { 'x-tenant': 'closed' },
    status: 403,
    expectBody: { error_code: 'forbidden' },
  },
  {
    name: 'context: then the query is checked',
    path: '/tenant?colour=red',
    headers: { 'x-tenant': 'acme' },
    status: 400,
    expectBody: { error_code: 'unknown_parameter' },
  },
  {
    name: 'context: preconditions load, represent and date for the tenant (acme: budget as an object)',
    path: '/tenant/profile',
    headers: { 'x-tenant': 'acme' },
    status: 200,
    recordEtag: 'acme',
    expectHeaders: { etag: etagOfProject2, 'last-modified': 'Thu, 01 Jan 2026 00:00:00 GMT' },
    expectBody: { name: 'plumbline', budget: { amount: 150, currency: 'EUR' } },
  },
  {
    name: "context: acme's ETag is current for acme (304)",
    path: '/tenant/profile',
    headers: { 'x-tenant': 'acme', 'if-none-match': `${etagOf}acme` },
    status: 304,
  },
  {
    name: "context: acme's ETag is not the default tenant's (another representation, 200, no Last-Modified)",
    path: '/tenant/profile',
    headers: { 'if-none-match': `${etagOf}acme` },
    status: 200,
    recordEtag: 'public',
    expectHeaders: { 'last-modified': null },
    expectBody: { name: 'plumbline', budget: 150 },
  },
  {
    name: "context: the default tenant's ETag is current for it (304)",
    path: '/tenant/profile',
    headers: { 'if-none-match': `${etagOf}public` },
    status: 304,
  },
  {
    name: 'context: load sees it (no profile for the tenant nobody: 404)',
    path: '/tenant/profile',
    headers: { 'x-tenant': 'nobody' },
    status: 404,
    expectBody: { error_code: 'not_found' },
  },
  // A search (POST …/search with a collection): the collection query is the JSON body.
  ...searchCases(),
  { name: 'unknown path: 404', path: '/nothing', status: 404 },
];

/** The search route's answers: the query from the body, every bad input, a replay. */
function searchCases(): Case[] {
  const path = '/projects/1/tasks/search';
  const search = { ...read, 'content-type': 'application/json' };
  /** A problem as every adapter answers it (the request id aside). */
  const problem = (status: number, code: string, title: string, detail: string, errors?: unknown[]) => ({
    type: `/errors/${code}`,
    title,
    status,
    detail,
    instance: path,
    error_code: code,
    message: detail,
    ...(errors ? { errors } : {}),
  });
  const bad = (name: string, c: Partial<Case> & Pick<Case, 'status'>): Case => ({
    name: `search: ${name}`,
    method: 'POST',
    path,
    headers: search,
    searches: 0,
    ...c,
  });
  const firstPage = '</projects/1/tasks?sort=-id&limit=1&offset=0>';
  const sortedLinks = `${firstPage}; rel="self", ${firstPage}; rel="first", </projects/1/tasks?sort=-id&limit=1&offset=1>; rel="next"`;
  const third = { id: 6, project_id: 1, title: 'third', done: false };
  const unknownMember =
    'Field "colour" is not supported; supported: filter, q, sort, limit, offset, page, size, cursor, fields.';
  const badSort = 'Sort field "done" is not allowed; allowed: id, title.';
  return [
    bad('without credentials: 401 before the body', {
      headers: { 'content-type': 'application/json' },
      raw: '{',
      status: 401,
      expectHeaders: { 'www-authenticate': 'Bearer realm="plumbline"' },
      expectBody: problem(401, 'unauthorized', 'Unauthorized', 'Authentication is required.'),
    }),
    bad('a missing parent wins over a bad body: 404', {
      path: '/projects/99/tasks/search',
      raw: '{',
      status: 404,
      expectBody: {
        ...problem(404, 'not_found', 'Not Found', 'The requested resource does not exist.'),
        instance: '/projects/99/tasks/search',
      },
    }),
    bad('a query string is 400 unknown_parameter (the query is the body)', {
      path: `${path}?limit=1`,
      body: { limit: 1 },
      status: 400,
      expectBody: problem(
        400,
        'unknown_parameter',
        'Bad Request',
        'Query parameter "limit" is not supported.',
        [
          {
            parameter: 'limit',
            error_code: 'unknown_parameter',
            detail: 'Query parameter "limit" is not supported.',
          },
        ],
      ),
    }),
    bad('another media type is 415 with Accept-Post', {
      headers: { ...read, 'content-type': 'text/plain' },
      raw: 'limit=1',
      status: 415,
      expectHeaders: { 'accept-post': 'application/json' },
      expectBody: problem(
        415,
        'unsupported_media_type',
        'Unsupported Media Type',
        'Content type "text/plain" is not supported; supported: application/json.',
      ),
    }),
    bad('no body and no Content-Type is 415 with Accept-Post', {
      headers: read,
      status: 415,
      expectHeaders: { 'accept-post': 'application/json' },
      expectBody: problem(
        415,
        'unsupported_media_type',
        'Unsupported Media Type',
        'The request body needs a Content-Type; supported: application/json.',
      ),
    }),
    bad('malformed JSON is 400 malformed_json', {
      raw: '{"sort": ',
      status: 400,
      expectBody: problem(400, 'malformed_json', 'Bad Request', 'The request body is not valid JSON.'),
    }),
    bad('an unknown member is 400 unknown_parameter at its pointer', {
      body: { colour: 'red' },
      status: 400,
      expectBody: problem(400, 'unknown_parameter', 'Bad Request', unknownMember, [
        { pointer: '#/colour', error_code: 'unknown_parameter', detail: unknownMember },
      ]),
    }),
    bad('a sort on a field that does not sort is 400', {
      body: { sort: 'done' },
      status: 400,
      expectBody: problem(400, 'sort_field_not_allowed', 'Bad Request', badSort, [
        { pointer: '#/sort', error_code: 'sort_field_not_allowed', detail: badSort },
      ]),
    }),
    bad('a body that is not an object is 400 at #', {
      body: ['id'],
      status: 400,
      expectBody: problem(400, 'invalid_value', 'Bad Request', 'The request body must be a JSON object.', [
        { pointer: '#', error_code: 'invalid_value', detail: 'The request body must be a JSON object.' },
      ]),
    }),
    bad('a body over the limit is 413', {
      raw: JSON.stringify({ q: 'x'.repeat(1_100_000) }),
      status: 413,
      expectBody: problem(
        413,
        'payload_too_large',
        'Payload Too Large',
        'The request body must be at most 1048576 bytes.',
      ),
    }),
    {
      name: 'search: the query from the body, scoped to the parent; links to the collection',
      method: 'POST',
      path,
      headers: { ...search, 'idempotency-key': 's-1' },
      body: { sort: '-id', limit: 1 },
      status: 200,
      expectHeaders: {
        link: sortedLinks,
        vary: 'Accept, Accept-Language, Prefer',
        'idempotent-replayed': null,
        'accept-patch': null,
      },
      expectBody: {
        data: [third],
        page: { limit: 1, offset: 0, has_more: true },
        links: {
          self: '/projects/1/tasks?sort=-id&limit=1&offset=0',
          first: '/projects/1/tasks?sort=-id&limit=1&offset=0',
          next: '/projects/1/tasks?sort=-id&limit=1&offset=1',
        },
      },
      searches: 1,
    },
    {
      name: 'search: the same key and body again is the first answer replayed (the handler does not run)',
      method: 'POST',
      path,
      headers: { ...search, 'idempotency-key': 's-1' },
      body: { sort: '-id', limit: 1 },
      status: 200,
      expectHeaders: { link: sortedLinks, 'idempotent-replayed': 'true' },
      expectBody: { data: [third], page: { limit: 1, offset: 0, has_more: true } },
      searches: 1,
    },
    {
      name: 'search: the same key with another body is 422',
      method: 'POST',
      path,
      headers: { ...search, 'idempotency-key': 's-1' },
      body: { sort: 'id' },
      status: 422,
      expectBody: problem(
        422,
        'idempotency_key_reused',
        'Unprocessable Entity',
        'This idempotency key was already used with a different request.',
      ),
      searches: 1,
    },
    {
      name: 'search: no body is a search without criteria (the first page in the default order)',
      method: 'POST',
      path,
      headers: search,
      status: 200,
      expectHeaders: {
        link: '</projects/1/tasks?sort=id&limit=20&offset=0>; rel="self", </projects/1/tasks?sort=id&limit=20&offset=0>; rel="first"',
      },
      expectBody: {
        data: [{ id: 1 }, { id: 2 }, { id: 6 }],
        page: { limit: 20, offset: 0, has_more: false },
      },
      searches: 2,
    },
    {
      name: 'search: another method on the path is 405 with Allow',
      path,
      headers: read,
      status: 405,
      expectHeaders: { allow: 'POST, OPTIONS' },
      expectBody: problem(
        405,
        'method_not_allowed',
        'Method Not Allowed',
        'Method GET is not allowed here; allowed: POST, OPTIONS.',
      ),
      searches: 2,
    },
  ];
}

function partial(actual: unknown, expected: unknown): void {
  if (Array.isArray(expected)) {
    expect(Array.isArray(actual)).toBe(true);
    expect((actual as unknown[]).length).toBe(expected.length);
    expected.forEach((item, i) => {
      partial((actual as unknown[])[i], item);
    });
  } else if (typeof expected === 'object' && expected !== null) {
    expect(typeof actual).toBe('object');
    for (const [key, value] of Object.entries(expected))
      partial((actual as Record<string, unknown>)[key], value);
  } else expect(actual).toEqual(expected);
}

const fixtures = new Map<Framework, Fixture>();
const fixtureOf = (framework: Framework) => {
  let f = fixtures.get(framework);
  if (!f) {
    f = fixture();
    fixtures.set(framework, f);
  }
  return f;
};
const etags = new Map<string, string>();

describeAdapters(
  'contract: one route table, the same answers on every framework',
  CASES,
  frameworkRunners(frameworkApps(fixtureOf), (c: Case) => {
    const headers: Record<string, string | readonly string[]> = {};
    for (const [name, value] of Object.entries(c.headers ?? {}))
      headers[name] =
        value === etagOfProject2
          ? (etags.get('current') ?? value)
          : typeof value === 'string' && value.startsWith(etagOf)
            ? (etags.get(value.slice(etagOf.length)) ?? value)
            : value;
    return {
      method: c.method ?? 'GET',
      path: c.path,
      headers,
      ...(c.raw !== undefined
        ? { body: c.raw }
        : c.body !== undefined
          ? { body: JSON.stringify(c.body) }
          : {}),
    };
  }),
  (outcome, c, adapter) => {
    expect(outcome.status, JSON.stringify(outcome.body)).toBe(c.status);
    if (c.name === 'read: 200 with ETag') etags.set('current', outcome.headers['etag']!);
    if (c.recordEtag !== undefined) etags.set(c.recordEtag, outcome.headers['etag']!);
    for (const [name, value] of Object.entries(c.expectHeaders ?? {})) {
      if (value === etagOfProject2) expect(outcome.headers[name]).toMatch(/^"[^"]+"$/);
      else expect(outcome.headers[name] ?? null, name).toBe(value);
    }
    if (c.expectBody !== undefined) partial(outcome.body, c.expectBody);
    if (c.status >= 400) expect(outcome.headers['content-type']).toMatch(/^application\/problem\+json/);
    const f = fixtureOf(adapter as Framework);
    if (c.creates !== undefined) expect(f.store.runs.get('create') ?? 0).toBe(c.creates);
    if (c.searches !== undefined) expect(f.store.runs.get('search') ?? 0).toBe(c.searches);
    if (c.mismatches !== undefined) expect(f.mismatches.length).toBe(c.mismatches);
  },
);
