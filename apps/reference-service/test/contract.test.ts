/**
 * Issue #24 through the service: one pointer format, messages that say what is wrong, `fields=`
 * and unknown parameters on members, and the document's declarations (headers, 304, /oauth/revoke,
 * the sort pattern). Every exchange here is also checked against /openapi.json by the harness.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, startService } from './harness.js';

type Json = Record<string, unknown>;

describe('contract precision (issue #24)', () => {
  let svc: RunningService;
  let key: Record<string, string>;
  let project: Json;
  let document: Json;
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${svc.url}${path}`, {
      method,
      headers: { ...key, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return {
      status: res.status,
      headers: res.headers,
      text,
      body: text && /json/.test(res.headers.get('content-type') ?? '') ? (JSON.parse(text) as Json) : {},
    };
  };

  beforeAll(async () => {
    svc = await startService({ name: 'sqlite + memory', postgres: false, redis: false });
    key = { 'x-api-key': svc.credentials.apiKeys.readWrite };
    project = (
      await call(
        'POST',
        '/v2/projects',
        { name: `Contract ${randomUUID()}` },
        { 'idempotency-key': randomUUID() },
      )
    ).body;
    document = (await call('GET', '/openapi.json')).body;
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it.each([
    ['create', 'POST', '/v2/projects', { name: '' }, '#/name', 'Must be at least 1 character.'],
    [
      'create, nested',
      'POST',
      '/v2/projects',
      { name: 'x', budget: { amount: 1, currency: 'XXX' } },
      '#/budget/currency',
      'Must be one of: EUR, USD, GBP, CHF, JPY.',
    ],
    [
      'search',
      'POST',
      '/v2/projects/search',
      { filter: { status: 'deleted' } },
      '#/filter/status',
      undefined,
    ],
    ['search, unknown member', 'POST', '/v2/projects/search', { 'a b': 1 }, '#/a%20b', undefined],
  ])('item 4: %s points with #/…', async (_name, method, path, body, pointer, detail) => {
    const res = await call(method, path, body, { 'idempotency-key': randomUUID() });
    expect(res.status).toBe(400);
    const errors = res.body['errors'] as Json[];
    expect(errors[0]).toMatchObject({ pointer, ...(detail ? { detail } : {}) });
  });

  it.each([
    [
      '/v2/projects?sort=-name_asc',
      'invalid_sort',
      'Sort "-name_asc" is not valid: use either a sign or _asc/_desc, not both.',
    ],
    [
      '/v2/projects?sort=name_desc:asc',
      'invalid_sort',
      'Sort "name_desc:asc" is not valid: use either :asc/:desc or _asc/_desc, not both.',
    ],
    [
      '/v2/projects?name[x][y]=1',
      'invalid_value',
      'Parameter "name[x][y]" must be a filter with one operator, as name[op] (operators: eq).',
    ],
    ['/v2/projects?q=a', 'search_too_short', 'Search text must be at least 3 characters.'],
  ])('item 6: %s → %s, saying what is wrong', async (path, code, detail) => {
    const res = await call('GET', path);
    expect([res.status, res.body['error_code'], (res.body['errors'] as Json[])[0]?.['detail']]).toEqual([
      400,
      code,
      detail,
    ]);
  });

  it.each([
    ['fields selects members', () => `/v2/projects/${project['id']}?fields=name`, 200, ['id', 'name']],
    [
      'fields on a v1 member',
      () => `/v1/projects/${project['id']}?fields=budget,status`,
      200,
      ['id', 'budget', 'status'],
    ],
    [
      'an unknown parameter is 400',
      () => `/v2/projects/${project['id']}?colour=red`,
      400,
      'unknown_parameter',
    ],
    [
      'a collection parameter is unknown on a member',
      () => `/v2/projects/${project['id']}?sort=name`,
      400,
      'unknown_parameter',
    ],
    [
      'a field that cannot be selected',
      () => `/v2/projects/${project['id']}?fields=password`,
      400,
      'field_not_selectable',
    ],
    [
      'fields twice',
      () => `/v2/projects/${project['id']}?fields=name&fields=status`,
      400,
      'duplicate_parameter',
    ],
  ] as const)('item 9: GET member, %s', async (_name, path, status, expected) => {
    const res = await call('GET', path());
    expect(res.status).toBe(status);
    if (Array.isArray(expected)) expect(Object.keys(res.body)).toEqual(expected);
    else expect(res.body['error_code']).toBe(expected);
  });

  it('item 9: a sparse member is XML too', async () => {
    const res = await call('GET', `/v2/projects/${project['id']}?fields=name`, undefined, {
      accept: 'application/xml',
    });
    expect(res.status).toBe(200);
    expect(res.text).toMatch(
      /^<\?xml[^>]*>\s*<project[^>]*>\s*<id>[^<]+<\/id>\s*<name>[^<]+<\/name>\s*<\/project>\s*$/,
    );
  });

  it.each([
    ['PUT', (id: string) => `/v2/projects/${id}?fields=name`, { name: 'x' }],
    ['PATCH', (id: string) => `/v2/projects/${id}?x=1`, { name: 'x' }],
    ['DELETE', (id: string) => `/v2/projects/${id}?x=1`, undefined],
    ['POST', () => '/v2/projects?x=1', { name: 'x' }],
    ['POST', () => '/v2/projects/search?limit=1', {}],
  ] as const)('item 9: %s with a query parameter is 400 unknown_parameter', async (method, path, body) => {
    const res = await call(method, path(String(project['id'])), body, { 'idempotency-key': randomUUID() });
    expect([res.status, res.body['error_code']]).toEqual([400, 'unknown_parameter']);
  });

  it('items 5 and 11: the document declares what the service sends', () => {
    const paths = document['paths'] as Record<string, Record<string, Json>>;
    const components = document['components'] as Record<string, Record<string, Json>>;
    const responses = components['responses']!;
    const headersOf = (r: Json) => Object.keys((r['headers'] ?? {}) as Json);
    expect(headersOf(responses['Error415']!)).toEqual(
      expect.arrayContaining(['Accept-Post', 'Accept-Patch', 'X-Request-Id']),
    );
    expect((responses['Error401']!['headers'] as Json)['WWW-Authenticate']).toBeDefined();
    expect(headersOf(responses['Error429']!)).toContain('Retry-After');
    expect(headersOf(responses['Error405']!)).toContain('Allow');
    expect(paths['/oauth/revoke']?.['post']).toBeDefined();
    const get = paths['/v2/projects/{project_id}']!['get']!;
    const ok = (get['responses'] as Record<string, Json>)['200']!;
    expect(headersOf(ok)).toEqual(
      expect.arrayContaining([
        'Content-Language',
        'Vary',
        'ETag',
        'Link',
        'RateLimit',
        'RateLimit-Policy',
        'X-Request-Id',
        'Accept-Patch',
      ]),
    );
    const v1 = (paths['/v1/projects']!['get']!['responses'] as Record<string, Json>)['200']!;
    expect(headersOf(v1)).toEqual(expect.arrayContaining(['Deprecation', 'Sunset', 'Link']));
    expect((get['parameters'] as Json[]).map((p) => p['name'])).toContain('fields');
    const selection = components['schemas']!['ProjectV2Selection']!;
    expect([selection['required'], selection['additionalProperties']]).toEqual([['id'], false]);
  });

  it('item 5: the sort pattern admits what the service accepts, and nothing it refuses', async () => {
    const sort = (
      (document['paths'] as Record<string, Record<string, Json>>)['/v2/projects']!['get']![
        'parameters'
      ] as Json[]
    ).find((p) => p['name'] === 'sort')!['schema'] as Json;
    // One pattern says it all (a field named twice is refused by its lookahead), as JSON Schema reads it.
    const pattern = new RegExp(String(sort['pattern']), 'u');
    for (const value of [
      '-name:asc',
      'name,name',
      'name,-name',
      '+name_desc',
      '-created_at,name',
      'name_desc',
      'budget:asc,id',
    ]) {
      const admitted = pattern.test(value);
      const res = await call('GET', `/v2/projects?sort=${encodeURIComponent(value)}&limit=1`);
      expect({ value, admitted }).toEqual({ value, admitted: res.status === 200 });
    }
  });

  it.each([
    '/openapi.json',
    '/health',
    '/errors/{error_code}',
    '/',
    '/v2/projects?limit=1',
    '/v2/projects/{id}',
  ])(
    'item 11: GET %s answers 304 to its own ETag (or `*` without one) exactly when the document declares 304',
    async (template) => {
      const path = template.replace('{id}', String(project['id'])).replace('{error_code}', 'not_found');
      const first = await call('GET', path);
      const etag = first.headers.get('etag');
      const again = await call('GET', path, undefined, { 'if-none-match': etag ?? '*' });
      const documented = template.split('?')[0]!.replace('{id}', '{project_id}');
      const operation = (document['paths'] as Record<string, Record<string, Json>>)[documented]!['get']!;
      expect(again.status === 304).toBe(Object.hasOwn(operation['responses'] as Json, '304'));
    },
  );
});
