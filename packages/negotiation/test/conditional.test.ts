// Conditional requests: one behaviour table (requests in, exact status, headers and body out) on
// Express 5, Express 4, Fastify 5 and Hono.
import { describeAdapters, frameworkRunners, type HttpRequestSpec } from '@plumbline/test-utils';
import { expect } from 'vitest';
import { entityTag } from '../src/index.js';
import { CACHE_CONTROL, conditionalApps, DOC, MODIFIED } from './conditional-apps.js';

const TAG = entityTag(JSON.stringify(DOC), 'application/json; charset=utf-8', 'en');
const LAST_MODIFIED = new Date(MODIFIED).toUTCString();
const BEFORE = new Date(MODIFIED - 1000).toUTCString();
const AFTER = new Date(MODIFIED + 1000).toUTCString();

interface Case {
  readonly name: string;
  readonly request: HttpRequestSpec;
  readonly status: number;
  /** Expected body: the JSON value, '' for none, or the error_code of a problem. */
  readonly body?: unknown;
  readonly code?: string;
  readonly headers?: Readonly<Record<string, string | undefined>>;
}

const put = (path: string, headers: Record<string, string>) => ({ method: 'PUT', path, headers });
const proceeded = (conditional: boolean) => ({ status: 200, body: { conditional } });
const failed = { status: 412, code: 'precondition_failed' };
// represent() alone (no conditional()): what fetch sends when it revalidates, and what a 304 keeps.
const get = (path: string, headers: Record<string, string>, method = 'GET') => ({ method, path, headers });
const NO_CACHE = { 'Cache-Control': 'no-cache' };
const PLAIN = {
  etag: TAG,
  vary: 'Accept, Accept-Language',
  'content-language': 'en',
  'cache-control': CACHE_CONTROL,
};
const notModified = {
  status: 304,
  body: '',
  headers: {
    ...PLAIN,
    'content-type': undefined,
    'content-length': undefined,
    'transfer-encoding': undefined,
  },
};
const plain = {
  status: 200,
  body: DOC,
  headers: { ...PLAIN, 'content-type': 'application/json; charset=utf-8' },
};

const cases: readonly Case[] = [
  {
    name: 'GET sends the strong ETag and Last-Modified',
    request: { path: '/docs/a' },
    status: 200,
    body: DOC,
    headers: { etag: TAG, 'last-modified': LAST_MODIFIED },
  },
  {
    name: 'GET If-None-Match: current tag → 304 with ETag',
    request: { path: '/docs/a', headers: { 'If-None-Match': TAG } },
    status: 304,
    body: '',
    headers: { etag: TAG, 'last-modified': LAST_MODIFIED },
  },
  {
    name: 'GET If-None-Match: weak form of the tag → 304 (weak comparison)',
    request: { path: '/docs/a', headers: { 'If-None-Match': `W/${TAG}` } },
    status: 304,
    body: '',
    headers: { etag: TAG },
  },
  {
    name: 'GET If-None-Match: another tag → 200',
    request: { path: '/docs/a', headers: { 'If-None-Match': '"other"' } },
    status: 200,
    body: DOC,
    headers: { etag: TAG },
  },
  {
    name: 'GET If-Modified-Since: Last-Modified → 304',
    request: { path: '/docs/a', headers: { 'If-Modified-Since': LAST_MODIFIED } },
    status: 304,
    body: '',
  },
  {
    name: 'PUT If-Match: current tag → proceeds',
    request: put('/docs/a', { 'If-Match': TAG }),
    ...proceeded(true),
  },
  { name: 'PUT If-Match: "wrong" → 412', request: put('/docs/a', { 'If-Match': '"wrong"' }), ...failed },
  {
    name: 'PUT If-Match: * on an existing resource → proceeds',
    request: put('/docs/a', { 'If-Match': '*' }),
    ...proceeded(true),
  },
  {
    name: 'PUT If-Match: * on a missing resource → 412',
    request: put('/docs/b', { 'If-Match': '*' }),
    ...failed,
  },
  {
    name: 'PUT If-Match: a tag on a missing resource → 412',
    request: put('/docs/b', { 'If-Match': TAG }),
    ...failed,
  },
  {
    name: 'PUT If-Match: weak form of the tag → 412 (strong comparison)',
    request: put('/docs/a', { 'If-Match': `W/${TAG}` }),
    ...failed,
  },
  {
    name: 'PUT If-Match: list with spaces → proceeds',
    request: put('/docs/a', { 'If-Match': ` "x" ,\t${TAG} , ` }),
    ...proceeded(true),
  },
  {
    name: 'PUT If-Match: malformed (unquoted) → 412',
    request: put('/docs/a', { 'If-Match': 'wrong' }),
    ...failed,
  },
  {
    name: 'PUT If-None-Match: * on an existing resource → 412',
    request: put('/docs/a', { 'If-None-Match': '*' }),
    ...failed,
  },
  {
    name: 'PUT If-None-Match: * creating → proceeds (201)',
    request: put('/docs/b', { 'If-None-Match': '*' }),
    status: 201,
    body: { conditional: true },
  },
  {
    name: 'PUT If-Unmodified-Since: later → proceeds',
    request: put('/docs/a', { 'If-Unmodified-Since': AFTER }),
    ...proceeded(true),
  },
  {
    name: 'PUT If-Unmodified-Since: Last-Modified → proceeds',
    request: put('/docs/a', { 'If-Unmodified-Since': LAST_MODIFIED }),
    ...proceeded(true),
  },
  {
    name: 'PUT If-Unmodified-Since: earlier → 412',
    request: put('/docs/a', { 'If-Unmodified-Since': BEFORE }),
    ...failed,
  },
  {
    name: 'PUT If-Unmodified-Since: invalid date → ignored',
    request: put('/docs/a', { 'If-Unmodified-Since': 'last week' }),
    ...proceeded(false),
  },
  {
    name: 'PUT If-Match present → If-Unmodified-Since ignored',
    request: put('/docs/a', { 'If-Match': TAG, 'If-Unmodified-Since': BEFORE }),
    ...proceeded(true),
  },
  {
    name: 'PUT without preconditions → proceeds, unconditional',
    request: put('/docs/a', {}),
    ...proceeded(false),
  },
  {
    name: 'DELETE If-Match: "wrong" → 412',
    request: { method: 'DELETE', path: '/docs/a', headers: { 'If-Match': '"wrong"' } },
    ...failed,
  },
  {
    name: 'DELETE If-Match: current tag → 204',
    request: { method: 'DELETE', path: '/docs/a', headers: { 'If-Match': TAG } },
    status: 204,
    body: '',
  },
  {
    name: 'required: PUT without a precondition → 428',
    request: put('/strict/a', {}),
    status: 428,
    code: 'precondition_required',
  },
  {
    name: 'required: DELETE without a precondition → 428',
    request: { method: 'DELETE', path: '/strict/a' },
    status: 428,
    code: 'precondition_required',
  },
  {
    name: 'required: PUT with only If-None-Match → 428',
    request: put('/strict/a', { 'If-None-Match': '"x"' }),
    status: 428,
    code: 'precondition_required',
  },
  {
    name: 'required: PUT If-Match → proceeds',
    request: put('/strict/a', { 'If-Match': TAG }),
    ...proceeded(true),
  },
  {
    name: 'required: PUT creating → proceeds',
    request: put('/strict/b', {}),
    status: 201,
    body: { conditional: false },
  },
  { name: 'required: GET → 200', request: { path: '/strict/a' }, status: 200, body: DOC },
  {
    name: 'represent: GET If-None-Match: its ETag → 304 without body, headers of the 200',
    request: get('/plain/a', { 'If-None-Match': TAG }),
    ...notModified,
  },
  {
    name: 'represent: GET If-None-Match: its ETag, Cache-Control: no-cache (fetch) → 304',
    request: get('/plain/a', { 'If-None-Match': TAG, ...NO_CACHE }),
    ...notModified,
  },
  {
    name: 'represent: GET If-None-Match: another tag → 200',
    request: get('/plain/a', { 'If-None-Match': '"other"', ...NO_CACHE }),
    ...plain,
  },
  {
    name: 'represent: GET If-None-Match: * → 304',
    request: get('/plain/a', { 'If-None-Match': '*' }),
    ...notModified,
  },
  {
    name: 'represent: GET If-None-Match: weak form in a list → 304 (weak comparison)',
    request: get('/plain/a', { 'If-None-Match': `"x", W/${TAG}` }),
    ...notModified,
  },
  {
    name: 'represent: HEAD If-None-Match: its ETag → 304',
    request: get('/plain/a', { 'If-None-Match': TAG, ...NO_CACHE }, 'HEAD'),
    ...notModified,
  },
  {
    name: 'represent: HEAD If-None-Match: another tag → 200 without body',
    request: get('/plain/a', { 'If-None-Match': '"other"' }, 'HEAD'),
    ...plain,
    body: '',
  },
  {
    name: 'represent: POST 201 If-None-Match: * → 201, never 304',
    request: get('/plain/a', { 'If-None-Match': '*' }, 'POST'),
    status: 201,
    body: DOC,
    headers: { etag: TAG },
  },
  {
    name: 'represent: GET 203 If-None-Match: its ETag → 203 (304 stands for a 200)',
    request: get('/plain/other', { 'If-None-Match': TAG }),
    status: 203,
    body: DOC,
    headers: { etag: TAG },
  },
  {
    name: 'represent: GET 404 If-None-Match: * → 404, never 304',
    request: get('/plain/missing', { 'If-None-Match': '*' }),
    status: 404,
    body: DOC,
    headers: { etag: undefined },
  },
  {
    name: "represent: GET If-Modified-Since: the route's Last-Modified → 304",
    request: get('/plain/dated', { 'If-Modified-Since': LAST_MODIFIED, ...NO_CACHE }),
    ...notModified,
    headers: { ...notModified.headers, 'last-modified': LAST_MODIFIED },
  },
  {
    name: 'represent: GET If-None-Match: another tag wins over If-Modified-Since → 200',
    request: get('/plain/dated', { 'If-None-Match': '"other"', 'If-Modified-Since': LAST_MODIFIED }),
    ...plain,
  },
  {
    name: 'represent: GET If-Modified-Since without Last-Modified → 200',
    request: get('/plain/a', { 'If-Modified-Since': AFTER }),
    ...plain,
  },
  {
    name: 'a 410 comes before the preconditions',
    request: put('/gone/a', { 'If-Match': '"wrong"' }),
    status: 410,
    code: 'gone',
  },
];

describeAdapters(
  'conditional requests: one table, four frameworks',
  cases,
  frameworkRunners(conditionalApps, (c: Case) => c.request),
  (outcome, c) => {
    expect(outcome.status).toBe(c.status);
    if (c.code !== undefined) {
      expect(outcome.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(outcome.body).toMatchObject({ status: c.status, error_code: c.code });
    } else {
      expect(outcome.body).toEqual(c.body);
    }
    for (const [name, value] of Object.entries(c.headers ?? {})) expect(outcome.headers[name]).toBe(value);
  },
);
