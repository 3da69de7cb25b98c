/**
 * One behaviour table for @plumbline/errors, run against the core (`renderProblem`) and the
 * Express 5, Express 4, Fastify 5 and Hono adapters: every framework must send exactly what the
 * core renders (status, headers, body bytes).
 */
import {
  describeAdapters,
  frameworkRunners,
  type HttpRequestSpec,
  type Outcome,
} from '@plumbline/test-utils';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { expect } from 'vitest';
import { ERROR_CODES, HttpError, renderProblem } from '../src/index.js';
import { errorApps, OWN_ID } from './apps.js';

interface Case {
  readonly name: string;
  readonly request: HttpRequestSpec;
  /** What the route throws, as the core sees it. */
  readonly thrown: unknown;
  /** Extra expectations beyond "exactly what the core renders". */
  readonly headers?: Readonly<Record<string, string | undefined>>;
  readonly absentBody?: boolean;
}

const DRIVER = 'duplicate key value violates unique constraint "users_email_key" at /srv/app/db.js:12';
const LEAK = /at .*\.(js|ts):\d+|Error:|secret|duplicate key|weird|\/srv\//;

function get(path: string, headers: Record<string, string> = {}, id = `req-${path.length}`): HttpRequestSpec {
  return { path, headers: { 'X-Request-Id': id, ...headers } };
}

const cases: Case[] = [
  ...ERROR_CODES.map((code) => ({
    name: `catalogue code ${code}`,
    request: get(`/fail/${code}`),
    thrown: new HttpError(code),
  })),
  {
    name: 'unknown path is 404 (the framework 404 mapped)',
    request: get('/nope'),
    thrown: new HttpError('not_found'),
  },
  { name: 'a thrown string is a generic 500', request: get('/string'), thrown: 'a thrown string' },
  { name: 'a driver error leaks nothing', request: get('/driver'), thrown: new Error(DRIVER) },
  { name: 'status 999 is a 500', request: get('/status-999'), thrown: new Error('weird') },
  {
    name: 'expose: false hides the detail',
    request: get('/expose-false'),
    thrown: new HttpError('conflict', { detail: 'secret internal detail', expose: false }),
  },
  {
    name: 'validation errors list every problem, in German',
    request: get('/validation', { 'Accept-Language': 'de-CH, en;q=0.5' }),
    thrown: new HttpError('validation_failed', {
      errors: [
        { parameter: 'sort', code: 'sort_field_not_allowed', params: { field: 'hidden', allowed: ['name'] } },
        { pointer: '/name', code: 'invalid_value', params: { parameter: 'name', expected: 'a string' } },
      ],
    }),
  },
  ...(
    [
      ['application/xml', true],
      ['application/problem+xml', true],
      ['text/xml', true],
      ['application/xml;q=0.5, application/json', false],
      ['application/json;q=0.1, text/xml', true],
      ['application/xml; charset=utf-8', true],
      ['image/png', false],
      ['*/*', false],
      ['garbage', false],
      ['', false],
      [`${'a/b;q=0.1,'.repeat(300)}application/xml`, false],
    ] as const
  ).map(([accept, xml]) => ({
    name: `Accept ${JSON.stringify(accept.slice(0, 40))} → ${xml ? 'XML' : 'JSON'}, never 406`,
    request: get('/nope', { Accept: accept }),
    thrown: new HttpError('not_found'),
    headers: { 'content-type': `application/problem+${xml ? 'xml' : 'json'}; charset=utf-8` },
  })),
  ...(
    [
      ['de-DE,de;q=0.9,en;q=0.8', 'de'],
      ['fr', 'en'],
      ['de;q=0, en', 'en'],
      ['*', 'en'],
      ['x'.repeat(5000), 'en'],
      ['en;q=abc, de', 'de'],
    ] as const
  ).map(([acceptLanguage, language]) => ({
    name: `Accept-Language ${JSON.stringify(acceptLanguage.slice(0, 30))} → ${language}`,
    request: get('/nope', { 'Accept-Language': acceptLanguage }),
    thrown: new HttpError('not_found'),
    headers: { 'content-language': language },
  })),
  {
    name: 'malformed JSON body is 400 malformed_json',
    request: {
      method: 'POST',
      path: '/json',
      headers: { 'Content-Type': 'application/json', 'X-Request-Id': 'bad-json' },
      body: '{"a":',
    },
    thrown: new HttpError('malformed_json'),
  },
  {
    name: 'a body over the limit is 413 payload_too_large',
    request: {
      method: 'POST',
      path: '/json',
      headers: { 'Content-Type': 'application/json', 'X-Request-Id': 'too-large' },
      body: JSON.stringify({ a: 'x'.repeat(2000) }),
    },
    thrown: new HttpError('payload_too_large', { params: { limit: 1024 } }),
  },
  {
    name: 'DELETE on a GET-only path is 405 with Allow',
    request: { method: 'DELETE', path: '/only-get', headers: { 'X-Request-Id': 'del' } },
    thrown: new HttpError('method_not_allowed', {
      headers: { Allow: 'GET, HEAD, OPTIONS' },
      params: { method: 'DELETE', allowed: ['GET', 'HEAD', 'OPTIONS'] },
    }),
    headers: { allow: 'GET, HEAD, OPTIONS' },
  },
  {
    name: 'HEAD of an unknown path: 404, headers, no body',
    request: { method: 'HEAD', path: '/nope', headers: { 'X-Request-Id': 'head' } },
    thrown: new HttpError('not_found'),
    absentBody: true,
  },
  {
    name: 'keeps cross-cutting headers, drops representation headers, merges Vary',
    request: get('/with-headers'),
    thrown: new HttpError('invalid_token', {
      headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' },
    }),
    headers: {
      'www-authenticate': 'Bearer error="invalid_token"',
      'api-supported-versions': '1, 2',
      vary: 'Origin, Accept, Accept-Language',
      etag: undefined,
      location: undefined,
    },
  },
  {
    name: 'an id with markup is replaced, not echoed',
    request: get('/nope', {}, '<script>alert(1)</script>'),
    thrown: new HttpError('not_found'),
  },
];

function expected(c: Case, requestId: string | undefined) {
  const headers = c.request.headers ?? {};
  return renderProblem(c.thrown, {
    accept: headers['Accept'] as string | undefined,
    acceptLanguage: headers['Accept-Language'] as string | undefined,
    instance: c.request.path,
    requestId,
    responseHeader: (name) => (name === 'vary' && c.headers?.['vary'] ? 'Origin' : undefined),
  });
}

function check(outcome: Outcome, c: Case): void {
  const sentId = c.request.headers?.['X-Request-Id'] as string;
  const id = outcome.headers['x-request-id'];
  if (typeof sentId === 'string' && /^[A-Za-z0-9._:@+=/-]{1,128}$/.test(sentId)) expect(id).toBe(sentId);
  else expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  const want = expected(c, id);
  expect(outcome.status).toBe(want.status);
  for (const [name, value] of Object.entries(want.headers))
    expect(outcome.headers[name.toLowerCase()]).toBe(value);
  for (const [name, value] of Object.entries(c.headers ?? {})) expect(outcome.headers[name]).toBe(value);
  if (c.absentBody) {
    expect(outcome.body).toBe('');
    return;
  }
  const text = typeof outcome.body === 'string' ? outcome.body : JSON.stringify(outcome.body);
  // The same bytes the core renders.
  expect(text).toBe(want.body);
  expect(Number(outcome.headers['content-length'] ?? Buffer.byteLength(text))).toBe(Buffer.byteLength(text));
  expect(text).not.toMatch(LEAK);
  if (want.headers['Content-Type']?.includes('xml')) {
    expect(XMLValidator.validate(text)).toBe(true);
    expect(new XMLParser().parse(text).problem).toMatchObject({ status: want.status });
  }
}

describeAdapters(
  'errors: one table, four frameworks',
  cases,
  {
    core: (c) => {
      const rendered = expected(c, c.request.headers?.['X-Request-Id'] as string);
      const headers: Record<string, string> = {
        'x-request-id': c.request.headers?.['X-Request-Id'] as string,
      };
      for (const [name, value] of Object.entries(rendered.headers)) headers[name.toLowerCase()] = value;
      Object.assign(
        headers,
        c.name.includes('cross-cutting')
          ? { 'api-supported-versions': '1, 2', 'www-authenticate': 'Bearer error="invalid_token"' }
          : {},
      );
      if (c.name.includes('405')) headers['allow'] = 'GET, HEAD, OPTIONS';
      const json = headers['content-type']?.includes('json');
      return {
        status: rendered.status,
        headers,
        body: c.absentBody ? '' : json ? JSON.parse(rendered.body) : rendered.body,
      };
    },
    ...frameworkRunners(errorApps, (c: Case) => c.request),
  },
  (outcome, c, adapter) => {
    if (adapter === 'core' && c.name.startsWith('an id with markup')) return;
    check(outcome, c);
  },
);

// Answers that are not problems: OPTIONS on a known path, and the request id a route sees.
describeAdapters(
  'errors: OPTIONS and request ids, four frameworks',
  [
    {
      name: 'OPTIONS on a GET-only path is 204 with Allow',
      request: { method: 'OPTIONS', path: '/only-get' },
      status: 204,
      allow: 'GET, HEAD, OPTIONS',
      body: '',
    },
    { name: 'GET on it still works', request: { path: '/only-get' }, status: 200, body: { ok: true } },
    {
      name: 'a sane id reaches the route',
      request: get('/id', {}, 'abc-123'),
      status: 200,
      body: { id: 'abc-123' },
    },
    {
      name: 'a 129-character id is replaced',
      request: get('/id', {}, 'x'.repeat(129)),
      status: 200,
      body: 'uuid',
    },
    {
      name: 'an id with a space is replaced',
      request: get('/id', {}, 'has space'),
      status: 200,
      body: 'uuid',
    },
    {
      name: 'two id header lines are replaced',
      request: { path: '/id', headers: { 'X-Request-Id': ['a', 'b'] } },
      status: 200,
      body: 'uuid',
    },
    {
      name: 'an id the route sets itself wins over the middleware’s',
      request: get('/own-id', {}, 'abc-123'),
      status: 200,
      body: { ok: true },
      id: OWN_ID,
    },
  ],
  frameworkRunners(errorApps, (c: { request: HttpRequestSpec }) => c.request),
  (outcome, c) => {
    expect(outcome.status).toBe(c.status);
    if ('allow' in c) expect(outcome.headers['allow']).toBe(c.allow);
    if ('id' in c) expect(outcome.headers['x-request-id']).toBe(c.id);
    if (c.body === 'uuid') {
      const id = (outcome.body as { id: string }).id;
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(outcome.headers['x-request-id']).toBe(id);
    } else expect(outcome.body).toEqual(c.body);
  },
);
