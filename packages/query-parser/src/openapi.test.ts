/**
 * The OpenAPI parameters are generated from the collection the parser uses; these properties check
 * that the `sort` schema admits exactly what `parseQuery` accepts, drawing values from the schema's
 * own pattern and near-misses around it.
 */
import { isHttpError } from '@plumbline/errors';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tasks } from '../test/fixtures.js';
import { type Collection, defineCollection, parseQuery, toOpenApiParameters } from './index.js';

const ajv = new Ajv2020({ strict: false });

function sortSchemaOf(collection: Collection): { pattern: string; validate: (v: string) => boolean } {
  const schema = toOpenApiParameters(collection).find((p) => p.name === 'sort')!.schema;
  const validate = ajv.compile(schema);
  return { pattern: schema['pattern'] as string, validate: (v) => validate(v) };
}

function parserAccepts(collection: Collection, sort: string): boolean {
  try {
    parseQuery(collection, `sort=${encodeURIComponent(sort)}`);
    return true;
  } catch (error) {
    if (isHttpError(error) && error.status === 400) return false;
    throw error;
  }
}

// `created` and `created_at` share a stem; `x_asc` is a field whose name ends like a suffix.
const stems = defineCollection({
  fields: {
    id: { type: 'int', sort: true },
    created: { type: 'date', sort: true },
    created_at: { type: 'date-time', sort: true },
    x_asc: { type: 'string', sort: true },
    hidden: { type: 'string' },
  },
  maxSortKeys: 4,
});

/** Keys around the valid ones: unknown and non-sortable names, every sign, suffix and separator. */
function nearMiss(collection: Collection): fc.Arbitrary<string> {
  const name = fc.constantFrom(...collection.sortable, 'hidden', 'password_hash', 'nope', 'x', '');
  const sign = fc.constantFrom('', '', '-', '+', '--', ' ');
  const suffix = fc.constantFrom('', '', ':asc', ':desc', '_asc', '_desc', ':up', '_up', ':ASC', ':asc_desc');
  const key = fc.tuple(sign, name, suffix).map(([a, b, c]) => `${a}${b}${c}`);
  return fc
    .array(key, { minLength: 0, maxLength: collection.maxSortKeys + 1 })
    .chain((keys) => fc.constantFrom(keys.join(','), `${keys.join(',')},`, keys.join(';')));
}

describe.each([
  ['tasks', tasks],
  ['stems', stems],
])('sort schema of %s = what the parser accepts', (_name, collection) => {
  const { pattern, validate } = sortSchemaOf(collection);

  it('every value drawn from the schema pattern: schema and parser agree', () => {
    fc.assert(
      fc.property(fc.stringMatching(new RegExp(pattern)), (sort) => {
        expect(validate(sort), sort).toBe(parserAccepts(collection, sort));
      }),
      { numRuns: 500 },
    );
  });

  it('near-misses: the schema rejects exactly what the parser rejects', () => {
    fc.assert(
      fc.property(nearMiss(collection), (sort) => {
        expect(validate(sort), sort).toBe(parserAccepts(collection, sort));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('sort schema, by example', () => {
  const { validate } = sortSchemaOf(tasks);
  it.each([
    ['-created_at,name', true],
    ['+name', true],
    ['name:desc,priority_asc', true],
    ['created_at_desc,name,id', true],
    ['-name:asc', false],
    ['name,name', false],
    ['name,-name', false],
    ['name_asc,name:desc', false],
    ['+name_desc', false],
    ['-name_asc', false],
    ['name,priority,score,id', false],
    ['', false],
    ['password_hash', false],
  ])('%s → %s (and the parser agrees)', (sort, ok) => {
    expect(validate(sort)).toBe(ok);
    expect(parserAccepts(tasks, sort)).toBe(ok);
  });
});
