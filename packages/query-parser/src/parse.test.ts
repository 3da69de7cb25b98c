import { HttpError, toProblem } from '@plumbline/errors';
import { coreOutcome, describeAdapters, fromSupertest } from '@plumbline/test-utils';
import request from 'supertest';
import { afterAll, describe, expect, it } from 'vitest';
import { EXPRESS_VERSIONS, testApp } from '../test/app.js';
import { linkQueries, SECRET, tasks } from '../test/fixtures.js';
import {
  applyToArray,
  buildPage,
  type CollectionQuery,
  defineCollection,
  parseQuery,
  parseSearchBody,
  toQueryString,
} from './index.js';

const rows = Array.from({ length: 30 }, (_, i) => ({
  id: i + 1,
  name: `task ${String(i + 1).padStart(2, '0')}`,
  status: ['active', 'paused', 'done'][i % 3],
  priority: i % 5,
  created_at: new Date(Date.UTC(2024, 0, 1) + i * 3_600_000).toISOString(),
  project_id: (i % 2) + 1,
  password_hash: 'secret',
}));

function cursorFor(query: string): string {
  const parsed = parseQuery(tasks, query);
  const page = buildPage(parsed, applyToArray(parsed, rows), { baseUrl: '/tasks' });
  return page.body.page.next_cursor!;
}
const good = cursorFor('sort=name&limit=5');
const [payload, signature] = good.split('.') as [string, string];
const otherSecret = defineCollection({
  fields: { id: { type: 'int', sort: true }, name: { type: 'string', sort: true } },
  cursorSecret: `${SECRET}-other`,
});
const foreignQuery = parseQuery(otherSecret, 'sort=name&limit=5');
const foreign = buildPage(foreignQuery, applyToArray(foreignQuery, rows), { baseUrl: '/x' }).body.page
  .next_cursor!;
const flip = (text: string, at: number) =>
  text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1);

interface BadCase {
  readonly name: string;
  readonly query: string;
  readonly code: string;
  readonly parameter?: string;
}

// Every row: 400 with the named code, and the handler never runs.
const BAD: readonly BadCase[] = [
  {
    name: 'sort on a field that is not sortable',
    query: 'sort=password_hash',
    code: 'sort_field_not_allowed',
  },
  { name: 'sort with SQL in it', query: 'sort=name)%3BDROP%20TABLE%20x', code: 'invalid_sort' },
  { name: 'empty sort', query: 'sort=', code: 'invalid_sort' },
  { name: 'sort key repeated', query: 'sort=name,name', code: 'invalid_sort' },
  { name: 'sort key repeated in another shape', query: 'sort=name,-name', code: 'invalid_sort' },
  { name: 'sign and :dir together', query: 'sort=-name:asc', code: 'invalid_sort' },
  { name: 'bad direction', query: 'sort=name:up', code: 'invalid_sort' },
  { name: 'four sort keys', query: 'sort=name,priority,score,created_at', code: 'invalid_sort' },
  { name: 'empty sort key', query: 'sort=name,,priority', code: 'invalid_sort' },
  { name: 'limit twice', query: 'limit=1&limit=2', code: 'duplicate_parameter', parameter: 'limit' },
  { name: 'non-repeatable filter twice', query: 'status=active&status=done', code: 'duplicate_parameter' },
  {
    name: 'repeats mixed with [in]',
    query: 'tag=a&tag=b&tag[in]=c',
    code: 'duplicate_parameter',
    parameter: 'tag[in]',
  },
  { name: 'field and field[eq]', query: 'status=active&status[eq]=done', code: 'duplicate_parameter' },
  { name: 'operator filter twice', query: 'priority[gte]=1&priority[gte]=2', code: 'duplicate_parameter' },
  { name: 'limit=0', query: 'limit=0', code: 'invalid_pagination', parameter: 'limit' },
  { name: 'limit=-1', query: 'limit=-1', code: 'invalid_pagination' },
  { name: 'limit=1e3', query: 'limit=1e3', code: 'invalid_pagination' },
  { name: 'limit=10.5', query: 'limit=10.5', code: 'invalid_pagination' },
  { name: 'limit=0x10', query: 'limit=0x10', code: 'invalid_pagination' },
  { name: 'limit with a leading space', query: 'limit=%2010', code: 'invalid_pagination' },
  { name: 'limit with a plus sign', query: 'limit=+10', code: 'invalid_pagination' },
  { name: 'limit with a leading zero', query: 'limit=010', code: 'invalid_pagination' },
  { name: 'empty limit', query: 'limit=', code: 'invalid_pagination' },
  { name: 'limit=99999999999', query: 'limit=99999999999', code: 'limit_too_large', parameter: 'limit' },
  { name: 'limit=101', query: 'limit=101', code: 'limit_too_large' },
  { name: 'offset=-5', query: 'offset=-5', code: 'invalid_pagination', parameter: 'offset' },
  { name: 'offset=10001', query: 'offset=10001', code: 'limit_too_large', parameter: 'offset' },
  { name: 'page=0', query: 'page=0', code: 'invalid_pagination', parameter: 'page' },
  { name: 'page past the offset limit', query: 'page=502&size=20', code: 'limit_too_large' },
  { name: 'size=101', query: 'page=1&size=101', code: 'limit_too_large' },
  { name: 'page with offset', query: 'page=2&offset=20', code: 'conflicting_pagination' },
  { name: 'page with limit', query: 'page=2&limit=20', code: 'conflicting_pagination' },
  { name: 'cursor with page', query: `cursor=${good}&page=2`, code: 'conflicting_pagination' },
  { name: 'cursor with offset', query: `cursor=${good}&offset=5`, code: 'conflicting_pagination' },
  {
    name: 'tampered cursor payload',
    query: `sort=name&cursor=${flip(payload, 3)}.${signature}`,
    code: 'invalid_cursor',
  },
  {
    name: 'tampered cursor signature',
    query: `sort=name&cursor=${payload}.${flip(signature, 42)}`,
    code: 'invalid_cursor',
  },
  { name: 'truncated cursor', query: `sort=name&cursor=${good.slice(0, -5)}`, code: 'invalid_cursor' },
  { name: 'cursor without signature', query: `sort=name&cursor=${payload}`, code: 'invalid_cursor' },
  { name: 'cursor of another sort', query: `sort=-name&cursor=${good}`, code: 'invalid_cursor' },
  { name: 'cursor of other filters', query: `sort=name&status=done&cursor=${good}`, code: 'invalid_cursor' },
  { name: 'cursor of another collection', query: `sort=name&cursor=${foreign}`, code: 'invalid_cursor' },
  { name: 'empty cursor', query: 'cursor=', code: 'invalid_cursor' },
  { name: 'garbage cursor', query: 'cursor=%7B%22v%22%3A1%7D', code: 'invalid_cursor' },
  { name: 'status[$ne]=x', query: 'status[$ne]=x', code: 'operator_not_allowed' },
  { name: 'status[$ne]=x encoded', query: 'status%5B%24ne%5D=x', code: 'operator_not_allowed' },
  { name: 'name[gte] not allowed', query: 'name[gte]=a', code: 'operator_not_allowed' },
  { name: 'filter on a non-filterable field', query: 'description=x', code: 'field_not_filterable' },
  { name: 'filter on a hidden field', query: 'password_hash=x', code: 'unknown_parameter' },
  { name: '__proto__[x]=1', query: '__proto__[x]=1', code: 'unknown_parameter' },
  { name: '__proto__=1', query: '__proto__=1', code: 'unknown_parameter' },
  { name: 'constructor[prototype][x]=1', query: 'constructor[prototype][x]=1', code: 'unknown_parameter' },
  { name: 'unknown parameter', query: 'colour=red', code: 'unknown_parameter', parameter: 'colour' },
  {
    name: '1 000 parameters',
    query: Array.from({ length: 1000 }, (_, i) => `a${i}=1`).join('&'),
    code: 'query_too_long',
  },
  {
    name: '101 parameters',
    query: Array.from({ length: 101 }, () => 'id=1').join('&'),
    code: 'query_too_long',
  },
  { name: 'a 5 KiB query', query: `q=${'a'.repeat(5 * 1024)}`, code: 'query_too_long' },
  { name: 'age=abc', query: 'age=abc', code: 'invalid_value', parameter: 'age' },
  { name: 'age=1.5', query: 'age=1.5', code: 'invalid_value' },
  { name: 'date=2024-13-45', query: 'date=2024-13-45', code: 'invalid_value', parameter: 'date' },
  { name: 'date=2023-02-29', query: 'date=2023-02-29', code: 'invalid_value' },
  { name: 'created_at without zone', query: 'created_at[gte]=2024-01-01T00:00:00', code: 'invalid_value' },
  { name: 'active=yes', query: 'active=yes', code: 'invalid_value', parameter: 'active' },
  { name: 'owner_id not a uuid', query: 'owner_id=123', code: 'invalid_value' },
  { name: 'status not in the enum', query: 'status=archived', code: 'invalid_value' },
  { name: 'empty in item', query: 'status[in]=active,,done', code: 'invalid_value' },
  {
    name: '51 in values',
    query: `id[in]=${Array.from({ length: 51 }, (_, i) => i).join(',')}`,
    code: 'invalid_value',
  },
  { name: 'empty filter value', query: 'name=', code: 'invalid_value' },
  { name: '%ZZ', query: 'name=%ZZ', code: 'invalid_value', parameter: 'name' },
  { name: '%E0%A4%A', query: 'name=%E0%A4%A', code: 'invalid_value' },
  { name: 'encoded surrogate', query: 'name=%ED%A0%80', code: 'invalid_value' },
  { name: 'bad encoding in a name', query: 'na%ZZme=1', code: 'invalid_value', parameter: 'na%ZZme' },
  { name: 'NUL in a value', query: 'name=a%00b', code: 'invalid_value' },
  { name: 'q=ab', query: 'q=ab', code: 'search_too_short' },
  { name: 'q of spaces', query: 'q=%20%20%20', code: 'search_too_short' },
  { name: 'q of pluses (spaces)', query: 'q=+++', code: 'search_too_short' },
  { name: '201-character q', query: `q=${'x'.repeat(201)}`, code: 'search_too_long' },
  { name: 'fields=password_hash', query: 'fields=password_hash', code: 'field_not_selectable' },
  { name: 'fields of an unknown field', query: 'fields=id,nope', code: 'field_not_selectable' },
  { name: 'fields=', query: 'fields=', code: 'invalid_value', parameter: 'fields' },
  { name: 'fields=a,,b', query: 'fields=id,,name', code: 'invalid_value' },
  { name: 'fields repeated', query: 'fields=name,name', code: 'invalid_value' },
];

const apps = EXPRESS_VERSIONS.map(([name, express]) => [name, testApp(express, tasks, rows)] as const);
const before = { ...Object.prototype };

describeAdapters(
  'bad input is a 400 with the named code',
  BAD,
  {
    core: (c) => coreOutcome(() => parseQuery(tasks, c.query)),
    ...Object.fromEntries(
      apps.map(([name, { app }]) => [
        name,
        (c: BadCase) => request(app).get(`/tasks?${c.query}`).then(fromSupertest),
      ]),
    ),
  },
  (outcome, c, adapter) => {
    const body = outcome.body as {
      error_code: string;
      errors?: { parameter?: string; error_code: string }[];
    };
    expect(outcome.status).toBe(400);
    expect(body.error_code).toBe(c.code);
    if (c.code !== 'query_too_long') expect(body.errors?.[0]?.error_code).toBe(c.code);
    if (c.parameter !== undefined) expect(body.errors?.[0]?.parameter).toBe(c.parameter);
    if (adapter !== 'core')
      expect(outcome.headers['content-type']).toBe('application/problem+json; charset=utf-8');
  },
);

describe('nothing reaches a handler and nothing is polluted', () => {
  afterAll(() => {
    expect({ ...Object.prototype }).toEqual(before);
  });
  it.each(apps)('%s: the handler never ran for the bad-input table', (_name, { handled }) => {
    expect(handled.count).toBe(0);
  });
  it('Object.prototype is unchanged after the pollution attempts', () => {
    for (const q of ['__proto__[x]=1', 'constructor[prototype][x]=1', '__proto__.x=1']) {
      expect(() => parseQuery(tasks, q)).toThrow(HttpError);
    }
    expect(({} as Record<string, unknown>)['x']).toBeUndefined();
    expect(Object.keys(Object.prototype)).toEqual([]);
  });
});

describe('text no link can carry', () => {
  it.each([
    ['a lone high surrogate', 'name=a\ud800'],
    ['a lone low surrogate', 'name=\udc00a'],
    ['a lone surrogate in a name', 'na\ud800me=a'],
  ])('%s is 400 invalid_value, never a crash when the links are written', (_name, query) => {
    expect(() => parseQuery(tasks, query)).toThrow(expect.objectContaining({ code: 'invalid_value' }));
  });

  it('a surrogate pair is text like any other', () => {
    const query = parseQuery(tasks, 'name=a\ud83d\ude00');
    expect(query.filters).toEqual([{ field: 'name', op: 'eq', value: 'a\u{1f600}' }]);
    expect(toQueryString(query)).toBe('name=a%F0%9F%98%80&sort=-created_at&limit=20&offset=0');
  });
});

describe('several problems are collected into one validation_failed', () => {
  it('lists every problem, in pipeline order after the per-parameter ones', () => {
    const outcome = coreOutcome(() =>
      parseQuery(tasks, 'status=archived&q=ab&sort=nope&limit=0&fields=secret'),
    );
    return outcome.then(({ status, body }) => {
      expect(status).toBe(400);
      expect(body).toMatchObject({
        error_code: 'validation_failed',
        detail: 'The request has 5 invalid values.',
        errors: [
          {
            parameter: 'status',
            error_code: 'invalid_value',
            detail: 'Parameter "status" must be one of active, paused, done; got "archived".',
          },
          {
            parameter: 'q',
            error_code: 'search_too_short',
            detail: 'Search text must be at least 3 characters.',
          },
          {
            parameter: 'sort',
            error_code: 'sort_field_not_allowed',
            detail:
              'Sort field "nope" is not allowed; allowed: id, name, priority, score, active, date, created_at.',
          },
          {
            parameter: 'limit',
            error_code: 'invalid_pagination',
            detail: 'Parameter "limit" must be an integer from 1 to 100.',
          },
          {
            parameter: 'fields',
            error_code: 'field_not_selectable',
            detail: expect.stringMatching(/^Field "secret" cannot be selected; selectable: id, name, /),
          },
        ],
      });
    });
  });

  it('a single problem keeps its own code and message', async () => {
    const { body } = await coreOutcome(() => parseQuery(tasks, 'limit=500'));
    expect(body).toMatchObject({
      error_code: 'limit_too_large',
      detail: 'Parameter "limit" must be at most 100.',
      errors: [
        {
          parameter: 'limit',
          error_code: 'limit_too_large',
          detail: 'Parameter "limit" must be at most 100.',
        },
      ],
    });
  });

  it('query_too_long names the byte limit: 2048 by default', async () => {
    expect(tasks.maxQueryLength).toBe(2048);
    const { body } = await coreOutcome(() => parseQuery(tasks, `q=${'a'.repeat(2047)}`));
    expect(body).toMatchObject({
      error_code: 'query_too_long',
      detail: 'The query string must be at most 2048 bytes.',
    });
  });
});

describe('accepted input', () => {
  it.each([
    ['empty', '', { filters: [], search: undefined, pagination: { mode: 'offset', limit: 20, offset: 0 } }],
    ['leading ?', '?limit=5', { pagination: { mode: 'offset', limit: 5, offset: 0 } }],
    ['empty segments', '&&limit=5&&', { pagination: { mode: 'offset', limit: 5, offset: 0 } }],
    ['limit=100', 'limit=100', { pagination: { mode: 'offset', limit: 100, offset: 0 } }],
    ['offset=10000', 'offset=10000', { pagination: { mode: 'offset', limit: 20, offset: 10000 } }],
    [
      'page and size',
      'page=3&size=10',
      { pagination: { mode: 'page', page: 3, size: 10, limit: 10, offset: 20 } },
    ],
    ['page alone', 'page=2', { pagination: { mode: 'page', page: 2, size: 20, limit: 20, offset: 20 } }],
    [
      'typed filters',
      'age=-3&active=false&score[gte]=1e2&date[gte]=2024-02-29',
      {
        filters: [
          { field: 'age', op: 'eq', value: -3 },
          { field: 'score', op: 'gte', value: 100 },
          { field: 'active', op: 'eq', value: false },
          { field: 'date', op: 'gte', value: '2024-02-29' },
        ],
      },
    ],
    [
      'date-time normalized to UTC',
      'created_at[gte]=2024-05-01T12:00:00.5%2B02:00',
      {
        filters: [{ field: 'created_at', op: 'gte', value: '2024-05-01T10:00:00.500Z' }],
      },
    ],
    [
      'uuid lower-cased',
      'owner_id=0D3B2A6E-4F1C-4B8A-9E2D-7C6B5A4F3E21',
      {
        filters: [{ field: 'owner_id', op: 'eq', value: '0d3b2a6e-4f1c-4b8a-9e2d-7c6b5a4f3e21' }],
      },
    ],
    [
      'repeatable filter becomes in',
      'tag=a&tag=b%2Cc',
      { filters: [{ field: 'tag', op: 'in', value: ['a', 'b,c'] }] },
    ],
    [
      'in list',
      'status[in]=active,done',
      { filters: [{ field: 'status', op: 'in', value: ['active', 'done'] }] },
    ],
    ['q trimmed and NFC', 'q=%20Cafe%CC%81%20', { search: 'Café' }],
    ['q with plus as space', 'q=hello+world', { search: 'hello world' }],
    ['q of (a+)+$ encoded', 'q=(a%2B)%2B%24', { search: '(a+)+$' }],
    ['q of 200 characters', `q=${'x'.repeat(200)}`, { search: 'x'.repeat(200) }],
    ['fields adds id', 'fields=name,status', { fields: ['id', 'name', 'status'] }],
    ['fields with id keeps order', 'fields=name,id', { fields: ['name', 'id'] }],
  ])('%s', (_name, query, expected) => {
    expect(parseQuery(tasks, query)).toMatchObject(expected);
  });

  it('the result is frozen and carries its collection without enumerating it', () => {
    const query = parseQuery(tasks, 'status=active&sort=-name');
    expect(Object.isFrozen(query)).toBe(true);
    expect(Object.isFrozen(query.filters[0])).toBe(true);
    expect(Object.isFrozen(query.sort)).toBe(true);
    expect(query.collection).toBe(tasks);
    expect(Object.keys(query)).not.toContain('collection');
  });

  it('counts when asked or when the collection always counts', () => {
    expect(parseQuery(tasks, '').count).toBe(false);
    expect(parseQuery(tasks, '', { count: true }).count).toBe(true);
    const always = defineCollection({ fields: { id: { type: 'int' } }, count: 'always' });
    expect(parseQuery(always, '').count).toBe(true);
  });

  it('clamps limit and size when configured', () => {
    const clamped = defineCollection({ fields: { id: { type: 'int' } }, clampLimit: true, maxLimit: 50 });
    expect(parseQuery(clamped, 'limit=99999').pagination).toEqual({ mode: 'offset', limit: 50, offset: 0 });
    expect(parseQuery(clamped, 'page=1&size=51').pagination).toMatchObject({ size: 50 });
    expect(() => parseQuery(clamped, 'offset=10001')).toThrow(
      expect.objectContaining({ code: 'limit_too_large' }),
    );
  });

  it('passthrough keeps unknown parameters in a null-prototype object', () => {
    const loose = defineCollection({ fields: { id: { type: 'int' } }, unknownParameters: 'passthrough' });
    const query = parseQuery(loose, 'a=1&a=2&__proto__[x]=y&b');
    expect(Object.getPrototypeOf(query.extra)).toBeNull();
    expect({ ...query.extra }).toEqual({ a: ['1', '2'], '__proto__[x]': ['y'], b: [''] });
    expect(toQueryString(query)).toBe('limit=20&offset=0&a=1&a=2&__proto__%5Bx%5D=y&b=');
  });

  it('parameters of a disabled pagination mode are unknown', () => {
    const cursorOnly = defineCollection({ fields: { id: { type: 'int' } }, pagination: ['cursor'] });
    expect(parseQuery(cursorOnly, 'limit=5').pagination).toEqual({
      mode: 'cursor',
      limit: 5,
      cursor: undefined,
      after: undefined,
    });
    expect(() => parseQuery(cursorOnly, 'offset=5')).toThrow(
      expect.objectContaining({ code: 'unknown_parameter' }),
    );
    expect(() => parseQuery(cursorOnly, 'page=1')).toThrow(
      expect.objectContaining({ code: 'unknown_parameter' }),
    );
  });

  it('q is unknown on a collection without searchable fields', () => {
    const plain = defineCollection({ fields: { id: { type: 'int' } } });
    expect(() => parseQuery(plain, 'q=hello')).toThrow(
      expect.objectContaining({ code: 'unknown_parameter' }),
    );
  });
});

describe('sort shapes', () => {
  const expected = [
    { field: 'created_at', direction: 'desc' },
    { field: 'name', direction: 'asc' },
    { field: 'id', direction: 'asc' },
  ];
  it.each([
    'sort=-created_at,name',
    'sort=-created_at,%2Bname',
    'sort=-created_at,+name',
    'sort=created_at:desc,name:asc',
    'sort=created_at_desc,name_asc',
    'sort=created_at_desc,name',
    'sort=created_at:desc,name',
  ])('%s gives the same sort and a canonical link', (query) => {
    const parsed = parseQuery(tasks, query);
    expect(parsed.sort).toEqual(expected);
    expect(toQueryString(parsed)).toBe('sort=-created_at,name&limit=20&offset=0');
    const { body, link } = buildPage(parsed, [], { baseUrl: '/tasks' });
    expect(body.links.self).toBe('/tasks?sort=-created_at,name&limit=20&offset=0');
    expect(link).toContain('</tasks?sort=-created_at,name&limit=20&offset=0>; rel="self"');
  });

  it('the id tie-breaker is added once, and an explicit id keeps its direction', () => {
    expect(parseQuery(tasks, '').sort).toEqual([
      { field: 'created_at', direction: 'desc' },
      { field: 'id', direction: 'asc' },
    ]);
    expect(parseQuery(tasks, 'sort=-id').sort).toEqual([{ field: 'id', direction: 'desc' }]);
    expect(toQueryString(parseQuery(tasks, 'sort=-id'))).toBe('sort=-id&limit=20&offset=0');
    expect(toQueryString(parseQuery(tasks, 'sort=name,id'))).toBe('sort=name&limit=20&offset=0');
  });
});

describe('messages say what the client wrote wrong', () => {
  it.each([
    [
      'sort=-name_asc',
      'invalid_sort',
      'sort',
      'Sort "-name_asc" is not valid: use either a sign or _asc/_desc, not both.',
    ],
    [
      'sort=%2Bname_desc',
      'invalid_sort',
      'sort',
      'Sort "+name_desc" is not valid: use either a sign or _asc/_desc, not both.',
    ],
    [
      'sort=name_desc:asc',
      'invalid_sort',
      'sort',
      'Sort "name_desc:asc" is not valid: use either :asc/:desc or _asc/_desc, not both.',
    ],
    [
      'sort=-name:asc',
      'invalid_sort',
      'sort',
      'Sort "-name:asc" is not valid: use either a sign or :asc/:desc, not both.',
    ],
    [
      'sort=name,-name',
      'invalid_sort',
      'sort',
      'Sort "name,-name" is not valid: field "name" appears more than once.',
    ],
    [
      'sort=-nope_asc',
      'sort_field_not_allowed',
      'sort',
      'Sort field "nope_asc" is not allowed; allowed: id, name, priority, score, active, date, created_at.',
    ],
    [
      'name[x][y]=1',
      'invalid_value',
      'name[x][y]',
      'Parameter "name[x][y]" must be a filter with one operator, as name[op] (operators: eq, ne).',
    ],
    [
      'priority[gte]]=1',
      'invalid_value',
      'priority[gte]]',
      'Parameter "priority[gte]]" must be a filter with one operator, as priority[op] (operators: eq, ne, gt, gte, lt, lte).',
    ],
    [
      'name[x]=1',
      'operator_not_allowed',
      'name[x]',
      'Operator "x" is not allowed on field "name"; allowed: eq, ne.',
    ],
    ['nope[x][y]=1', 'unknown_parameter', 'nope[x][y]', undefined],
  ])('%s → %s: %s', (query, code, parameter, detail) => {
    let thrown: unknown;
    try {
      parseQuery(tasks, query);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(HttpError);
    const error = thrown as HttpError;
    expect(error.code).toBe(code);
    expect(error.errors).toHaveLength(1);
    expect(error.errors[0]).toMatchObject({ parameter, code });
    if (detail !== undefined) expect(toProblem(error).errors?.[0]?.detail).toBe(detail);
  });
});

describe('search is literal', () => {
  const texts = ['100% sure', '100 sure', 'a_b', 'axb', '(a+)+$', 'aaaa', 'back\\slash', 'CAFÉ au lait'];
  const data = texts.map((name, i) => ({ id: i + 1, name, created_at: '2024-01-01T00:00:00.000Z' }));
  const short = defineCollection({
    fields: { id: { type: 'int', sort: true }, name: { type: 'string', search: true } },
    searchMinLength: 1,
  });
  it.each([
    ['q=(a%2B)%2B%24', tasks, ['(a+)+$']],
    ['q=00%25', tasks, ['100% sure']],
    ['q=%25', short, ['100% sure']],
    ['q=_', short, ['a_b']],
    ['q=a_b', tasks, ['a_b']],
    ['q=%5Cs', short, ['back\\slash']],
    ['q=caf%C3%A9', tasks, ['CAFÉ au lait']],
    ['q=AAA', tasks, ['aaaa']],
  ] as const)('%s matches only the literal text', (query, collection, expected) => {
    const parsed = parseQuery(collection, query);
    expect(applyToArray(parsed, data).map((r) => r.name)).toEqual(expected);
  });
});

describe('parseSearchBody', () => {
  it('takes the same query as a JSON body', () => {
    const fromBody = parseSearchBody(tasks, {
      filter: { status: 'active', priority: { gte: 2 }, tag: ['a', 'b'], id: { in: [1, 2] } },
      q: 'hello',
      sort: ['-created_at', 'name'],
      limit: 20,
      offset: 40,
      fields: ['id', 'name'],
    });
    const fromString = parseQuery(
      tasks,
      'status=active&priority[gte]=2&tag=a&tag=b&id[in]=1,2&q=hello&sort=-created_at,name&limit=20&offset=40&fields=id,name',
    );
    expect(fromBody).toEqual(fromString);
  });

  const FILTERABLE = 'id, name, status, priority, age, score, active, date, created_at, owner_id, tag';
  const MEMBERS = 'filter, q, sort, limit, offset, page, size, cursor, fields';
  // Each problem points into the body and its message names the body field, never a query parameter.
  it.each([
    ['not an object', [], 'invalid_value', '#', 'The request body must be a JSON object.'],
    [
      'unknown member',
      { colour: 'red' },
      'unknown_parameter',
      '#/colour',
      `Field "colour" is not supported; supported: ${MEMBERS}.`,
    ],
    [
      'filter is not an object',
      { filter: 'x' },
      'invalid_value',
      '#/filter',
      'Field "filter" must be an object of field filters.',
    ],
    [
      'unknown filter field',
      { filter: { colour: 'red' } },
      'unknown_parameter',
      '#/filter/colour',
      `Field "filter.colour" is not supported; supported: ${FILTERABLE}.`,
    ],
    [
      'hidden field inside filter',
      { filter: { password_hash: 'x' } },
      'unknown_parameter',
      '#/filter/password_hash',
      `Field "filter.password_hash" is not supported; supported: ${FILTERABLE}.`,
    ],
    [
      'reserved name inside filter',
      { filter: { sort: 'name' } },
      'unknown_parameter',
      '#/filter/sort',
      `Field "filter.sort" is not supported; supported: ${FILTERABLE}.`,
    ],
    [
      'bracket name inside filter',
      { filter: { 'status[ne]': 'x' } },
      'unknown_parameter',
      '#/filter/status%5Bne%5D',
      `Field "filter.status[ne]" is not supported; supported: ${FILTERABLE}.`,
    ],
    [
      'member name with a slash and a space',
      { 'a/b c': 1 },
      'unknown_parameter',
      '#/a~1b%20c',
      `Field "a/b c" is not supported; supported: ${MEMBERS}.`,
    ],
    [
      'bad operator',
      { filter: { status: { $ne: 'x' } } },
      'operator_not_allowed',
      '#/filter/status/$ne',
      'Operator "$ne" is not allowed on field "status"; allowed: eq, ne, in.',
    ],
    [
      'value not of the field type',
      { filter: { status: 'archived' } },
      'invalid_value',
      '#/filter/status',
      'Field "filter.status" must be one of active, paused, done; got "archived".',
    ],
    [
      'operator value not of the field type',
      { filter: { priority: { gte: 'high' } } },
      'invalid_value',
      '#/filter/priority/gte',
      'Field "filter.priority.gte" must be an integer; got "high".',
    ],
    [
      'in item not of the field type',
      { filter: { id: { in: [1, 'x'] } } },
      'invalid_value',
      '#/filter/id/in',
      'Field "filter.id.in" must be a list of values, each an integer; got "x".',
    ],
    [
      'empty item of a repeatable field',
      { filter: { tag: ['a', ''] } },
      'invalid_value',
      '#/filter/tag/1',
      'Field "filter.tag" must be a non-empty string; got "".',
    ],
    [
      'object value',
      { filter: { age: { eq: { a: 1 } } } },
      'invalid_value',
      '#/filter/age/eq',
      'Field "filter.age.eq" must be a string, number or boolean.',
    ],
    [
      'fractional limit',
      { limit: 10.5 },
      'invalid_pagination',
      '#/limit',
      'Field "limit" must be an integer from 1 to 100.',
    ],
    ['limit too large', { limit: 1e3 }, 'limit_too_large', '#/limit', 'Field "limit" must be at most 100.'],
    [
      'page with offset',
      { offset: 20, page: 2 },
      'conflicting_pagination',
      '#/page',
      'Pagination fields offset, page cannot be combined.',
    ],
    [
      'non-repeatable array',
      { filter: { status: ['active', 'done'] } },
      'duplicate_parameter',
      '#/filter/status/1',
      'Field "filter.status" takes one value, not a list.',
    ],
    [
      'fields repeated',
      { fields: ['name', 'name'] },
      'invalid_value',
      '#/fields',
      'Field "fields" must be a list of distinct field names; got "name,name".',
    ],
    ['short q', { q: 'ab' }, 'search_too_short', '#/q', 'Search text must be at least 3 characters.'],
    [
      'in item with a comma',
      { filter: { id: { in: ['1,2'] } } },
      'invalid_value',
      '#/filter/id/in',
      'Field "filter.id.in" must be a string, number or array of them.',
    ],
    [
      'a lone surrogate (no link could carry it)',
      { filter: { name: 'a\ud800' } },
      'invalid_value',
      '#/filter/name',
      'Field "filter.name" must be text without control characters or unpaired surrogates.',
    ],
    [
      'a lone low surrogate in q',
      { q: '\udc00abc' },
      'invalid_value',
      '#/q',
      'Field "q" must be text without control characters or unpaired surrogates.',
    ],
    [
      'a NUL in a value',
      { filter: { name: 'a\u0000b' } },
      'invalid_value',
      '#/filter/name',
      'Field "filter.name" must be text without control characters or unpaired surrogates.',
    ],
  ])('%s → %s at %s', async (_name, body, code, pointer, detail) => {
    const { status, body: problem } = await coreOutcome(() => parseSearchBody(tasks, body));
    expect(status).toBe(400);
    expect(problem).toMatchObject({
      error_code: code,
      detail,
      errors: [{ pointer, error_code: code, detail }],
    });
  });

  // The same problems in German: the catalogue names the body field in every language it has.
  it.each([
    [
      { filter: { colour: 'red' } },
      `Das Feld „filter.colour“ wird nicht unterstützt; unterstützt: ${FILTERABLE}.`,
    ],
    [
      { filter: { status: ['active', 'done'] } },
      'Das Feld „filter.status“ erlaubt nur einen Wert, keine Liste.',
    ],
    [
      { filter: { priority: { gte: 'high' } } },
      'Das Feld „filter.priority.gte“ muss an integer sein; erhalten: „high“.',
    ],
    [{ limit: 1e3 }, 'Das Feld „limit“ darf höchstens 100 sein.'],
    [{ limit: 0 }, 'Das Feld „limit“ muss an integer from 1 to 100 sein.'],
    [{ offset: 20, page: 2 }, 'Die Seitenfelder offset, page können nicht kombiniert werden.'],
    [[], 'Der Anfragetext muss a JSON object sein.'],
  ])('in German: %j → %s', (body, detail) => {
    let thrown: unknown;
    try {
      parseSearchBody(tasks, body);
    } catch (error) {
      thrown = error;
    }
    const problem = toProblem(thrown, { language: 'de' });
    expect([problem.detail, problem.errors?.[0]?.detail]).toEqual([detail, detail]);
  });

  it('a query string keeps speaking of its parameters', () => {
    let thrown: unknown;
    try {
      parseQuery(tasks, 'colour=red');
    } catch (error) {
      thrown = error;
    }
    expect(toProblem(thrown).errors).toEqual([
      {
        parameter: 'colour',
        error_code: 'unknown_parameter',
        // The list is cut at 120 characters, as every interpolated value is.
        detail: `Query parameter "colour" is not supported; supported: ${FILTERABLE}, q, sort, limit, offset, page, size, cur….`,
      },
    ]);
    expect(toProblem(thrown, { language: 'de' }).detail).toMatch(
      /^Der Abfrageparameter „colour“ wird nicht unterstützt/,
    );
  });
});

// The bound every page link keeps: 128 bytes of canonical query string, 10 parameters. Without a
// default sort, `name=<n x>` is written `name=<n x>&limit=20&offset=10000` in its longest link
// (`last`, at maxOffset): n + 27 bytes, so n = 101 is the longest name that fits.
const bounded = defineCollection({
  fields: {
    id: { type: 'int', sort: true },
    name: { type: 'string', filter: ['eq'], search: true },
    tag: { type: 'string', filter: ['eq'], repeatable: true },
  },
  maxQueryLength: 128,
  maxParameters: 10,
  cursorSecret: SECRET,
});
const tooLong = (detail: string) => ({
  type: '/errors/query_too_long',
  title: 'Bad Request',
  status: 400,
  error_code: 'query_too_long',
  detail,
  message: detail,
});
const TOO_LONG = tooLong('The query string must be at most 128 bytes.');
/** The same problem for a search body, whose message says how long it is as a query string. */
const bodyTooLong = (length: number) =>
  tooLong(`The search body is ${length} bytes long as a query string; at most 128 are allowed.`);
const TOO_MANY = {
  type: '/errors/query_too_long',
  title: 'Bad Request',
  status: 400,
  error_code: 'query_too_long',
  detail: 'The query string is too long.',
  message: 'The query string is too long.',
  max_parameters: 10,
};

describe('query_too_long: a search body meets the bound of a query string, measured as every page link', () => {
  const x = (n: number) => 'x'.repeat(n);
  it.each([
    ['GET, the longest link at the bound', 'GET', `name=${x(101)}`, 128],
    ['body, the longest link at the bound', 'POST', { filter: { name: x(101) } }, 128],
    ['GET, one byte over once written canonically', 'GET', `name=${x(102)}`, TOO_LONG],
    ['body, one byte over', 'POST', { filter: { name: x(102) } }, bodyTooLong(129)],
    // 45 bytes as sent, but `+` is written `%20` in the links: 5 + 120 + 22 = 147 bytes.
    ['GET, 40 spaces sent as + (links write %20)', 'GET', `name=${'+'.repeat(40)}`, TOO_LONG],
    ['body, 40 spaces', 'POST', { filter: { name: ' '.repeat(40) } }, bodyTooLong(147)],
    // é is %C3%A9 in a link: q=<17 é> is 2 + 102 + 22 = 126 bytes, 18 of them 132.
    ['body, non-ASCII search at the bound', 'POST', { q: 'é'.repeat(17) }, 126],
    ['body, non-ASCII search over it', 'POST', { q: 'é'.repeat(18) }, bodyTooLong(132)],
    // page=1&size=100 in the request (n + 21 bytes), page=101&size=100 in the last link (n + 23).
    [
      'body, page mode: the last page number counts',
      'POST',
      { filter: { name: x(105) }, page: 1, size: 100 },
      128,
    ],
    [
      'body, page mode: over once the last page is written',
      'POST',
      { filter: { name: x(106) }, page: 1, size: 100 },
      bodyTooLong(129),
    ],
    ['GET, 10 parameters', 'GET', Array.from({ length: 10 }, (_, i) => `tag=${i}`).join('&'), 81],
    ['GET, 11 parameters', 'GET', Array.from({ length: 11 }, (_, i) => `tag=${i}`).join('&'), TOO_MANY],
    ['body, 10 values', 'POST', { filter: { tag: Array.from({ length: 10 }, (_, i) => `${i}`) } }, 81],
    ['body, 11 values', 'POST', { filter: { tag: Array.from({ length: 11 }, (_, i) => `${i}`) } }, TOO_MANY],
    [
      'body, 11 values over several members',
      'POST',
      { filter: { name: 'a', tag: Array.from({ length: 8 }, (_, i) => `${i}`) }, q: 'abc', limit: 5 },
      TOO_MANY,
    ],
  ] as const)('%s', async (_name, method, input, expected) => {
    const outcome = await coreOutcome(() =>
      method === 'GET' ? parseQuery(bounded, input as string) : parseSearchBody(bounded, input),
    );
    if (typeof expected === 'number') {
      expect(outcome.status).toBe(200);
      const query = outcome.body as CollectionQuery;
      const lengths = linkQueries(query).map((q) => q.length);
      expect(Math.max(...lengths)).toBe(expected);
    } else {
      expect([outcome.status, outcome.body]).toEqual([400, expected]);
    }
  });

  it('a cursor page is measured by its self link, which carries the request cursor', async () => {
    const cursorOf = (name: string) => {
      const first = parseQuery(bounded, `name=${name}&limit=1`);
      return buildPage(first, [{ id: 1 }, { id: 2 }], { baseUrl: '/b' }).body.page.next_cursor!;
    };
    // name=<n>&limit=1&cursor=<c>: 5 + n + 16 + c bytes; every cursor here is as long.
    const n = 128 - 21 - cursorOf('x').length;
    const at = `name=${'x'.repeat(n)}&limit=1&cursor=${cursorOf('x'.repeat(n))}`;
    const over = `name=${'x'.repeat(n + 1)}&limit=1&cursor=${cursorOf('x'.repeat(n + 1))}`;
    expect(at.length).toBe(128);
    expect(toQueryString(parseQuery(bounded, at))).toBe(at);
    // self, first (no cursor), next (a cursor made from the last row: here as long as the request's).
    expect(linkQueries(parseQuery(bounded, at)).map((q) => q.length)).toEqual([
      128,
      128 - 8 - cursorOf('x').length,
      128,
    ]);
    const refused = await coreOutcome(() => parseQuery(bounded, over));
    expect([refused.status, refused.body]).toEqual([400, TOO_LONG]);
  });

  // The README's bound of the Link header: 5 × (base URL + maxQueryLength + 11) + 29 bytes.
  it.each([
    ['offset', { filter: { name: 'x'.repeat(102) }, limit: 1, offset: 40 }],
    ['page', { filter: { name: 'x'.repeat(105) }, page: 2, size: 100 }],
  ])('a %s page at the bound, with all five relations, keeps the Link header within it', (_mode, body) => {
    const query = parseSearchBody(bounded, body);
    const baseUrl = '/v1/projects/7d4b4a40-5d6f-4f43-9a52-3f2f0e8c1a11/tasks';
    const rows = Array.from({ length: query.pagination.limit + 1 }, (_, i) => ({ id: i + 1 }));
    const { link } = buildPage(query, rows, { baseUrl, total: 1_000_000 });
    expect(link.match(/rel="(\w+)"/g)).toEqual([
      'rel="self"',
      'rel="first"',
      'rel="prev"',
      'rel="next"',
      'rel="last"',
    ]);
    expect(Math.max(...linkQueries(query).map((q) => q.length))).toBe(128);
    expect(link.length).toBeLessThanOrEqual(5 * (baseUrl.length + 128 + 11) + 29);
  });

  it('the body variant knows how long the body is as a query string', () => {
    let thrown: unknown;
    try {
      parseSearchBody(bounded, { filter: { name: 'x'.repeat(150) } });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ code: 'query_too_long', params: { max: 128, body_length: 177 } });
    expect((thrown as HttpError).errors).toEqual([]);
  });

  it('a query with other problems reports those, not its length', async () => {
    const { body } = await coreOutcome(() =>
      parseSearchBody(bounded, { filter: { name: 'x'.repeat(150) }, limit: 0 }),
    );
    expect(body).toMatchObject({ error_code: 'invalid_pagination', errors: [{ pointer: '#/limit' }] });
  });
});

describe('scope (parent-scoped collections)', () => {
  it('adds server-side equality filters, typed by the field, never written to links', () => {
    const query = parseQuery(tasks, 'status=active', { scope: { project_id: '2' } });
    expect(query.scope).toEqual([{ field: 'project_id', op: 'eq', value: 2 }]);
    expect(applyToArray(query, rows).every((r) => r.project_id === 2 && r.status === 'active')).toBe(true);
    expect(toQueryString(query)).toBe('status=active&sort=-created_at&limit=20&offset=0');
  });

  it('binds cursors to the scope', () => {
    const one = parseQuery(tasks, 'sort=name&limit=2', { scope: { project_id: 1 } });
    const cursor = buildPage(one, applyToArray(one, rows), { baseUrl: '/p/1/tasks' }).body.page.next_cursor!;
    expect(
      parseQuery(tasks, `sort=name&limit=2&cursor=${cursor}`, { scope: { project_id: 1 } }).pagination,
    ).toMatchObject({
      mode: 'cursor',
    });
    expect(() =>
      parseQuery(tasks, `sort=name&limit=2&cursor=${cursor}`, { scope: { project_id: 2 } }),
    ).toThrow(expect.objectContaining({ code: 'invalid_cursor' }));
  });

  it('a scope value that cannot be of the field type is 404, an undeclared field a TypeError', () => {
    expect(() => parseQuery(tasks, '', { scope: { project_id: 'abc' } })).toThrow(
      expect.objectContaining({ code: 'not_found', status: 404 }),
    );
    expect(() => parseQuery(tasks, '', { scope: { nope: 1 } })).toThrow(TypeError);
  });
});

describe('defineCollection refuses bad configurations', () => {
  it.each([
    [
      'ambiguous sort names',
      {
        fields: {
          id: { type: 'int' },
          name: { type: 'string', sort: true },
          name_desc: { type: 'string', sort: true },
        },
      },
    ],
    [
      'ordering operator on a boolean',
      { fields: { id: { type: 'int' }, done: { type: 'boolean', filter: ['gt'] } } },
    ],
    ['ordering operator on a uuid', { fields: { id: { type: 'uuid', filter: ['lt'] } } }],
    [
      'ordering operator on an enum',
      { fields: { id: { type: 'int' }, s: { type: 'enum', values: ['a'], filter: ['gte'] } } },
    ],
    ['unknown operator', { fields: { id: { type: 'int', filter: ['like'] } } }],
    ['field named sort', { fields: { id: { type: 'int' }, sort: { type: 'string' } } }],
    ['field named limit', { fields: { id: { type: 'int' }, limit: { type: 'int' } } }],
    ['field named __proto__', { fields: { id: { type: 'int' }, ['__proto__']: { type: 'int' } } }],
    ['field name with a bracket', { fields: { id: { type: 'int' }, 'a[b]': { type: 'int' } } }],
    ['missing id', { fields: { name: { type: 'string' } } }],
    ['unselectable id', { fields: { id: { type: 'int', select: false } } }],
    ['enum without values', { fields: { id: { type: 'int' }, s: { type: 'enum' } } }],
    ['enum value with a comma', { fields: { id: { type: 'int' }, s: { type: 'enum', values: ['a,b'] } } }],
    ['values on a non-enum', { fields: { id: { type: 'int', values: ['1'] } } }],
    ['searchable int', { fields: { id: { type: 'int', search: true } } }],
    ['repeatable without eq', { fields: { id: { type: 'int', filter: ['gt'], repeatable: true } } }],
    ['bad column', { fields: { id: { type: 'int', column: 'id; DROP' } } }],
    [
      'default sort on an unsortable field',
      { fields: { id: { type: 'int' }, n: { type: 'int' } }, defaultSort: 'n' },
    ],
    [
      'default sort with four keys',
      { fields: { id: { type: 'int', sort: true } }, defaultSort: 'id,id,id,id' },
    ],
    ['short cursor secret', { fields: { id: { type: 'int' } }, cursorSecret: 'short' }],
    ['defaultLimit over maxLimit', { fields: { id: { type: 'int' } }, defaultLimit: 50, maxLimit: 10 }],
    ['no pagination mode', { fields: { id: { type: 'int' } }, pagination: [] }],
    ['search min over max', { fields: { id: { type: 'int' } }, searchMinLength: 10, searchMaxLength: 5 }],
  ])('%s', (_name, options) => {
    expect(() => defineCollection(options as Parameters<typeof defineCollection>[0])).toThrow(TypeError);
  });
});

describe('cursor secret', () => {
  it('never appears on the collection object', () => {
    expect(JSON.stringify(tasks)).not.toContain(SECRET);
    expect(Object.values(tasks).some((v) => v instanceof Uint8Array)).toBe(false);
  });

  it('defaults to a random per-process key that still round-trips', () => {
    const random = defineCollection({ fields: { id: { type: 'int', sort: true } } });
    const first = parseQuery(random, 'limit=2');
    const cursor = buildPage(first, applyToArray(first, rows), { baseUrl: '/r' }).body.page.next_cursor!;
    expect(parseQuery(random, `limit=2&cursor=${cursor}`).pagination).toMatchObject({ after: [2] });
    const other = defineCollection({ fields: { id: { type: 'int', sort: true } } });
    expect(() => parseQuery(other, `limit=2&cursor=${cursor}`)).toThrow(
      expect.objectContaining({ code: 'invalid_cursor' }),
    );
  });
});
