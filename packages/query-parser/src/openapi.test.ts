/**
 * The OpenAPI parameters are generated from the collection the parser uses; these properties check
 * that the `sort` schema's one `pattern` admits exactly what `parseQuery` accepts: every string the
 * pattern (and the JSON Schema validator running it) accepts parses, every valid sort drawn from the
 * collection's fields matches, and near-misses (repeated fields, bad signs and suffixes) agree.
 */
import { isHttpError } from '@plumbline/errors';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tasks } from '../test/fixtures.js';
import { type Collection, defineCollection, parseQuery, toOpenApiParameters } from './index.js';

const ajv = new Ajv2020({ strict: false });

function sortSchemaOf(collection: Collection): {
  schema: Record<string, unknown>;
  matches: (v: string) => boolean;
  validate: (v: string) => boolean;
} {
  const schema = toOpenApiParameters(collection).find((p) => p.name === 'sort')!.schema;
  const validate = ajv.compile(schema);
  // JSON Schema regexes are ECMA-262 with Unicode semantics (Ajv compiles them with the `u` flag too).
  const pattern = new RegExp(schema['pattern'] as string, 'u');
  return { schema, matches: (v) => pattern.test(v), validate: (v) => validate(v) };
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

// One sortable field, one key: `id,id` is refused by both the count and the repeat.
const single = defineCollection({ fields: { id: { type: 'int', sort: true } }, maxSortKeys: 1 });

/** Every shape a valid key of `field` may take. */
const SHAPES = ['', '+', '-', ':asc', ':desc', '_asc', '_desc'] as const;
const shaped = (field: string, shape: (typeof SHAPES)[number]) =>
  shape === '' || shape === '+' || shape === '-' ? `${shape}${field}` : `${field}${shape}`;

/** A valid sort: 1 to `maxSortKeys` distinct sortable fields, in any order, each in any shape. */
function validSort(collection: Collection): fc.Arbitrary<string> {
  return fc
    .shuffledSubarray([...collection.sortable], { minLength: 1, maxLength: collection.maxSortKeys })
    .chain((fields) =>
      fc.tuple(...fields.map((field) => fc.constantFrom(...SHAPES).map((s) => shaped(field, s)))),
    )
    .map((keys) => keys.join(','));
}

/** A valid sort with one of its fields named again, in any shape, at any place. */
function repeatedSort(collection: Collection): fc.Arbitrary<string> {
  return validSort(collection).chain((sort) => {
    const keys = sort.split(',');
    return fc
      .tuple(fc.nat(keys.length - 1), fc.constantFrom(...SHAPES), fc.nat(keys.length))
      .map(([which, shape, at]) => {
        const field = collection.sortable.find((f) => SHAPES.some((s) => shaped(f, s) === keys[which]))!;
        const out = [...keys];
        out.splice(at, 0, shaped(field, shape));
        return out.join(',');
      });
  });
}

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

/** Anything at all made of the characters a sort is written with, and a few others. */
function anyText(collection: Collection): fc.Arbitrary<string> {
  const pieces = [...collection.sortable, 'asc', 'desc', ',', ':', '_', '-', '+', 'a', ' '];
  return fc.array(fc.constantFrom(...pieces), { maxLength: 12 }).map((parts) => parts.join(''));
}

describe.each([
  ['tasks', tasks],
  ['stems', stems],
  ['single', single],
])('sort schema of %s = what the parser accepts', (_name, collection) => {
  const { schema, matches, validate } = sortSchemaOf(collection);

  it('is one pattern, with nothing else to apply', () => {
    expect(Object.keys(schema).sort()).toEqual(['pattern', 'type']);
  });

  it('every generated valid sort matches the pattern (and parses)', () => {
    fc.assert(
      fc.property(validSort(collection), (sort) => {
        expect(matches(sort), sort).toBe(true);
        expect(validate(sort), sort).toBe(true);
        expect(parserAccepts(collection, sort), sort).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it('a sort naming a field twice matches neither the pattern nor the parser', () => {
    fc.assert(
      fc.property(repeatedSort(collection), (sort) => {
        expect(matches(sort), sort).toBe(false);
        expect(parserAccepts(collection, sort), sort).toBe(false);
      }),
      { numRuns: 1000 },
    );
  });

  it('every string the pattern accepts parses, and every string it refuses is refused', () => {
    fc.assert(
      fc.property(fc.oneof(nearMiss(collection), anyText(collection), repeatedSort(collection)), (sort) => {
        const accepted = parserAccepts(collection, sort);
        expect(matches(sort), sort).toBe(accepted);
        expect(validate(sort), sort).toBe(accepted);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('sort schema, by example', () => {
  const { matches, validate } = sortSchemaOf(tasks);
  it.each([
    ['-created_at,name', true],
    ['+name', true],
    ['name:desc,priority_asc', true],
    ['created_at_desc,name,id', true],
    ['-name:asc', false],
    ['name,name', false],
    ['name,-name', false],
    ['name,id,name_desc', false],
    ['-id,priority:asc,id', false],
    ['name_asc,name:desc', false],
    ['+name_desc', false],
    ['-name_asc', false],
    ['name,priority,score,id', false],
    ['', false],
    ['password_hash', false],
  ])('%s → %s (and the parser agrees)', (sort, ok) => {
    expect(validate(sort)).toBe(ok);
    expect(matches(sort)).toBe(ok);
    expect(parserAccepts(tasks, sort)).toBe(ok);
  });
});
