import { isHttpError } from '@plumbline/errors';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  changelog,
  changelogMarkdown,
  type Endpoint,
  endpointAdded,
  endpointRemoved,
  enumValueAdded,
  fieldBecameRequired,
  fieldRenamed,
  fieldShapeChanged,
  isDateVersion,
  versionChange,
  versions,
} from './index.js';

// The reference service's change: v1 budget is a plain number, v2 budget is { amount, currency }.
interface Money {
  amount: number;
  currency: string;
}
const budgetBecameMoney = versionChange({
  description: {
    en: 'Project.budget is now an object { amount, currency }; older versions send and get a number in EUR.',
    fr: 'Project.budget est maintenant un objet { amount, currency } ; les versions précédentes gardent un nombre en EUR.',
  },
  affects: ['Project'],
  request: (body) => {
    const value = body as { budget?: unknown };
    return typeof value.budget === 'number'
      ? { ...value, budget: { amount: value.budget, currency: 'EUR' } }
      : body;
  },
  response: (body) => {
    const value = body as { budget?: Money };
    return value.budget === undefined ? body : { ...value, budget: value.budget.amount };
  },
  errors: (problem) => {
    const value = problem as { errors?: { pointer: string }[] };
    if (value.errors === undefined) return problem;
    return {
      ...value,
      errors: value.errors.map((item) =>
        item.pointer.startsWith('/budget/') ? { ...item, pointer: '/budget' } : item,
      ),
    };
  },
});

const api = versions([{ version: '1' }, { version: '2', changes: [budgetBecameMoney] }]);
const CREATE: Endpoint = { method: 'POST', path: '/projects', schemas: ['Project'] };
const GET: Endpoint = { method: 'GET', path: '/projects/{id}', schemas: ['Project'] };
const LIST: Endpoint = { method: 'GET', path: '/projects', schemas: ['Project'], collection: 'data' };
const HEALTH: Endpoint = { method: 'GET', path: '/health' };

describe('worked example: budget became money between 1 and 2', () => {
  it.each([
    [
      'v1 request goes up',
      '1',
      { name: 'Roof', budget: 1200 },
      { name: 'Roof', budget: { amount: 1200, currency: 'EUR' } },
    ],
    [
      'v2 request is left alone',
      '2',
      { name: 'Roof', budget: { amount: 5, currency: 'USD' } },
      { name: 'Roof', budget: { amount: 5, currency: 'USD' } },
    ],
    ['v1 request without budget', '1', { name: 'Roof' }, { name: 'Roof' }],
  ])('%s', (_name, from, body, expected) => {
    expect(api.migrateRequest(from, body, CREATE)).toEqual(expected);
  });

  it('does not mutate the request it migrates', () => {
    const body = { name: 'Roof', budget: 1200 };
    api.migrateRequest('1', body, CREATE);
    expect(body).toEqual({ name: 'Roof', budget: 1200 });
  });

  it.each([
    [
      'single item down to 1',
      '1',
      GET,
      { id: 7, budget: { amount: 1200, currency: 'EUR' } },
      { id: 7, budget: 1200 },
    ],
    [
      'single item in 2',
      '2',
      GET,
      { id: 7, budget: { amount: 1200, currency: 'EUR' } },
      { id: 7, budget: { amount: 1200, currency: 'EUR' } },
    ],
    [
      'collection page items down to 1, page fields kept',
      '1',
      LIST,
      {
        data: [
          { id: 1, budget: { amount: 10, currency: 'EUR' } },
          { id: 2, budget: { amount: 20, currency: 'USD' } },
        ],
        next_cursor: 'abc',
      },
      {
        data: [
          { id: 1, budget: 10 },
          { id: 2, budget: 20 },
        ],
        next_cursor: 'abc',
      },
    ],
    [
      'a JSON array is read item by item',
      '1',
      GET,
      [{ id: 1, budget: { amount: 10, currency: 'EUR' } }],
      [{ id: 1, budget: 10 }],
    ],
    [
      'an endpoint the change does not affect',
      '1',
      HEALTH,
      { budget: { amount: 1, currency: 'EUR' } },
      { budget: { amount: 1, currency: 'EUR' } },
    ],
  ])('%s', (_name, to, endpoint, body, expected) => {
    expect(api.migrateResponse(to, body, endpoint)).toEqual(expected);
  });

  it('a problem document goes down with errors', () => {
    const problem = {
      type: 'https://errors.example.com/validation_failed',
      status: 422,
      errors: [
        { pointer: '/budget/amount', detail: 'must be positive' },
        { pointer: '/name', detail: 'required' },
      ],
    };
    expect(api.migrateError('1', problem, CREATE)).toEqual({
      type: 'https://errors.example.com/validation_failed',
      status: 422,
      errors: [
        { pointer: '/budget', detail: 'must be positive' },
        { pointer: '/name', detail: 'required' },
      ],
    });
    expect(api.migrateError('2', problem, CREATE)).toBe(problem);
  });

  it('an unknown version is a TypeError naming the declared ones', () => {
    expect(() => api.migrateRequest('3', {}, CREATE)).toThrow(
      new TypeError('@plumbline/versioning: version "3" is not declared (declared: 1, 2)'),
    );
    expect(() => api.migrateResponse('v1', {}, GET)).toThrow(TypeError);
  });
});

describe('changes apply in order across several versions', () => {
  const trail: string[] = [];
  const step = (name: string) =>
    versionChange({
      description: name,
      affects: ['Thing'],
      request: (body) => {
        trail.push(`up ${name}`);
        return body;
      },
      response: (body) => {
        trail.push(`down ${name}`);
        return body;
      },
    });
  const chain = versions([
    { version: '1' },
    { version: '2', changes: [step('a'), step('b')] },
    { version: '3', changes: [step('c')] },
  ]);
  const THING: Endpoint = { method: 'GET', path: '/things', schemas: ['Thing'] };

  it.each([
    ['1', ['up a', 'up b', 'up c'], ['down c', 'down b', 'down a']],
    ['2', ['up c'], ['down c']],
    ['3', [], []],
  ])('from and to %s', (version, up, down) => {
    trail.length = 0;
    chain.migrateRequest(version, {}, THING);
    expect(trail).toEqual(up);
    trail.length = 0;
    chain.migrateResponse(version, {}, THING);
    expect(trail).toEqual(down);
  });

  it('add() appends a version: v2 = v1 + [change]', () => {
    const v1 = versions([{ version: '1' }]);
    const v2 = v1.add({ version: '2', changes: [budgetBecameMoney] });
    expect([v1.versions, v2.versions, v2.newest]).toEqual([['1'], ['1', '2'], '2']);
    expect(v2.migrateResponse('1', { budget: { amount: 3, currency: 'EUR' } }, GET)).toEqual({ budget: 3 });
  });
});

describe('helpers', () => {
  const rename = fieldRenamed({ schema: 'Project', from: 'name', to: 'title' });
  const shape = fieldShapeChanged({
    schema: 'Project',
    field: 'budget',
    up: (amount: number) => ({ amount, currency: 'EUR' }),
    down: (money: Money) => money.amount,
    oldSchema: { type: 'number' },
  });
  const required = fieldBecameRequired({ schema: 'Project', field: 'currency', default: 'EUR' });
  const paused = enumValueAdded({ schema: 'Project', field: 'status', value: 'paused', downTo: 'active' });
  const one = (change: ReturnType<typeof versionChange>) =>
    versions([{ version: '1' }, { version: '2', changes: [change] }]);

  it.each([
    ['rename up', rename, 'up', { name: 'Roof', id: 1 }, { title: 'Roof', id: 1 }],
    ['rename down', rename, 'down', { title: 'Roof', id: 1 }, { name: 'Roof', id: 1 }],
    // An older client's `title` is a member its version lacks: set aside, never taken for the field.
    [
      'rename up: the newer name alone',
      rename,
      'up',
      { title: 'Roof', id: 1 },
      { '\u0000title': 'Roof', id: 1 },
    ],
    [
      'rename up: both names',
      rename,
      'up',
      { name: 'Roof', title: 'Attic', id: 1 },
      { title: 'Roof', '\u0000title': 'Attic', id: 1 },
    ],
    ['shape up', shape, 'up', { budget: 1200 }, { budget: { amount: 1200, currency: 'EUR' } }],
    ['shape down', shape, 'down', { budget: { amount: 1200, currency: 'EUR' } }, { budget: 1200 }],
    ['shape without the field', shape, 'up', { id: 1 }, { id: 1 }],
    ['required: default added', required, 'up', { id: 1 }, { id: 1, currency: 'EUR' }],
    ['required: sent value kept', required, 'up', { currency: 'USD' }, { currency: 'USD' }],
    ['required: response unchanged', required, 'down', { currency: 'USD' }, { currency: 'USD' }],
    ['enum: new value maps down', paused, 'down', { status: 'paused' }, { status: 'active' }],
    ['enum: old value unchanged', paused, 'down', { status: 'done' }, { status: 'done' }],
    ['enum: request unchanged', paused, 'up', { status: 'active' }, { status: 'active' }],
    ['not an object', rename, 'up', 'text', 'text'],
  ] as const)('%s', (_name, change, direction, input, expected) => {
    const declared = one(change);
    const result =
      direction === 'up'
        ? declared.migrateRequest('1', input, GET)
        : declared.migrateResponse('1', input, GET);
    expect(result).toEqual(expected);
  });

  it('a "__proto__" key a client sent stays an own data property through a rename', () => {
    const body = JSON.parse('{"name":"Roof","__proto__":{"admin":true}}') as Record<string, unknown>;
    const up = one(rename).migrateRequest('1', body, GET) as Record<string, unknown>;
    expect(Object.getPrototypeOf(up)).toBe(Object.prototype);
    expect(Object.keys(up)).toEqual(['title', '__proto__']);
    expect((up as { admin?: unknown }).admin).toBeUndefined();
  });

  it('a query parameter renamed: the newer name an older client sent is set aside', () => {
    const declared = one(fieldRenamed({ schema: 'Project', from: 'q', to: 'search', in: 'query' }));
    expect(declared.migrateRequest('1', { search: 'roof', q: 'attic' }, LIST, 'query')).toEqual({
      '\u0000search': 'roof',
      search: 'attic',
    });
  });

  it('a body helper leaves the query alone unless declared for it', () => {
    const declared = one(fieldRenamed({ schema: 'Project', from: 'q', to: 'search', in: 'query' }));
    expect(declared.migrateRequest('1', { q: 'roof' }, LIST, 'query')).toEqual({ search: 'roof' });
    expect(declared.migrateRequest('1', { q: 'roof' }, LIST, 'body')).toEqual({ q: 'roof' });
    expect(one(rename).migrateRequest('1', { name: 'x' }, LIST, 'query')).toEqual({ name: 'x' });
  });

  describe("fieldRenamed({ queryField: true }): an older client's collection query is renamed too", () => {
    const renamed = one(fieldRenamed({ schema: 'Project', from: 'name', to: 'title', queryField: true }));
    it.each([
      ['a filter', { name: 'Roof' }, { title: 'Roof' }],
      [
        'a filter with an operator',
        { 'name[ne]': 'Roof', 'name[gte]': 'A' },
        { 'title[ne]': 'Roof', 'title[gte]': 'A' },
      ],
      [
        'sort keys in every form',
        { sort: '-name,+name,name:desc,name_asc,name' },
        { sort: '-title,+title,title:desc,title_asc,title' },
      ],
      [
        'sort on other fields and look-alikes',
        { sort: '-created_at,names,name_x,nick:name' },
        { sort: '-created_at,names,name_x,nick:name' },
      ],
      ['fields', { fields: 'id,name,budget' }, { fields: 'id,title,budget' }],
      [
        'a repeated parameter (an array)',
        { fields: ['name', 'id'], sort: ['-name'] },
        { fields: ['title', 'id'], sort: ['-title'] },
      ],
      [
        'other parameters and look-alike keys kept',
        { limit: '5', q: 'name', namex: '1', 'name[': '2' },
        { limit: '5', q: 'name', namex: '1', 'name[': '2' },
      ],
      [
        'parameter order kept',
        { limit: '5', name: 'a', sort: 'name' },
        { limit: '5', title: 'a', sort: 'title' },
      ],
    ])('%s', (_label, query, expected) => {
      const up = renamed.migrateRequest('1', query, LIST, 'query');
      expect(up).toEqual(expected);
      expect(Object.keys(up as object)).toEqual(Object.keys(expected));
    });

    it('the body is renamed as without the option, the newest version untouched, the response renamed back', () => {
      expect(renamed.migrateRequest('1', { name: 'Roof' }, LIST, 'body')).toEqual({ title: 'Roof' });
      const query = { sort: '-title' };
      expect(renamed.migrateRequest('2', query, LIST, 'query')).toBe(query);
      expect(renamed.migrateResponse('1', { data: [{ id: 1, title: 'Roof' }] }, LIST)).toEqual({
        data: [{ id: 1, name: 'Roof' }],
      });
    });

    it('a "__proto__" query parameter stays data', () => {
      const query = JSON.parse('{"name":"x","__proto__":{"admin":true}}') as Record<string, unknown>;
      const up = renamed.migrateRequest('1', query, LIST, 'query') as Record<string, unknown>;
      expect(Object.getPrototypeOf(up)).toBe(Object.prototype);
      expect(Object.keys(up)).toEqual(['title', '__proto__']);
    });
  });

  const V2_SCHEMA = {
    type: 'object',
    properties: {
      title: { type: 'string' },
      budget: { type: 'object', properties: { amount: { type: 'number' } } },
      currency: { type: 'string' },
      status: { enum: ['active', 'paused', 'done'] },
    },
    required: ['title', 'currency'],
  };

  it.each([
    [
      'rename',
      rename,
      {
        ...V2_SCHEMA,
        properties: { name: { type: 'string' }, ...V2_SCHEMA.properties, title: undefined },
        required: ['name', 'currency'],
      },
    ],
    ['shape', shape, { ...V2_SCHEMA, properties: { ...V2_SCHEMA.properties, budget: { type: 'number' } } }],
    ['required', required, { ...V2_SCHEMA, required: ['title'] }],
    [
      'enum',
      paused,
      { ...V2_SCHEMA, properties: { ...V2_SCHEMA.properties, status: { enum: ['active', 'done'] } } },
    ],
  ])('schemaDown: %s', (_name, change, expected) => {
    const down = change.schemaDown!(V2_SCHEMA);
    // The rename keeps the property's position: compare key order too.
    expect(JSON.parse(JSON.stringify(down))).toEqual(JSON.parse(JSON.stringify(expected)));
    expect(one(change).schemaAt('1', 'Project', V2_SCHEMA)).toEqual(down);
    expect(one(change).schemaAt('2', 'Project', V2_SCHEMA)).toBe(V2_SCHEMA);
  });

  it('rename keeps the field position in the schema', () => {
    expect(Object.keys(properties(rename.schemaDown!(V2_SCHEMA)))).toEqual([
      'name',
      'budget',
      'currency',
      'status',
    ]);
  });

  it.each([
    [
      rename,
      {
        kind: 'field-renamed',
        details: { schema: 'Project', from: 'name', to: 'title', in: 'body', queryField: false },
      },
    ],
    [
      required,
      {
        kind: 'field-became-required',
        details: { schema: 'Project', field: 'currency', default: 'EUR', in: 'body' },
      },
    ],
    [
      paused,
      {
        kind: 'enum-value-added',
        details: { schema: 'Project', field: 'status', value: 'paused', downTo: 'active' },
      },
    ],
    [
      endpointAdded({ method: 'post', path: '/x' }),
      { kind: 'endpoint-added', details: { method: 'POST', path: '/x' } },
    ],
  ])('describes itself: %#', (change, expected) => {
    expect({ kind: change.kind, details: change.details }).toEqual(expected);
  });

  it.each([
    [() => versionChange({ description: '', affects: ['X'] }), 'a version change needs a description'],
    [() => versionChange({ description: 'x', affects: [] }), 'a version change must list what it affects'],
    [
      () => versionChange({ description: 'x', affects: ['X'], request: 1 as never }),
      'request must be a function',
    ],
    [() => fieldRenamed({ schema: 'X', from: 'a', to: 'a' }), 'fieldRenamed: "a" is renamed to itself'],
    [() => fieldBecameRequired({ schema: 'X', field: 'a' } as never), 'fieldBecameRequired needs a default'],
    [
      () => enumValueAdded({ schema: 'X', field: 'a', value: 1, downTo: 1 }),
      'enumValueAdded: "1" cannot map down',
    ],
    [() => versions([]), 'versions needs at least one version'],
    [() => versions([{ version: '2' }, { version: '1' }]), 'oldest first without repeats: 2 then 1'],
    [() => versions([{ version: '1' }, { version: '2026-01-01' }]), 'all be dates'],
    [() => versions([{ version: '1', changes: [rename] }]), 'the first version (1) has nothing before it'],
  ])('refuses at declaration: %#', (declare, message) => {
    expect(declare).toThrow(message);
  });
});

function properties(schema: Record<string, unknown>): Record<string, unknown> {
  return schema['properties'] as Record<string, unknown>;
}

describe('endpoints added and removed', () => {
  const ARCHIVE = { method: 'POST', path: '/projects/{id}/archive' };
  const EXPORT = { method: 'GET', path: '/projects/export.csv' };
  const declared = versions([
    { version: '1' },
    { version: '2', changes: [endpointAdded(ARCHIVE)] },
    { version: '3', changes: [endpointRemoved(EXPORT)] },
  ]);

  it.each([
    ['1', ARCHIVE, false],
    ['2', ARCHIVE, true],
    ['3', ARCHIVE, true],
    ['1', EXPORT, true],
    ['2', EXPORT, true],
    ['3', EXPORT, false],
    ['1', { method: 'post', path: '/projects/{id}/archive' }, false],
    ['1', { method: 'GET', path: '/projects' }, true],
  ])('version %s serves %j: %s', (version, endpoint, served) => {
    expect(declared.hasEndpoint(version, endpoint)).toBe(served);
    if (served) expect(declared.migrateRequest(version, { a: 1 }, endpoint)).toEqual({ a: 1 });
    else {
      let error: unknown;
      try {
        declared.migrateRequest(version, {}, endpoint);
      } catch (caught) {
        error = caught;
      }
      expect(isHttpError(error) && [error.status, error.code]).toEqual([404, 'not_found']);
    }
  });
});

describe('changelog', () => {
  const declared = versions([
    { version: '1' },
    { version: '2', changes: [budgetBecameMoney] },
    { version: '2.1', changes: [fieldRenamed({ schema: 'Project', from: 'name', to: 'title' })] },
    {
      version: '3',
      changes: [
        endpointAdded({
          method: 'POST',
          path: '/projects/{id}/archive',
          description: { en: 'Archive', de: 'Archivieren' },
        }),
      ],
    },
  ]);

  it.each([
    [
      undefined,
      'Project.budget is now an object { amount, currency }; older versions send and get a number in EUR.',
      'Archive',
    ],
    [
      'fr-CA',
      'Project.budget est maintenant un objet { amount, currency } ; les versions précédentes gardent un nombre en EUR.',
      'Archive',
    ],
    [
      'de',
      'Project.budget is now an object { amount, currency }; older versions send and get a number in EUR.',
      'Archivieren',
    ],
  ])('JSON in %s, newest first', (language, budget, archive) => {
    expect(changelog(declared, language === undefined ? {} : { language })).toEqual([
      {
        version: '3',
        changes: [
          {
            kind: 'endpoint-added',
            description: archive,
            affects: [{ method: 'POST', path: '/projects/{id}/archive' }],
          },
        ],
      },
      {
        version: '2.1',
        changes: [
          {
            kind: 'field-renamed',
            description: 'Project: the field `name` was renamed to `title`.',
            affects: ['Project'],
          },
        ],
      },
      { version: '2', changes: [{ kind: 'custom', description: budget, affects: ['Project'] }] },
    ]);
  });

  it('Markdown', () => {
    expect(changelogMarkdown(declared)).toBe(
      [
        '## 3',
        '',
        '- Archive (POST /projects/{id}/archive)',
        '',
        '## 2.1',
        '',
        '- Project: the field `name` was renamed to `title`. (Project)',
        '',
        '## 2',
        '',
        '- Project.budget is now an object { amount, currency }; older versions send and get a number in EUR. (Project)',
        '',
      ].join('\n'),
    );
  });
});

describe('date versions', () => {
  it.each([
    ['2026-11-01', true],
    ['2024-02-29', true],
    ['2026-02-29', false],
    ['2026-13-01', false],
    ['2026-1-01', false],
    ['20261101', false],
  ])('isDateVersion(%s) is %s', (text, expected) => {
    expect(isDateVersion(text)).toBe(expected);
  });

  it('declares and migrates by date', () => {
    const dated = versions([
      { version: '2025-01-15' },
      { version: '2026-11-01', changes: [budgetBecameMoney] },
    ]);
    expect(dated.migrateResponse('2025-01-15', { budget: { amount: 9, currency: 'EUR' } }, GET)).toEqual({
      budget: 9,
    });
  });
});

// Old-version objects: any keys except the new name, with JSON values.
const key = fc.string({ minLength: 1, maxLength: 8 }).filter((k) => k !== '__proto__');
const oldObject = (forbidden: string) =>
  fc.dictionary(
    key.filter((k) => k !== forbidden),
    fc.jsonValue(),
    { maxKeys: 6 },
  );

describe('properties: down(up(x)) is x for inputs valid in the old version', () => {
  it('fieldRenamed', () => {
    fc.assert(
      fc.property(key, key, fc.jsonValue(), (from, to, value) => {
        fc.pre(from !== to);
        const declared = versions([
          { version: '1' },
          { version: '2', changes: [fieldRenamed({ schema: 'S', from, to })] },
        ]);
        const endpoint: Endpoint = { method: 'POST', path: '/s', schemas: ['S'] };
        fc.assert(
          fc.property(oldObject(to), (rest) => {
            const input = { ...rest, [from]: value };
            const up = declared.migrateRequest('1', input, endpoint);
            expect(declared.migrateResponse('1', up, endpoint)).toEqual(input);
          }),
          { numRuns: 10 },
        );
      }),
      { numRuns: 50, seed: 20261101 },
    );
  });

  it('enumValueAdded', () => {
    const oldValues = ['active', 'done', 'draft'];
    const declared = versions([
      { version: '1' },
      {
        version: '2',
        changes: [enumValueAdded({ schema: 'S', field: 'status', value: 'paused', downTo: 'active' })],
      },
    ]);
    const endpoint: Endpoint = { method: 'POST', path: '/s', schemas: ['S'] };
    fc.assert(
      fc.property(oldObject('status'), fc.constantFrom(...oldValues), (rest, status) => {
        const input = { ...rest, status };
        const up = declared.migrateRequest('1', input, endpoint);
        expect(declared.migrateResponse('1', up, endpoint)).toEqual(input);
      }),
      { numRuns: 200, seed: 20261101 },
    );
  });
});

describe('lifecycle on the declarations', () => {
  const rename = fieldRenamed({ schema: 'Project', from: 'name', to: 'title' });
  it.each([
    [
      'dated deprecation, sunset, one link for both, successor the next version',
      versions([
        {
          version: '1',
          deprecated: '2026-06-01T00:00:00Z',
          sunset: '2027-06-30T00:00:00Z',
          link: '/docs/v1',
        },
        { version: '2', changes: [budgetBecameMoney] },
        { version: '3', changes: [rename] },
      ]),
      [
        {
          version: '1',
          deprecatedAt: '2026-06-01T00:00:00Z',
          sunsetAt: '2027-06-30T00:00:00Z',
          successor: '2',
          links: { deprecation: '/docs/v1', sunset: '/docs/v1' },
        },
        { version: '2' },
        { version: '3' },
      ],
    ],
    [
      'deprecated: true, links as an object, an explicit successor',
      versions([
        { version: '1', deprecated: true, link: { deprecation: '/docs/v1' }, successor: '3' },
        { version: '2', changes: [budgetBecameMoney] },
        { version: '3', changes: [rename] },
      ]),
      [
        { version: '1', deprecated: true, successor: '3', links: { deprecation: '/docs/v1' } },
        { version: '2' },
        { version: '3' },
      ],
    ],
    [
      'a sunset without a deprecation, a Date, a link for the sunset only',
      versions([
        { version: '1', sunset: new Date(Date.UTC(2027, 0, 1)), link: '/docs/sunset' },
        { version: '2', changes: [budgetBecameMoney] },
      ]),
      [
        {
          version: '1',
          sunsetAt: new Date(Date.UTC(2027, 0, 1)),
          successor: '2',
          links: { sunset: '/docs/sunset' },
        },
        { version: '2' },
      ],
    ],
    ['no lifecycle: bare definitions, no successor', api, [{ version: '1' }, { version: '2' }]],
  ])('%s', (_name, declared, expected) => {
    expect(declared.definitions).toEqual(expected);
  });

  it.each([
    [{ version: '1', deprecated: 'soon' }, 'version 1: deprecated must be true or a date, got "soon"'],
    [{ version: '1', deprecated: false }, 'version 1: deprecated must be true or a date, got false'],
    [{ version: '1', sunset: '2027-13-01' }, 'version 1: sunset must be a date, got "2027-13-01"'],
    [{ version: '1', link: 7 }, 'version 1: link must be a URI or { deprecation?, sunset?, successor? }'],
    [{ version: '1', successor: 2 }, 'version 1: successor must be a version name'],
  ])('%j is refused', (entry, message) => {
    expect(() => versions([entry as never, { version: '2', changes: [budgetBecameMoney] }])).toThrow(
      new TypeError(`@plumbline/versioning: ${message}`),
    );
  });

  const declared = versions([
    {
      version: '1',
      deprecated: '2026-06-01T00:00:00Z',
      sunset: '2027-06-30T00:00:00Z',
      link: { deprecation: '/docs/deprecations/v1', sunset: '/docs/sunset-policy' },
    },
    { version: '2', changes: [budgetBecameMoney] },
    { version: '3', deprecated: true, changes: [rename] },
    {
      version: '4',
      changes: [enumValueAdded({ schema: 'Project', field: 'status', value: 'paused', downTo: 'active' })],
    },
  ]);

  it('the changelog lists a version with a lifecycle even without changes', () => {
    expect(changelog(declared).map(({ changes, ...rest }) => ({ ...rest, changes: changes.length }))).toEqual(
      [
        { version: '4', changes: 1 },
        { version: '3', deprecated: true, successor: '4', changes: 1 },
        { version: '2', changes: 1 },
        {
          version: '1',
          deprecated: '2026-06-01T00:00:00.000Z',
          sunset: '2027-06-30T00:00:00.000Z',
          links: { deprecation: '/docs/deprecations/v1', sunset: '/docs/sunset-policy' },
          successor: '2',
          changes: 0,
        },
      ],
    );
  });

  it('Markdown puts the lifecycle first in its section', () => {
    expect(changelogMarkdown(declared)).toBe(
      [
        '## 4',
        '',
        '- Project: the field `status` can be "paused" (older versions see "active"). (Project)',
        '',
        '## 3',
        '',
        '- Deprecated; successor: 4',
        '- Project: the field `name` was renamed to `title`. (Project)',
        '',
        '## 2',
        '',
        '- Project.budget is now an object { amount, currency }; older versions send and get a number in EUR. (Project)',
        '',
        '## 1',
        '',
        '- Deprecated since 2026-06-01T00:00:00.000Z; successor: 2 ([/docs/deprecations/v1](/docs/deprecations/v1))',
        '- Sunset on 2027-06-30T00:00:00.000Z ([/docs/sunset-policy](/docs/sunset-policy))',
        '',
      ].join('\n'),
    );
  });

  it.each([
    [
      'de',
      undefined,
      '- Veraltet seit 2026-06-01T00:00:00.000Z; Nachfolger: 2',
      '- Abschaltung am 2027-06-30T00:00:00.000Z',
    ],
    [
      'de-AT',
      undefined,
      '- Veraltet seit 2026-06-01T00:00:00.000Z; Nachfolger: 2',
      '- Abschaltung am 2027-06-30T00:00:00.000Z',
    ],
    [
      'fr',
      undefined,
      '- Deprecated since 2026-06-01T00:00:00.000Z; successor: 2',
      '- Sunset on 2027-06-30T00:00:00.000Z',
    ],
    [
      'fr',
      { deprecated: 'Obsolète', since: 'depuis le', successor: 'successeur', sunsetOn: 'Retrait le' },
      '- Obsolète depuis le 2026-06-01T00:00:00.000Z; successeur: 2',
      '- Retrait le 2027-06-30T00:00:00.000Z',
    ],
  ] as const)('the lifecycle lines in %s (words %o)', (language, words, deprecatedLine, sunsetLine) => {
    const markdown = changelogMarkdown(declared, { language, ...(words === undefined ? {} : { words }) });
    const v1 = markdown.slice(markdown.indexOf('## 1\n'));
    expect(v1).toBe(
      [
        '## 1',
        '',
        `${deprecatedLine} ([/docs/deprecations/v1](/docs/deprecations/v1))`,
        `${sunsetLine} ([/docs/sunset-policy](/docs/sunset-policy))`,
        '',
      ].join('\n'),
    );
    // Version 3's undated deprecation: the word alone.
    expect(markdown).toContain(
      `- ${deprecatedLine.slice(2).split(' ')[0]}; ${words?.successor ?? (language.startsWith('de') ? 'Nachfolger' : 'successor')}: 4\n`,
    );
  });

  it('add() keeps the lifecycle of the entries before', () => {
    expect(
      declared.add({ version: '5', changes: [endpointAdded({ method: 'GET', path: '/x' })] }).definitions[0],
    ).toEqual(declared.definitions[0]);
  });
});

describe("fieldRenamed: an older client's field errors name the field as it does", () => {
  const problem = (errors: Record<string, unknown>[]) => ({
    type: '/errors/validation_failed',
    status: 400,
    errors,
  });
  const body = versions([
    { version: '1' },
    { version: '2', changes: [fieldRenamed({ schema: 'Project', from: 'name', to: 'title' })] },
  ]);
  const query = versions([
    { version: '1' },
    {
      version: '2',
      changes: [fieldRenamed({ schema: 'Project', from: 'name', to: 'title', queryField: true })],
    },
  ]);
  const spaced = versions([
    { version: '1' },
    { version: '2', changes: [fieldRenamed({ schema: 'Project', from: 'old name', to: 'a/b~c' })] },
  ]);
  it.each([
    [
      'a pointer at the member',
      body,
      [{ pointer: '#/title', code: 'too_small' }],
      [{ pointer: '#/name', code: 'too_small' }],
    ],
    ['a pointer inside the member', body, [{ pointer: '#/title/0' }], [{ pointer: '#/name/0' }]],
    [
      'other members and look-alikes kept',
      body,
      [{ pointer: '#/titles' }, { pointer: '#/sub/title' }, { pointer: '#/budget' }],
      [{ pointer: '#/titles' }, { pointer: '#/sub/title' }, { pointer: '#/budget' }],
    ],
    ['a body rename leaves parameters alone', body, [{ parameter: 'title' }], [{ parameter: 'title' }]],
    [
      'a query field: its parameter, with an operator, and its pointer',
      query,
      [{ parameter: 'title' }, { parameter: 'title[gte]' }, { parameter: 'titles' }, { pointer: '#/title' }],
      [{ parameter: 'name' }, { parameter: 'name[gte]' }, { parameter: 'titles' }, { pointer: '#/name' }],
    ],
    [
      'the newer name an older client sent (set aside on the way up) is named as sent',
      body,
      [
        { pointer: '#/%00title', code: 'unrecognized_keys' },
        { pointer: '#/%00title/0' },
        { pointer: '#/title' },
      ],
      [{ pointer: '#/title', code: 'unrecognized_keys' }, { pointer: '#/title/0' }, { pointer: '#/name' }],
    ],
    [
      'a query field sent under the newer name',
      query,
      [{ parameter: '\u0000title' }, { parameter: 'title' }],
      [{ parameter: 'title' }, { parameter: 'name' }],
    ],
    [
      'escaped names (RFC 6901, URI fragment)',
      spaced,
      [{ pointer: '#/a~1b~0c' }],
      [{ pointer: '#/old%20name' }],
    ],
  ] as const)('%s', (_name, declared, errors, expected) => {
    expect(declared.migrateError('1', problem([...errors]), GET)).toEqual(problem([...expected]));
    // The newest version's problems are its own.
    expect(declared.migrateError('2', problem([...errors]), GET)).toEqual(problem([...errors]));
  });
  it('a problem without field errors is the same object', () => {
    const plain = { type: '/errors/not_found', status: 404 };
    expect(body.migrateError('1', plain, GET)).toBe(plain);
  });
});
