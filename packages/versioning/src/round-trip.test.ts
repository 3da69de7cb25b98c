// The round-trip property of every kind of declared change: a request valid in the older version,
// migrated up, answered as is and migrated back down, comes back with every field the changes do not
// touch as it was sent. The service runs the same property over its own declared changes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type Endpoint,
  endpointAdded,
  endpointRemoved,
  enumValueAdded,
  fieldBecameRequired,
  fieldRenamed,
  fieldShapeChanged,
  roundTrip,
  type VersionChange,
  type VersionChanges,
  versionChange,
  versions,
} from './index.js';

const ENDPOINT: Endpoint = { method: 'POST', path: '/projects', schemas: ['Project'] };

const budgetAsMoney = versionChange({
  description: 'Project.budget is now { amount, currency }',
  affects: ['Project'],
  request: (body) => {
    const value = body as { budget?: unknown };
    return typeof value.budget === 'number'
      ? { ...value, budget: { amount: value.budget, currency: 'EUR' } }
      : body;
  },
  response: (body) => {
    const value = body as { budget?: { amount: number } };
    return value.budget === undefined ? body : { ...value, budget: value.budget.amount };
  },
});

const two = (change: VersionChange): VersionChanges =>
  versions([{ version: '1' }, { version: '2', changes: [change] }]);

// Keys an older body may carry besides the ones a case fixes: never a name the newer version
// introduced (that would not be valid in the older one).
const key = fc.string({ minLength: 1, maxLength: 8 }).filter((k) => k !== '__proto__');
const restWithout = (...forbidden: string[]) =>
  fc.dictionary(
    key.filter((k) => !forbidden.includes(k)),
    fc.jsonValue(),
    { maxKeys: 6 },
  );

interface Case {
  readonly name: string;
  readonly declared: VersionChanges;
  readonly version: string;
  /** Fields a valid older body carries, generated. */
  readonly fields: fc.Arbitrary<Record<string, unknown>>;
  /** Names the newer version introduced: never in an older body. */
  readonly forbidden: readonly string[];
  readonly touched?: readonly string[];
  /** What the touched fields come back as, when the change is lossless on them too. */
  readonly lossless: boolean;
}

const cases: Case[] = [
  {
    name: 'fieldRenamed name → title',
    declared: two(fieldRenamed({ schema: 'Project', from: 'name', to: 'title' })),
    version: '1',
    fields: fc.record({ name: fc.string() }),
    forbidden: ['title'],
    lossless: true,
  },
  {
    name: 'fieldShapeChanged budget number → money',
    declared: two(
      fieldShapeChanged({
        schema: 'Project',
        field: 'budget',
        up: (amount: number) => ({ amount, currency: 'EUR' }),
        down: (money: { amount: number }) => money.amount,
      }),
    ),
    version: '1',
    fields: fc.record({ budget: fc.double({ noNaN: true, min: 0, max: 1e12 }) }),
    forbidden: [],
    lossless: true,
  },
  {
    name: 'fieldBecameRequired currency (sent by the client)',
    declared: two(fieldBecameRequired({ schema: 'Project', field: 'currency', default: 'EUR' })),
    version: '1',
    fields: fc.record({ currency: fc.constantFrom('EUR', 'USD') }),
    forbidden: [],
    lossless: true,
  },
  {
    name: 'fieldBecameRequired currency (left out: gets the default, the rest unchanged)',
    declared: two(fieldBecameRequired({ schema: 'Project', field: 'currency', default: 'EUR' })),
    version: '1',
    fields: fc.constant({}),
    forbidden: ['currency'],
    lossless: false,
  },
  {
    name: 'enumValueAdded status paused',
    declared: two(enumValueAdded({ schema: 'Project', field: 'status', value: 'paused', downTo: 'active' })),
    version: '1',
    fields: fc.record({ status: fc.constantFrom('active', 'done', 'draft') }),
    forbidden: [],
    lossless: true,
  },
  {
    name: 'endpointAdded elsewhere (no transform on this endpoint)',
    declared: two(endpointAdded({ method: 'POST', path: '/projects/{id}/archive' })),
    version: '1',
    fields: fc.constant({}),
    forbidden: [],
    lossless: true,
  },
  {
    name: 'endpointRemoved elsewhere (no transform on this endpoint)',
    declared: two(endpointRemoved({ method: 'GET', path: '/projects/export.csv' })),
    version: '1',
    fields: fc.constant({}),
    forbidden: [],
    lossless: true,
  },
  {
    name: 'custom budget change (touched declared by the caller)',
    declared: two(budgetAsMoney),
    version: '1',
    fields: fc.record({ budget: fc.double({ noNaN: true, min: 0, max: 1e12 }) }),
    forbidden: [],
    touched: ['budget'],
    lossless: true,
  },
  {
    name: 'three versions: v1 crosses the budget change and a rename',
    declared: versions([
      { version: '1' },
      { version: '2', changes: [budgetAsMoney] },
      { version: '3', changes: [fieldRenamed({ schema: 'Project', from: 'name', to: 'title' })] },
    ]),
    version: '1',
    fields: fc.record({ name: fc.string(), budget: fc.double({ noNaN: true, min: 0, max: 1e12 }) }),
    forbidden: ['title'],
    touched: ['budget'],
    lossless: true,
  },
  {
    name: 'three versions: v2 crosses only the rename',
    declared: versions([
      { version: '1' },
      { version: '2', changes: [budgetAsMoney] },
      { version: '3', changes: [fieldRenamed({ schema: 'Project', from: 'name', to: 'title' })] },
    ]),
    version: '2',
    fields: fc.record({
      name: fc.string(),
      budget: fc.record({
        amount: fc.double({ noNaN: true, min: 0, max: 1e12 }),
        currency: fc.constant('USD'),
      }),
    }),
    forbidden: ['title'],
    lossless: true,
  },
];

describe.each(cases)('round trip: $name', (testCase) => {
  it('untouched fields come back as sent', () => {
    fc.assert(
      fc.property(testCase.fields, restWithout(...testCase.forbidden), (fields, rest) => {
        const body = { ...rest, ...fields };
        const result = roundTrip(testCase.declared, {
          version: testCase.version,
          body,
          endpoint: ENDPOINT,
          ...(testCase.touched === undefined ? {} : { touched: testCase.touched }),
        });
        expect(result.differences).toEqual([]);
        if (testCase.lossless) expect(result.response).toEqual(body);
      }),
      { numRuns: 150, seed: 20261128 },
    );
  });
});

describe('roundTrip reports what it saw', () => {
  const dropsDescription = versionChange({
    description: 'a faulty change: its response forgets description',
    affects: ['Project'],
    response: (body) => {
      const { description: _gone, ...rest } = body as Record<string, unknown>;
      return rest;
    },
  });
  const rename = fieldRenamed({ schema: 'Project', from: 'name', to: 'title' });
  it.each([
    [
      'a sound rename',
      two(rename),
      { name: 'Roof', status: 'active' },
      undefined,
      {
        request: { title: 'Roof', status: 'active' },
        response: { name: 'Roof', status: 'active' },
        touched: ['name', 'title'],
        differences: [],
      },
    ],
    [
      'a change that loses an untouched field',
      two(dropsDescription),
      { name: 'Roof', description: 'tiles', status: 'active' },
      undefined,
      {
        request: { name: 'Roof', description: 'tiles', status: 'active' },
        response: { name: 'Roof', status: 'active' },
        touched: [],
        differences: ['description'],
      },
    ],
    [
      'a handler that rewrites a field',
      two(rename),
      { name: 'Roof', status: 'active' },
      (request: unknown) => ({ ...(request as object), status: 'done' }),
      {
        request: { title: 'Roof', status: 'active' },
        response: { name: 'Roof', status: 'done' },
        touched: ['name', 'title'],
        differences: ['status'],
      },
    ],
    [
      'an endpoint the changes do not affect',
      two(rename),
      { name: 'Roof' },
      undefined,
      { request: { name: 'Roof' }, response: { name: 'Roof' }, touched: [], differences: [] },
    ],
  ])('%s', (name, declared, body, respond, expected) => {
    const endpoint: Endpoint =
      name === 'an endpoint the changes do not affect'
        ? { method: 'POST', path: '/tasks', schemas: ['Task'] }
        : ENDPOINT;
    expect(
      roundTrip(declared, { version: '1', body, endpoint, ...(respond === undefined ? {} : { respond }) }),
    ).toEqual(expected);
  });

  it('an undeclared version is a TypeError', () => {
    expect(() => roundTrip(two(rename), { version: '9', body: {}, endpoint: ENDPOINT })).toThrow(
      new TypeError('@plumbline/versioning: version "9" is not declared (declared: 1, 2)'),
    );
  });
});
